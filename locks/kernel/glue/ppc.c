// SPDX-License-Identifier: MIT
/*
 * Kernel-tree lock library for the powerpc qspinlock: the tree's
 * arch/powerpc/lib/qspinlock.c (QK_TREE_FILE), with the tree's own
 * asm/qspinlock.h and asm/qspinlock_types.h (forwarders ahead of qsim's
 * arch on the include path), then qsim's glue (kernel_ppc_qspinlock).
 * Its knobs are the file's debugfs files, registered by its initcall.
 */
#include QK_TREE_FILE

#include "common.h"

bool qk_is_event(const void *p, unsigned int *ev)
{
	(void)p;
	(void)ev;
	return false; /* the powerpc file counts no lock events */
}

QK_EXPORT const struct qk_info qk_info = {
	.api_version = QK_API_VERSION,
	.kind = "ppc",
	.lock_size = sizeof(struct qspinlock),
	.lock_align = __alignof__(struct qspinlock),
	.percpu_start = __start_qk_percpu,
	.percpu_end = __stop_qk_percpu,
	.nevents = 0,
	.event_names = NULL,
	.qnode_count = (const char *)&qnodes.count,
	.qnode_max = (int)(sizeof(qnodes.nodes) / sizeof(qnodes.nodes[0])),
};

QK_EXPORT void qk_setup(char *percpu, size_t stride)
{
	qk_setup_common(percpu, stride);
}

QK_EXPORT void qk_lock(void *lock)
{
	queued_spin_lock(lock);
}

QK_EXPORT void qk_unlock(void *lock)
{
	queued_spin_unlock(lock);
}

QK_EXPORT bool qk_trylock(void *lock)
{
	return queued_spin_trylock(lock);
}

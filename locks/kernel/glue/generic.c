// SPDX-License-Identifier: MIT
/*
 * Kernel-tree lock library for the generic qspinlock files: the tree's
 * kernel/locking/qspinlock.c (QK_TREE_FILE), which includes its pv half
 * itself, then qsim's glue.  One library, two lock types: the instance's
 * qk_params.paravirt selects the native or the pv slowpath and unlock
 * (kernel_qspinlock, kernel_pv_qspinlock).
 */
#include QK_TREE_FILE

#include "common.h"

/* The kernel's lock-event counters are per-CPU memory (lock_events.c);
 * qsim counts them instead (qk_is_event), so these stay zero. */
DEFINE_PER_CPU(unsigned long, lockevents[lockevent_num]);

#undef LOCK_EVENT
#define LOCK_EVENT(name) [LOCKEVENT_##name] = #name,
static const char *const qk_event_names[lockevent_num] = {
#include "lock_events_list.h"
};

bool qk_is_event(const void *p, unsigned int *ev)
{
	const char *c = p, *lo = (const char *)lockevents;

	if (c < lo || c >= lo + sizeof(lockevents))
		return false;
	*ev = (unsigned int)((size_t)(c - lo) / sizeof(lockevents[0]));
	return true;
}

QK_EXPORT const struct qk_info qk_info = {
	.api_version = QK_API_VERSION,
	.kind = "generic",
	.lock_size = sizeof(struct qspinlock),
	.lock_align = __alignof__(struct qspinlock),
	.percpu_start = __start_qk_percpu,
	.percpu_end = __stop_qk_percpu,
	.nevents = lockevent_num,
	.event_names = qk_event_names,
	/* The first node's MCS count is the CPU's nesting count. */
	.qnode_count = (const char *)&qnodes[0].mcs.count,
	.qnode_max = (int)(sizeof(qnodes) / sizeof(qnodes[0])),
};

QK_EXPORT void qk_setup(char *percpu, size_t stride)
{
	qk_setup_common(percpu, stride);
	if (qk_params.paravirt)
		__pv_init_lock_hash();
}

/* The pv pass leaves queued_spin_trylock defined as its hybrid trylock:
 * the fast path's own is wanted here. */
#undef queued_spin_trylock

QK_EXPORT void qk_lock(void *lock)
{
	if (qk_params.paravirt)
		qk->pv_note(qk_self, lock, QK_PV_WAITING);
	queued_spin_lock(lock);
	if (qk_params.paravirt)
		qk->pv_note(qk_self, lock, QK_PV_HOLDER);
}

QK_EXPORT void qk_unlock(void *lock)
{
	queued_spin_unlock(lock);
}

QK_EXPORT bool qk_trylock(void *lock)
{
	return queued_spin_trylock(lock);
}

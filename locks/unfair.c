// SPDX-License-Identifier: MIT
/*
 * unfair: the test-and-set fallback a guest without paravirt spinlocks
 * uses (virt_spin_lock, LOCK-FACTS.md 1.7): on the queued lock's word,
 * spin while it is nonzero, then try (0,0,0) -> (0,0,1); never queue,
 * never yield.  Unfair, but immune to waiter preemption.
 */
#include "locks/qspinlock.h"

static void unfair_lock(void *p)
{
	struct qspinlock *lock = p;
	int v;

	for (;;) {
		v = 0;
		if (atomic_try_cmpxchg_acquire(&lock->val, &v,
					       (int)_Q_LOCKED_VAL))
			return;
		atomic_cond_read_relaxed(&lock->val, !VAL);
	}
}

static void unfair_unlock(void *p)
{
	native_queued_spin_unlock(p);
}

static bool unfair_trylock(void *p)
{
	return qs_trylock(p);
}

const struct lk_ops lk_unfair_ops = {
	.name = "unfair",
	.desc = "virt_spin_lock test-and-set fallback on the qspinlock word "
		"(no queue, no pv)",
	.size = sizeof(struct qspinlock),
	.align = sizeof(u32),
	.init = qs_lock_init,
	.lock = unfair_lock,
	.unlock = unfair_unlock,
	.trylock = unfair_trylock,
	.word = LK_WORD_QSPINLOCK,
};

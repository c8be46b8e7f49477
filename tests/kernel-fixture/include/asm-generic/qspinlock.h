/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the queued lock's fast paths.  The arch's header
 * includes this after defining what it replaces (queued_spin_unlock).
 */
#ifndef FIXTURE_ASM_GENERIC_QSPINLOCK_H
#define FIXTURE_ASM_GENERIC_QSPINLOCK_H

#include <asm-generic/qspinlock_types.h>
#include <linux/atomic.h>

#ifndef queued_spin_is_locked
static __always_inline int queued_spin_is_locked(struct qspinlock *lock)
{
	return (atomic_read(&lock->val) & _Q_LOCKED_MASK) != 0;
}
#endif

/* Free and nobody queued: take it with one compare-and-swap. */
static __always_inline int queued_spin_trylock(struct qspinlock *lock)
{
	int word = atomic_read(&lock->val);

	if (word != 0)
		return 0;
	return atomic_try_cmpxchg_acquire(&lock->val, &word, _Q_LOCKED_VAL);
}

extern void queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);

#ifndef queued_spin_lock
static __always_inline void queued_spin_lock(struct qspinlock *lock)
{
	int word = 0;

	if (likely(atomic_try_cmpxchg_acquire(&lock->val, &word,
					      _Q_LOCKED_VAL)))
		return;
	queued_spin_lock_slowpath(lock, (u32)word);
}
#endif

#ifndef queued_spin_unlock
static __always_inline void queued_spin_unlock(struct qspinlock *lock)
{
	smp_store_release(&lock->locked, 0);
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the fixture's powerpc lock, fast paths.  The trylock
 * and the unlock are larx/stcx. loops in inline asm, as powerpc lock code
 * writes them; the owner half is taken whether or not waiters are queued
 * (a trylock may steal).
 */
#ifndef FIXTURE_PPC_QSPINLOCK_H
#define FIXTURE_PPC_QSPINLOCK_H

#include <linux/compiler.h>
#include <asm/qspinlock_types.h>
#include <asm/paravirt.h>

static __always_inline int queued_spin_is_locked(struct qspinlock *lock)
{
	return (READ_ONCE(lock->val) & FX_OWNER_MASK) != 0;
}

/* Set the owner half to @me if it is clear; return the word seen. */
static __always_inline u32 fx_take_owner(struct qspinlock *lock, u32 me)
{
	u32 seen, next;

	asm volatile("1:	lwarx	%0,0,%2,1\n"
		     "	andi.	%1,%0,0xffff\n"
		     "	bne-	2f\n"
		     "	or	%1,%0,%3\n"
		     "	stwcx.	%1,0,%2\n"
		     "	bne-	1b\n" PPC_ACQUIRE_BARRIER "2:\n"
		     : "=&r"(seen), "=&r"(next)
		     : "r"(&lock->val), "r"(me)
		     : "cr0", "memory");
	return seen;
}

/* The owner half of a lock held by this CPU. */
static __always_inline u32 fx_owner_me(void)
{
	return 1U | ((u32)smp_processor_id() << 1);
}

static __always_inline int queued_spin_trylock(struct qspinlock *lock)
{
	u32 me = fx_owner_me();

	return !(fx_take_owner(lock, me) & FX_OWNER_MASK);
}

void queued_spin_lock_slowpath(struct qspinlock *lk);

static __always_inline void queued_spin_lock(struct qspinlock *lk)
{
	if (queued_spin_trylock(lk))
		return;
	queued_spin_lock_slowpath(lk);
}

/* Clear the owner half, keeping whatever tail is there (andis. keeps
 * bits 16-31). */
static inline void queued_spin_unlock(struct qspinlock *lock)
{
	u32 word;

	asm volatile(PPC_RELEASE_BARRIER "1:	lwarx	%0,0,%1\n"
					 "	andis.	%0,%0,0xffff\n"
					 "	stwcx.	%0,0,%1\n"
					 "	bne-	1b\n"
		     : "=&r"(word)
		     : "r"(&lock->val)
		     : "cr0", "memory");
}

#endif

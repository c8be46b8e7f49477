// SPDX-License-Identifier: MIT
/*
 * ticket: a plain FIFO ticket lock.  A locker takes the next ticket with
 * one fully ordered fetch-add (x86's locked xadd; the generic ticket
 * lock's fetch-add is fully ordered too) and waits (acquire) until the
 * owner field reaches it; trylock is a fully ordered cmpxchg; unlock hands
 * the lock to the next ticket with a release store.  No paravirt support,
 * so under overcommit a preempted next-in-line stalls everyone behind it
 * (docs/locks.md).
 */
#include "qsim_kernel.h"
#include "locks/lock.h"

struct ticket_lock {
	u16 owner; /* ticket now being served */
	u16 next;  /* next ticket to hand out */
};

static void ticket_init(void *p)
{
	struct ticket_lock *lock = p;

	lock->owner = 0;
	lock->next = 0;
}

static void ticket_lock(void *p)
{
	struct ticket_lock *lock = p;
	u16 me = __fetch_op(&lock->next, +, 1, SIM_ORD_FULL);

	/* Pairs with the release store in ticket_unlock. */
	smp_cond_load_acquire(&lock->owner, VAL == me);
}

bool ticket_trylock(void *p)
{
	struct ticket_lock *lock = p;
	u16 owner = READ_ONCE(lock->owner);

	if (READ_ONCE(lock->next) != owner)
		return false;
	return cmpxchg(&lock->next, owner, (u16)(owner + 1)) == owner;
}

void ticket_unlock(void *p)
{
	struct ticket_lock *lock = p;

	smp_store_release(&lock->owner, (u16)(READ_ONCE(lock->owner) + 1));
}

const struct lk_ops lk_ticket_ops = {
	.name = "ticket",
	.desc = "FIFO ticket lock, no paravirt support",
	.size = sizeof(struct ticket_lock),
	.align = sizeof(u32),
	.init = ticket_init,
	.lock = ticket_lock,
	.unlock = ticket_unlock,
	.trylock = ticket_trylock,
};

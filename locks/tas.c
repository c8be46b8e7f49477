// SPDX-License-Identifier: MIT
/*
 * tas: the powerpc simple spinlock (the pre-5.9 default, still used when
 * queued spinlocks are configured out), with the directed H_CONFER to a
 * preempted holder that shared-processor guests do.  Written from the
 * facts in LOCK-FACTS.md section 4.12; docs/locks.md describes it.
 *
 * Lock word: 0 when free; the holder's token (0x80000000 | cpu) when held,
 * so a waiter can read who holds it and confer to that vCPU.
 */
#include "qsim_kernel.h"
#include "locks/lock.h"

struct tas_lock {
	u32 slock;
};

#define TAS_TOKEN_FLAG	0x80000000u
#define TAS_HOLDER_MASK 0xffffu

static inline u32 tas_token(void)
{
	return TAS_TOKEN_FLAG | (u32)smp_processor_id();
}

static void tas_init(void *p)
{
	struct tas_lock *lock = p;

	lock->slock = 0;
}

static bool tas_trylock(void *p)
{
	struct tas_lock *lock = p;

	/* One larx/stcx. attempt with the lock hint; acquire on success. */
	return cmpxchg_lock(&lock->slock, 0, tas_token()) == 0;
}

/*
 * True when waiting further is pointless: the lock is free, or (on a
 * shared processor) its holder's vCPU is not running.
 */
static bool tas_free_or_holder_out(struct tas_lock *lock, bool shared,
				   u32 *seen)
{
	*seen = READ_ONCE(lock->slock);
	if (!*seen)
		return true;
	return shared && (yield_count_of((int)(*seen & TAS_HOLDER_MASK)) & 1);
}

/* splpar_spin_yield: confer our dispatch to a preempted holder. */
static void tas_yield_to_holder(struct tas_lock *lock)
{
	u32 seen = READ_ONCE(lock->slock);
	int holder;
	u32 yc;

	if (!seen)
		return;
	holder = (int)(seen & TAS_HOLDER_MASK);
	yc = yield_count_of(holder);
	if (!(yc & 1))
		return; /* the holder is running */
	/* Order the yield count read before the re-check of the word. */
	smp_rmb();
	if (READ_ONCE(lock->slock) != seen)
		return; /* released or re-taken: the count may be stale */
	yield_to_preempted(holder, yc);
}

static void tas_lock(void *p)
{
	struct tas_lock *lock = p;
	bool shared = is_shared_processor();
	u32 seen;

	for (;;) {
		if (likely(tas_trylock(lock)))
			return;
		/* Spin on plain loads, not on larx, at low SMT priority,
		 * until it looks free. */
		HMT_low();
		for (;;) {
			spin_until_cond(
				tas_free_or_holder_out(lock, shared, &seen));
			if (!seen)
				break;
			tas_yield_to_holder(lock);
		}
		HMT_medium();
	}
}

static void tas_unlock(void *p)
{
	struct tas_lock *lock = p;

	/* lwsync, then a plain store: pairs with the acquire in trylock. */
	smp_store_release(&lock->slock, 0);
}

const struct lk_ops lk_tas_ops = {
	.name = "tas",
	.desc = "powerpc simple spinlock; directed H_CONFER to a preempted "
		"holder on shared processors",
	.size = sizeof(struct tas_lock),
	.align = sizeof(u32),
	.init = tas_init,
	.lock = tas_lock,
	.unlock = tas_unlock,
	.trylock = tas_trylock,
};

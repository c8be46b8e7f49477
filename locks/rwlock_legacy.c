// SPDX-License-Identifier: MIT
/*
 * rwlock_legacy: the powerpc reader-preferring rwlock of the simple-lock
 * family (LOCK-FACTS.md section 4.12).  A signed word: a positive count
 * of readers, or a writer's negative token (0x80000000 | cpu).  Readers
 * enter whenever no writer holds it, so a stream of readers can starve a
 * writer.  Waiters confer to a preempted *writer* (splpar_rw_yield);
 * readers cannot be identified, so nobody yields to them.
 */
#include "qsim_kernel.h"
#include "locks/lock.h"

struct legacy_rwlock {
	s32 lock;
};

#define RW_TOKEN_FLAG  0x80000000u
#define RW_HOLDER_MASK 0xffffu

static void rwl_init(void *p)
{
	struct legacy_rwlock *rw = p;

	rw->lock = 0;
}

static s32 rwl_token(void)
{
	return (s32)(RW_TOKEN_FLAG | (u32)smp_processor_id());
}

/*
 * One larx (with the lock hint, LOCK-FACTS 4.12) / stcx. loop: give up
 * without a store when a writer holds it, else count one more reader;
 * a lost reservation retries.
 */
static bool rwl_read_trylock(struct legacy_rwlock *rw)
{
	return __add_unless_negative(&rw->lock, 1, true, SIM_ORD_ACQUIRE) > 0;
}

/* larx with the lock hint; the stcx. only when the word is 0. */
static bool rwl_write_trylock(void *p)
{
	struct legacy_rwlock *rw = p;

	return cmpxchg_lock(&rw->lock, 0, rwl_token()) == 0;
}

/* Confer to a preempted writer, if the word still names it. */
static void splpar_rw_yield(struct legacy_rwlock *rw)
{
	s32 seen = READ_ONCE(rw->lock);
	int holder;
	u32 yc;

	if (seen >= 0)
		return; /* free, or readers: nobody to yield to */
	holder = (int)((u32)seen & RW_HOLDER_MASK);
	yc = yield_count_of(holder);
	if (!(yc & 1))
		return;
	smp_rmb();
	if (READ_ONCE(rw->lock) != seen)
		return;
	yield_to_preempted(holder, yc);
}

/*
 * Done waiting when @cond holds, or there is a preempted writer; @seen is
 * the word as read, so the caller tests what the condition saw (the
 * kernel's loop reads the word once a round).
 */
static bool rwl_wait_over(struct legacy_rwlock *rw, bool shared, bool reader,
			  s32 *seen)
{
	s32 v = READ_ONCE(rw->lock);

	*seen = v;
	if (reader ? v >= 0 : v == 0)
		return true;
	return shared && v < 0 &&
	       (yield_count_of((int)((u32)v & RW_HOLDER_MASK)) & 1);
}

static void rwl_read_lock(void *p)
{
	struct legacy_rwlock *rw = p;
	bool shared = is_shared_processor();
	s32 seen;

	while (!rwl_read_trylock(rw)) {
		HMT_low();
		for (;;) {
			spin_until_cond(rwl_wait_over(rw, shared, true, &seen));
			if (seen >= 0)
				break;
			splpar_rw_yield(rw);
		}
		HMT_medium();
	}
}

static void rwl_read_unlock(void *p)
{
	struct legacy_rwlock *rw = p;

	/* lwsync, then the decrement: a larx/stcx. loop with release
	 * ordering, as the kernel's read unlock (no full sync). */
	(void)__fetch_op(&rw->lock, -, 1, SIM_ORD_RELEASE);
}

static void rwl_write_lock(void *p)
{
	struct legacy_rwlock *rw = p;
	bool shared = is_shared_processor();
	s32 seen;

	while (!rwl_write_trylock(rw)) {
		HMT_low();
		for (;;) {
			spin_until_cond(
				rwl_wait_over(rw, shared, false, &seen));
			if (seen == 0)
				break;
			splpar_rw_yield(rw);
		}
		HMT_medium();
	}
}

static void rwl_write_unlock(void *p)
{
	struct legacy_rwlock *rw = p;

	smp_store_release(&rw->lock, 0);
}

const struct lk_ops lk_rwlock_legacy_ops = {
	.name = "rwlock_legacy",
	.desc = "powerpc reader-preferring rwlock (signed word), confer to a "
		"preempted writer",
	.size = sizeof(struct legacy_rwlock),
	.align = sizeof(u32),
	.init = rwl_init,
	.lock = rwl_write_lock,
	.unlock = rwl_write_unlock,
	.trylock = rwl_write_trylock,
	.read_lock = rwl_read_lock,
	.read_unlock = rwl_read_unlock,
};

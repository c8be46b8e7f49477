// SPDX-License-Identifier: MIT
/*
 * ticket_backoff: a ticket lock with proportional backoff.  A waiter with
 * n tickets ahead of it does not poll the owner field continuously: it
 * waits n - 1 times its backoff delay between reads, which keeps the line
 * quiet; the waiter next in line spins on the field, so a release is
 * never left unseen for a delay (Mellor-Crummey and Scott's rule).  The
 * delay tunes itself to one hold: a poll that finds no hand-off at all
 * means it was too short (grow it by an eighth); a poll that finds as
 * many hand-offs as we slept for, or more, means we overslept (shrink it
 * by an eighth).  Two variants
 * (lock.backoff):
 *
 *   percpu  one delay per CPU, shared by every lock it takes
 *   hashed  per CPU an array of delays, indexed by a hash of the lock's
 *           address, so locks with different hold times tune apart
 *
 * Delays are in cpu_relax() iterations; the wait itself is a bounded
 * spin with no memory reads, so it costs the host nothing per iteration.
 */
#include "qsim_kernel.h"
#include "locks/lock.h"

#define TB_MIN_DELAY   1U
#define TB_MAX_DELAY   16384U
#define TB_START_DELAY 50U
#define TB_HASH_BITS   5

/* The ticket lock's word (ticket.c), with the waiting done differently. */
struct tb_lock {
	u16 owner;
	u16 next;
};

struct tb_guest {
	struct lk_params p;
	unsigned int nr_cpus;
	u32 *delay; /* nr_cpus * (1 << TB_HASH_BITS); host-side state */
};

static size_t tb_guest_size(const struct lk_params *p, unsigned int nr)
{
	return sizeof(struct tb_guest) +
	       (size_t)nr * (1u << TB_HASH_BITS) * sizeof(u32);
}

static void tb_guest_init(void *globals, const struct lk_params *p,
			  unsigned int nr)
{
	struct tb_guest *g = globals;

	g->p = *p;
	g->nr_cpus = nr;
	g->delay = (u32 *)(g + 1);
	for (size_t i = 0; i < (size_t)nr << TB_HASH_BITS; i++)
		g->delay[i] = TB_START_DELAY;
}

/* This CPU's delay slot for @lock. */
static u32 *tb_delay(struct tb_lock *lock)
{
	struct tb_guest *g = lk_guest();
	size_t slot = 0;

	if (g->p.backoff_hashed)
		slot = hash_ptr(lock, TB_HASH_BITS);
	return &g->delay[((size_t)smp_processor_id() << TB_HASH_BITS) + slot];
}

static void tb_init(void *p)
{
	struct tb_lock *lock = p;

	lock->owner = 0;
	lock->next = 0;
}

static void tb_lock(void *p)
{
	struct tb_lock *lock = p;
	u16 me = __fetch_op(&lock->next, +, 1, SIM_ORD_FULL);
	u32 *delay = tb_delay(lock);
	/* Acquire: when it is ours at once, this read is what orders the
	 * critical section after the last unlock (a weak memory model
	 * caught its absence: docs/memory-model.md). */
	u16 owner = smp_load_acquire(&lock->owner);

	while (owner != me) {
		u16 ahead = (u16)(me - owner), was = owner;

		if (ahead == 1) {
			/* Next in line: spin on the field itself.  Pairs
			 * with the release store in ticket_unlock. */
			smp_cond_load_acquire(&lock->owner, VAL == me);
			break;
		}
		/* Proportional backoff: no reads while we wait. */
		(void)spin_until_cond_timeout(false,
					      (uint64_t)*delay * (ahead - 1));
		owner = smp_load_acquire(&lock->owner);
		if (owner == was) {
			/* No hand-off at all while we waited: too short. */
			*delay += (*delay >> 3) + 1;
			if (*delay > TB_MAX_DELAY)
				*delay = TB_MAX_DELAY;
		} else if ((u16)(owner - was) >= ahead - 1) {
			/* As many hand-offs as we waited for, or more: we
			 * were next (or up) before we looked, overslept. */
			*delay -= *delay >> 3;
			if (*delay < TB_MIN_DELAY)
				*delay = TB_MIN_DELAY;
		}
	}
}

const struct lk_ops lk_ticket_backoff_ops = {
	.name = "ticket_backoff",
	.desc = "ticket lock with self-tuning proportional backoff, delays "
		"per CPU or per CPU and lock hash (lock.backoff)",
	.size = sizeof(struct tb_lock),
	.align = sizeof(u32),
	.init = tb_init,
	.lock = tb_lock,
	/* Same word as ticket: its trylock and unlock serve unchanged. */
	.unlock = ticket_unlock,
	.trylock = ticket_trylock,
	.global_size = tb_guest_size,
	.global_init = tb_guest_init,
	.params = "backoff",
};

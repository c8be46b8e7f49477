/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the paravirt half of the fixture's queued lock,
 * compiled in qspinlock.c's second pass.  Its own algorithm:
 *
 * - a queued waiter spins SPIN_THRESHOLD times for the hand-over, then
 *   marks its node halted and pv_waits on that mark; whoever hands over
 *   and finds the mark clears it and pv_kicks the waiter;
 * - the queue head spins SPIN_THRESHOLD times for the holder to leave,
 *   then enters (lock, node) in a hash table, turns the holder byte from
 *   1 into FX_SLOW_VAL and pv_waits on the byte; an unlock that finds
 *   FX_SLOW_VAL takes the entry out, releases and pv_kicks the head.
 */
#ifndef FIXTURE_PV_PASS
#error "only for kernel/locking/qspinlock.c's paravirt pass"
#endif

#include <linux/hash.h>
#include <linux/memblock.h>
#include <asm/qspinlock_paravirt.h>

#define FX_SLOW_VAL 3U

enum fx_vcpu_state {
	fx_running = 0,
	fx_halted = 1,
};

/* A queue node as the paravirt pass sees it: fits struct qnode. */
struct fx_pv_node {
	struct mcs_spinlock mcs;
	int cpu;
	u8 state;
};

struct fx_hash_entry {
	struct qspinlock *lock;
	struct fx_pv_node *node;
};

static struct fx_hash_entry *fx_hash;
static unsigned int fx_hash_bits;

void __init __pv_init_lock_hash(void)
{
	unsigned long n = 4 * (unsigned long)num_possible_cpus();

	BUILD_BUG_ON(sizeof(struct fx_pv_node) > sizeof(struct qnode));
	if (n < 64)
		n = 64;
	fx_hash = alloc_large_system_hash("fixture pv hash", sizeof(*fx_hash),
					  n, 0, HASH_EARLY | HASH_ZERO,
					  &fx_hash_bits, NULL, n, n);
}

/* One entry per halted head; probing from the lock's bucket. */
static void fx_hash_add(struct qspinlock *lock, struct fx_pv_node *pn)
{
	u32 mask = (1U << fx_hash_bits) - 1;
	u32 i = hash_ptr(lock, fx_hash_bits);

	for (;; i = (i + 1) & mask) {
		struct fx_hash_entry *e = &fx_hash[i];

		if (!cmpxchg_relaxed(&e->lock, NULL, lock)) {
			WRITE_ONCE(e->node, pn);
			return;
		}
	}
}

static struct fx_pv_node *fx_hash_take(struct qspinlock *lock)
{
	u32 mask = (1U << fx_hash_bits) - 1;
	u32 i = hash_ptr(lock, fx_hash_bits);

	for (;; i = (i + 1) & mask) {
		struct fx_hash_entry *e = &fx_hash[i];

		if (READ_ONCE(e->lock) == lock) {
			struct fx_pv_node *pn = READ_ONCE(e->node);

			smp_store_release(&e->lock, NULL);
			return pn;
		}
	}
}

static void pv_init_node(struct mcs_spinlock *node)
{
	struct fx_pv_node *pn = (struct fx_pv_node *)node;

	pn->cpu = smp_processor_id();
	pn->state = fx_running;
}

static void pv_wait_node(struct mcs_spinlock *node, struct mcs_spinlock *prev)
{
	struct fx_pv_node *pn = (struct fx_pv_node *)node;
	int loops;

	for (;;) {
		for (loops = SPIN_THRESHOLD; loops; loops--) {
			if (READ_ONCE(node->locked))
				return;
			cpu_relax();
		}
		/* The mark, then a last look: the hand-over checks the
		 * mark after its store, so one of us sees the other. */
		smp_store_mb(pn->state, fx_halted);
		if (!READ_ONCE(node->locked)) {
			lockevent_inc(fx_halt_node);
			pv_wait(&pn->state, fx_halted);
		}
		WRITE_ONCE(pn->state, fx_running);
		if (READ_ONCE(node->locked))
			return;
	}
}

static void pv_kick_node(struct qspinlock *lock, struct mcs_spinlock *node)
{
	struct fx_pv_node *pn = (struct fx_pv_node *)node;

	smp_mb();
	if (cmpxchg_relaxed(&pn->state, fx_halted, fx_running) == fx_halted) {
		lockevent_inc(fx_kick_node);
		pv_kick(pn->cpu);
	}
}

/* Returns when the holder byte is clear (or about to be: the caller
 * waits for it); the caller then takes the lock. */
static void pv_wait_head(struct qspinlock *lock, struct mcs_spinlock *node)
{
	struct fx_pv_node *pn = (struct fx_pv_node *)node;
	int loops;

	for (;;) {
		for (loops = SPIN_THRESHOLD; loops; loops--) {
			if (!READ_ONCE(lock->locked))
				return;
			cpu_relax();
		}
		fx_hash_add(lock, pn);
		if (cmpxchg(&lock->locked, _Q_LOCKED_VAL, FX_SLOW_VAL) !=
		    _Q_LOCKED_VAL) {
			/* Released meanwhile: our entry is ours to remove. */
			fx_hash_take(lock);
			continue;
		}
		lockevent_inc(fx_halt_head);
		while (READ_ONCE(lock->locked) == FX_SLOW_VAL)
			pv_wait(&lock->locked, FX_SLOW_VAL);
		return;
	}
}

__visible void __pv_queued_spin_unlock_slowpath(struct qspinlock *lock,
						u8 locked)
{
	struct fx_pv_node *pn;

	if (WARN_ON_ONCE(locked != FX_SLOW_VAL))
		return;
	pn = fx_hash_take(lock);
	smp_store_release(&lock->locked, 0);
	lockevent_inc(fx_kick_unlock);
	pv_kick(pn->cpu);
}

#ifndef __pv_queued_spin_unlock
__visible void __pv_queued_spin_unlock(struct qspinlock *lock)
{
	u8 was = cmpxchg_release(&lock->locked, _Q_LOCKED_VAL, 0);

	if (likely(was == _Q_LOCKED_VAL))
		return;
	__pv_queued_spin_unlock_slowpath(lock, was);
}
#endif

// SPDX-License-Identifier: MIT
/*
 * pv_qspinlock: the paravirt build of the queued spinlock (LOCK-FACTS.md
 * section 2), for shared-processor guests.  The slowpath template is
 * compiled a second time here with the pv hooks on; pv_wait/pv_kick come
 * from pv_glue.c, mapped per scenario onto H_CONFER/H_PROD/H_CEDE or
 * KVM's halt/kick.  On a dedicated partition everything takes the native
 * paths.
 *
 * pv node states and who moves them (n = a queued waiter's node):
 *
 *   RUNNING --(waiter, about to pv_wait)-------------> HALTED
 *   HALTED  --(waiter, back from pv_wait; CAS)-------> RUNNING
 *   HALTED  --(new holder's kick_node; CAS)----------> HASHED
 *   any     --(head, each round of its spin)---------> RUNNING
 *   RUNNING --(head, after hashing, before pv_wait)--> HASHED
 *
 * Invariants (checked in pv_unhash and by tests/test_pvlock.c):
 *   P1  A lock whose locked byte is _Q_SLOW_VAL has exactly one hash
 *       entry; only its owner removes it, before releasing the lock.
 *   P2  A waiter that may sleep in pv_wait has either published HALTED
 *       before re-checking node->locked (the new holder then hashes it),
 *       or the head has hashed itself and set _Q_SLOW_VAL (the unlocker
 *       then kicks it): every sleeper has exactly one waker.
 *   P3  The head writes HASHED, never HALTED, before waiting, so a late
 *       kick_node cannot hash the lock a second time.
 */
#include "locks/mutants.h"
#include "locks/qspinlock.h"

#if !defined(QSIM_MUTANT) || QSIM_MUTANT < LK_PPC_MUTANT_FIRST

/*
 * Mutant builds (locks/mutants.h) compile this file again with QSIM_MUTANT
 * set: MUTANT(x) is then a compile-time constant selecting the broken
 * variant, and the file's globals become static.
 */
#ifdef QSIM_MUTANT
#define MUTANT(name) (QSIM_MUTANT == MUT_##name)
#define PV_EXPORT    static
#else
#define MUTANT(name) 0
#define PV_EXPORT
#endif

#include "locks/pv_glue.h"

#define PV_PREV_CHECK_MASK 0xff

static struct qnode *const PV_LP_DUMMY = (struct qnode *)1;

/* --- the lock -> node hash table --- */

/* Host-side count of entries per lock, for P1 (never iterated). */
static int hash_count_add(struct qspinlock *lock, int delta)
{
	GHashTable *h = qs_guest()->hash_count;
	int n;

	if (!LK_CHECKS)
		return 0;
	n = GPOINTER_TO_INT(g_hash_table_lookup(h, lock)) + delta;

	if (n)
		g_hash_table_insert(h, lock, GINT_TO_POINTER(n));
	else
		g_hash_table_remove(h, lock);
	return n;
}

static unsigned int hash_per_line(void)
{
	return qs_guest()->p.line_bytes / sizeof(struct pv_hash_entry);
}

/*
 * Probe linearly from the start of the hash bucket's cache line through
 * the whole table; claim the first empty entry.
 */
PV_EXPORT struct qspinlock **pv_hash(struct qspinlock *lock, struct qnode *node)
{
	struct qs_guest *g = qs_guest();
	u32 size = 1U << g->pv_lock_hash_bits;
	u32 first =
		hash_ptr(lock, g->pv_lock_hash_bits) & ~(hash_per_line() - 1);
	u32 hops;

	lockevent_inc(sim_pv_hash);
	for (hops = 1; hops <= size; hops++) {
		struct pv_hash_entry *e =
			&g->pv_lock_hash[(first + hops - 1) & (size - 1)];

		if (cmpxchg(&e->lock, (struct qspinlock *)NULL, lock) == NULL) {
			/* Counted the moment the entry becomes visible. */
			if (hash_count_add(lock, 1) > 1)
				lk_violation(
					"P1: lock %#llx hashed twice "
					"(second entry for the node of "
					"cpu %d)",
					(unsigned long long)lk_addr_key(lock),
					node->cpu);
			WRITE_ONCE(e->node, node);
			lockevent_add(pv_hash_hops, hops);
			return &e->lock;
		}
	}
	lk_violation("pv hash table full hashing lock %#llx",
		     (unsigned long long)lk_addr_key(lock));
}

/* The entry holding @lock, along the probe path pv_hash takes. */
static struct pv_hash_entry *pv_hash_find(struct qspinlock *lock)
{
	struct qs_guest *g = qs_guest();
	u32 size = 1U << g->pv_lock_hash_bits;
	u32 first =
		hash_ptr(lock, g->pv_lock_hash_bits) & ~(hash_per_line() - 1);

	for (u32 i = 0; i < size; i++) {
		struct pv_hash_entry *e =
			&g->pv_lock_hash[(first + i) & (size - 1)];

		if (READ_ONCE(e->lock) == lock)
			return e;
	}
	lk_violation("lock %#llx is (*,*,3) but not in the pv hash table",
		     (unsigned long long)lk_addr_key(lock));
}

/* Same walk; the entry must be there, and be the only one (P1). */
PV_EXPORT struct qnode *pv_unhash(struct qspinlock *lock)
{
	struct pv_hash_entry *e = pv_hash_find(lock);
	struct qnode *n = READ_ONCE(e->node);
	int left;

	if (!n)
		lk_violation("P1: lock %#llx: its hash entry was found before "
			     "its node was stored",
			     (unsigned long long)lk_addr_key(lock));
	WRITE_ONCE(e->lock, NULL);
	left = hash_count_add(lock, -1);
	if (left != 0)
		lk_violation("P1: lock %#llx had %d hash entries at unhash, "
			     "not 1",
			     (unsigned long long)lk_addr_key(lock), left + 1);
	return n;
}

/* kick_before_unhash: find the node without removing its entry. */
static struct qnode *pv_hash_peek(struct qspinlock *lock)
{
	return READ_ONCE(pv_hash_find(lock)->node);
}

/* --- entry trylocks (lock stealing) --- */

/*
 * A steal succeeded, the stealer having seen @v before its CAS.  R7: a
 * stealer must stand back while the queue head has set pending.
 */
static void pv_note_steal(struct qspinlock *lock, u32 v)
{
	lockevent_inc(pv_lock_stealing);
	if (LK_CHECKS && (v & _Q_PENDING_MASK))
		lk_violation("R7: lock %#llx stolen while the queue head had "
			     "pending set (tail,pending,locked) = %#x",
			     (unsigned long long)lk_addr_key(lock), v);
}

/* Hybrid queued/unfair: keep trying while a queue exists whose head is
 * not actively spinning (pending clear). */
static bool pv_hybrid_trylock(struct qspinlock *lock)
{
	u32 v;

	for (;;) {
		/* A cpu_relax() loop over the word (powerpc's
		 * spin_until_cond would relax with spin_cpu_relax). */
		if (MUTANT(steal_ignores_pending))
			v = (u32)atomic_cond_read_relaxed(
				&lock->val, !(VAL & _Q_LOCKED_MASK) ||
						    !(VAL & _Q_TAIL_MASK));
		else
			v = (u32)atomic_cond_read_relaxed(
				&lock->val, !(VAL & _Q_LOCKED_PENDING_MASK) ||
						    !(VAL & _Q_TAIL_MASK) ||
						    (VAL & _Q_PENDING_MASK));
		if (MUTANT(steal_ignores_pending)) {
			/* Steals whenever unlocked, pending or not. */
			if (!(v & _Q_LOCKED_MASK) &&
			    cmpxchg_acquire(&lock->locked, 0,
					    (u8)_Q_LOCKED_VAL) == 0) {
				pv_note_steal(lock, v);
				return true;
			}
			if (!(v & _Q_TAIL_MASK))
				return false;
			cpu_relax();
			continue;
		}
		if (!(v & _Q_LOCKED_PENDING_MASK) &&
		    cmpxchg_acquire(&lock->locked, 0, (u8)_Q_LOCKED_VAL) == 0) {
			pv_note_steal(lock, v);
			return true;
		}
		if (!(v & _Q_TAIL_MASK) || (v & _Q_PENDING_MASK))
			return false;
		cpu_relax();
	}
}

/* One attempt: take the locked byte if neither locked nor pending. */
static bool pv_oneshot_trylock(struct qspinlock *lock)
{
	u32 v = (u32)atomic_read(&lock->val);

	if (!(v & _Q_LOCKED_PENDING_MASK) &&
	    cmpxchg_acquire(&lock->locked, 0, (u8)_Q_LOCKED_VAL) == 0) {
		pv_note_steal(lock, v);
		return true;
	}
	return false;
}

static bool pv_trylock(struct qspinlock *lock)
{
	switch (qs_guest()->p.steal) {
	case LK_STEAL_HYBRID:
		return pv_hybrid_trylock(lock);
	case LK_STEAL_ONESHOT:
		return pv_oneshot_trylock(lock);
	case LK_STEAL_NONE:
		break;
	}
	return qs_trylock(lock);
}

/* --- the four hooks --- */

static void pv_init_node_hook(struct qnode *n)
{
	WRITE_ONCE(n->cpu, smp_processor_id());
	WRITE_ONCE(n->state, vcpu_running);
}

struct pv_node_wait {
	struct qnode *n, *prev;
};

static bool pv_node_locked(void *arg)
{
	struct pv_node_wait *w = arg;

	return READ_ONCE(w->n->locked);
}

/* Every 256 spins: is our predecessor no longer spinning? */
static bool pv_prev_stopped(void *arg)
{
	struct pv_node_wait *w = arg;

	if (READ_ONCE(w->prev->state) != vcpu_running)
		return true;
	return qs_guest()->p.wait_early == LK_WAIT_EARLY_PREV_PREEMPTED &&
	       vcpu_is_preempted(READ_ONCE(w->prev->cpu));
}

/*
 * Spin SPIN_THRESHOLD times for the MCS hand-off, checking the
 * predecessor every 256 (PV_PREV_CHECK_MASK); then publish HALTED and
 * sleep.  lk_spin_periodic gives exactly that loop's count and timing.
 */
static void pv_wait_node_hook(struct qnode *n, struct qnode *prev)
{
	struct pv_node_wait w = {n, prev};

	for (;;) {
		uint64_t r;
		bool early;

		if (qs_guest()->p.wait_early == LK_WAIT_EARLY_NONE)
			r = spin_until_cond_timeout(
				READ_ONCE(n->locked),
				qs_guest()->p.spin_threshold);
		else
			r = lk_spin_periodic(qs_guest()->p.spin_threshold,
					     PV_PREV_CHECK_MASK + 1,
					     pv_node_locked, pv_prev_stopped,
					     &w);
		early = r & LK_SPIN_CHECKED;

		if (r && !early)
			return;
		/* Pairs with the barrier before the state CAS in kick_node. */
		if (MUTANT(no_mb_wait_node))
			WRITE_ONCE(n->state, vcpu_halted);
		else
			smp_store_mb(n->state, vcpu_halted);
		lk_point(state_stored);
		if (!READ_ONCE(n->locked)) {
			lockevent_inc(pv_wait_node);
			lockevent_cond_inc(pv_wait_early, early);
			pv_wait(&n->state, vcpu_halted);
		}
		/* Back to RUNNING unless the new holder made us HASHED. */
		(void)cmpxchg(&n->state, (u8)vcpu_halted, (u8)vcpu_running);
		lockevent_cond_inc(pv_spurious_wakeup, !READ_ONCE(n->locked));
	}
}

/*
 * Called by the new holder right after handing the MCS lock to @n: if @n
 * went to sleep, do not wake it now; mark it HASHED, set _Q_SLOW_VAL and
 * hash it, so that our unlock kicks it (the lazy kick).
 */
static void pv_kick_node_hook(struct qspinlock *lock, struct qnode *n)
{
	/* A failed relaxed CAS orders nothing; pairs with smp_store_mb. */
	if (!MUTANT(no_mb_kick_node))
		smp_mb__before_atomic();
	if (cmpxchg_relaxed(&n->state, (u8)vcpu_halted, (u8)vcpu_hashed) !=
	    vcpu_halted)
		return;
	if (MUTANT(no_lazy_hash))
		return;
	lk_point(hashed);
	/* We hold the lock: (*,*,1) -> (*,*,3). */
	WRITE_ONCE(lock->locked, (u8)_Q_SLOW_VAL);
	(void)pv_hash(lock, n);
}

static u32 pv_wait_head_or_lock_hook(struct qspinlock *lock, struct qnode *n)
{
	struct qs_guest *g = qs_guest();
	struct qspinlock **lp = NULL;
	int rounds;

	/* The previous holder already hashed us: do not hash again. */
	if (READ_ONCE(n->state) == vcpu_hashed)
		lp = (struct qspinlock **)PV_LP_DUMMY;
	lockevent_inc(lock_slowpath);
	for (rounds = 0;; rounds++) {
		uint64_t loop = g->p.spin_threshold;

		WRITE_ONCE(n->state, vcpu_running);
		/* (*,0,*) -> (*,1,*): stealers, stand back. */
		WRITE_ONCE(lock->pending, 1);
		/*
		 * Up to SPIN_THRESHOLD tries of "locked byte 0? then take it
		 * from (*,1,0) -> (*,0,1) with a 16-bit CAS".
		 */
		while (loop) {
			loop = spin_until_cond_timeout(!READ_ONCE(lock->locked),
						       loop);
			if (!loop)
				break;
			if (cmpxchg_acquire(
				    &lock->locked_pending, (u16)_Q_PENDING_VAL,
				    (u16)_Q_LOCKED_VAL) == _Q_PENDING_VAL)
				goto gotlock;
			cpu_relax();
			loop--;
		}
		WRITE_ONCE(lock->pending, 0);
		if (MUTANT(slow_before_hash) && !lp) {
			if (xchg(&lock->locked, (u8)_Q_SLOW_VAL) == 0) {
				WRITE_ONCE(lock->locked, (u8)_Q_LOCKED_VAL);
				goto gotlock;
			}
			lk_point(hashed);
			lp = pv_hash(lock, n);
		} else if (!lp || MUTANT(hash_every_round)) {
			lp = pv_hash(lock, n);
			lk_point(hashed);
			/* Hash before _Q_SLOW_VAL; the xchg is the barrier. */
			if (__xchg(&lock->locked, (u8)_Q_SLOW_VAL,
				   MUTANT(relaxed_slow_xchg)
					   ? SIM_ORD_RELAXED
					   : SIM_ORD_FULL) == 0) {
				/* It was free: we own it; undo and unhash. */
				WRITE_ONCE(lock->locked, (u8)_Q_LOCKED_VAL);
				WRITE_ONCE(*lp, NULL);
				hash_count_add(lock, -1);
				lockevent_inc(sim_pv_unhash_self);
				goto gotlock;
			}
		}
		WRITE_ONCE(n->state,
			   MUTANT(head_halted) ? vcpu_halted : vcpu_hashed);
		lk_point(state_stored);
		lockevent_inc(pv_wait_head);
		lockevent_cond_inc(pv_wait_again, rounds);
		pv_wait(&lock->locked, (u8)_Q_SLOW_VAL);
	}
gotlock:
	return (u32)atomic_read(&lock->val) | _Q_LOCKED_VAL;
}

#define QS_LINKAGE		      PV_EXPORT
#define QS_SLOWPATH		      __pv_queued_spin_lock_slowpath
#define QS_PV			      1
#define QS_TRYLOCK(l)		      pv_trylock(l)
#define qs_pv_init_node(n)	      pv_init_node_hook(n)
#define qs_pv_wait_node(n, prev)      pv_wait_node_hook(n, prev)
#define qs_pv_kick_node(l, n)	      pv_kick_node_hook(l, n)
#define qs_pv_wait_head_or_lock(l, n) pv_wait_head_or_lock_hook(l, n)
#include "locks/qspinlock_slowpath.h"

/* --- lock and unlock --- */

static void pv_note_holder(struct qspinlock *lock)
{
	struct qs_guest *g = qs_guest();

	if (g->p.pv_mapping != LK_PV_SPLPAR_DIRECTED)
		return;
	WRITE_ONCE(g->holders[hash_ptr(lock, g->holder_bits)],
		   (u16)(smp_processor_id() + 1));
}

static void pvqs_lock(void *p)
{
	struct qspinlock *lock = p;
	int v = 0;

	/* powerpc's queued_spin_lock fast path carries the lock hint, pv or
	 * not (a locked cmpxchg where atomics are locked). */
	if (likely(__atomic_try_cmpxchg_hint(
		    &lock->val, &v, (int)_Q_LOCKED_VAL, true,
		    MUTANT(relaxed_lock) ? SIM_ORD_RELAXED : SIM_ORD_ACQUIRE)))
		goto out;
	if (!is_shared_processor()) {
		native_queued_spin_lock_slowpath(lock, (u32)v);
		return;
	}
	qs_guest()->wait_lock[smp_processor_id()] = lock;
	__pv_queued_spin_lock_slowpath(lock, (u32)v);
	qs_guest()->wait_lock[smp_processor_id()] = NULL;
out:
	pv_note_holder(lock);
}

/* (*,*,3): unhash the head, release, then kick it through the node. */
static void pv_unlock_slowpath(struct qspinlock *lock, u8 locked)
{
	struct qnode *n;

	if (unlikely(locked != _Q_SLOW_VAL))
		lk_violation(
			"pv unlock: corrupted locked byte %u (tail,pending,"
			"locked) = %#x",
			locked, (u32)lock->val.counter);
	/* The failed cmpxchg gave no ordering; pairs with the head's xchg. */
	if (!MUTANT(no_rmb_unlock))
		smp_rmb();
	if (MUTANT(kick_after_release)) {
		smp_store_release(&lock->locked, 0);
		lk_point(released);
		n = pv_unhash(lock);
		lockevent_inc(pv_kick_unlock);
		pv_kick(READ_ONCE(n->cpu));
		return;
	}
	if (MUTANT(kick_before_unhash)) {
		n = pv_hash_peek(lock);
		lockevent_inc(pv_kick_unlock);
		pv_kick(READ_ONCE(n->cpu));
		lk_point(released);
		(void)pv_unhash(lock);
		smp_store_release(&lock->locked, 0);
		return;
	}
	n = pv_unhash(lock);
	lk_point(unhashed);
	/* After this store the lock may be gone: use only the node. */
	if (MUTANT(relaxed_unlock))
		WRITE_ONCE(lock->locked, 0);
	else
		smp_store_release(&lock->locked, 0);
	/* P1: released, so no entry may remain (only the owner hashes). */
	if (hash_count_add(lock, 0))
		lk_violation("P1: lock %#llx still hashed after its slow "
			     "unlock",
			     (unsigned long long)lk_addr_key(lock));
	lk_point(released);
	lockevent_inc(pv_kick_unlock);
	if (MUTANT(late_lost_kick) && sched_clock() >= 40000000ull &&
	    !qs_guest()->lost_kick) {
		qs_guest()->lost_kick =
			true; /* once, late: the head sleeps on */
		return;
	}
	pv_kick(READ_ONCE(n->cpu));
}

static void pvqs_unlock(void *p)
{
	struct qspinlock *lock = p;
	u8 locked;

	if (!is_shared_processor()) {
		native_queued_spin_unlock(lock);
		return;
	}
	locked = __cmpxchg(&lock->locked, (u8)_Q_LOCKED_VAL, (u8)0,
			   MUTANT(relaxed_unlock) ? SIM_ORD_RELAXED
						  : SIM_ORD_RELEASE);
	if (likely(locked == _Q_LOCKED_VAL))
		return;
	pv_unlock_slowpath(lock, locked);
}

static bool pvqs_trylock(void *p)
{
	return qs_trylock(p);
}

#ifdef QSIM_MUTANT
#define PV_CAT_(a, b, c) a##b##c
#define PV_CAT(a, b, c)	 PV_CAT_(a, b, c)
#define PV_OPS		 PV_CAT(lk_mutant_, QSIM_MUTANT, _ops)
/* This build's entry of the catalogue, as constant expressions (a
 * conditional chain on the compile-time QSIM_MUTANT: what C allows in a
 * static initializer, where an array element is not). */
#define MUT_NAME_(id, name, mapping, memory, doc) QSIM_MUTANT == (id) ? #name:
#define MUT_MAP_(id, name, mapping, memory, doc) \
	QSIM_MUTANT == (id) ? (mapping):
#define MUT_DOC_(id, name, mapping, memory, doc) QSIM_MUTANT == (id) ? (doc):
#define MUT_MEM_(id, name, mapping, memory, doc) QSIM_MUTANT == (id) ? (memory):
#else
#define PV_OPS lk_pv_qspinlock_ops
#endif

const struct lk_ops PV_OPS = {
	.name = "pv_qspinlock",
#ifdef QSIM_MUTANT
	.desc = "a mutant build of pv_qspinlock",
	.mutant = LK_MUTANTS(MUT_NAME_) NULL,
	.mutant_desc = LK_MUTANTS(MUT_DOC_) NULL,
	.mutant_mapping = LK_MUTANTS(MUT_MAP_) NULL,
	.mutant_memory = LK_MUTANTS(MUT_MEM_) NULL,
	.hv_no_latch = MUTANT(no_latch),
#else
	.desc = "paravirt queued spinlock: pv node states, lock hash, lazy "
		"kick, hybrid unfair trylock; pv_wait/pv_kick per "
		"lock.pv_mapping",
#endif
	.size = sizeof(struct qspinlock),
	.align = sizeof(u32),
	.init = qs_lock_init,
	.lock = pvqs_lock,
	.unlock = pvqs_unlock,
	.trylock = pvqs_trylock,
	.global_size = qs_guest_size,
	.global_init = qs_guest_init,
	.global_fini = qs_guest_fini,
	.paravirt = true,
	.word = LK_WORD_QSPINLOCK,
	.pv_hash = qs_pv_hash,
	.qnode_counts = qs_qnode_counts,
	.params = "pv_mapping SPIN_THRESHOLD wait_early steal",
};

#endif

// SPDX-License-Identifier: MIT
/*
 * ppc_qspinlock: the powerpc queued spinlock (LOCK-FACTS.md section 4):
 * the owner CPU in the lock word, so a waiter can confer to a preempted
 * owner; lock stealing before queueing; a must-queue bit a long-waiting
 * head sets to stop stealers; sleepy locks that stretch the spin budgets
 * once a preempted owner was seen; tail CPU without an index, the
 * predecessor's node found by lock address.  Every qspl_ tunable is a
 * scenario key under its debugfs name, with the kernel default.
 *
 * Lock word, written (tail, mustq, sleepy, owner, locked):
 *
 *   bit  0      locked
 *   bits 1-14   owner CPU (written together with locked)
 *   bit  15     sleepy: a waiter saw the owner preempted
 *   bit  16     must-queue: the head wants no more stealing
 *   bits 17-31  tail CPU + 1
 *
 * The low half-word (locked, owner, sleepy) is released with one 16-bit
 * store; must-queue and tail survive it.  The head's trylock_clean_tail
 * clears must-queue and sleepy as it takes the lock.
 *
 * Invariants checked here:
 *   Q1  must-queue is never left set once no queue is left (the head that
 *       set it clears it when it takes the lock): at unlock.
 *   Q2  a queued node's predecessor is found among its CPU's four nodes.
 *
 * The powerpc code counts no lock events; the sim_* counters are qsim's
 * (LOCK-FACTS 3.3).  Spins are event-driven: each loop sleeps on the
 * lines its no-op path reads, and wakes when one changes or its budget of
 * iterations (which only these lines can change) runs out.
 */
#include "locks/mutants.h"
#include "qsim_kernel.h"
#include "locks/lock.h"

#if !defined(QSIM_MUTANT) || QSIM_MUTANT >= LK_PPC_MUTANT_FIRST

#ifdef QSIM_MUTANT
#define MUTANT(name) (QSIM_MUTANT == MUT_##name)
#else
#define MUTANT(name) 0
#endif

#define _Q_LOCKED_VAL	    0x00000001U
#define _Q_OWNER_CPU_OFFSET 1
#define _Q_OWNER_CPU_MASK   0x00007ffeU
#define _Q_SLEEPY_VAL	    0x00008000U
#define _Q_MUST_Q_VAL	    0x00010000U
#define _Q_TAIL_CPU_OFFSET  17
#define _Q_TAIL_CPU_MASK    0xfffe0000U
#define PPC_MAX_NODES	    4

struct ppc_qspinlock {
	union {
		atomic_t val;
		u16 locked; /* the low half-word on a little-endian host */
	};
};

struct ppc_qnode {
	struct ppc_qnode *next;
	struct ppc_qspinlock *lock; /* which lock this node waits on */
	int cpu;
	u8 locked; /* set to 1 by the predecessor */
	u8 sleepy; /* the owner was seen preempted upstream */
};

struct ppc_qnodes {
	int count;
	struct ppc_qnode nodes[PPC_MAX_NODES];
};

struct ppc_guest {
	struct lk_params p;
	unsigned int nr_cpus;
	struct ppc_qnodes *qnodes; /* per CPU, each on its own line */
	size_t qnodes_stride;
	u64 *sleepy_seen_ns; /* per CPU: when it last saw sleepiness */
};

static struct ppc_guest *G(void)
{
	return lk_guest();
}

static struct ppc_qnodes *cpu_qnodes(int cpu)
{
	return (struct ppc_qnodes *)((char *)G()->qnodes +
				     (size_t)cpu * G()->qnodes_stride);
}

static size_t ppc_guest_layout(const struct lk_params *p, unsigned int nr,
			       size_t *stride, size_t *sleepy_off)
{
	size_t line = p->line_bytes;
	size_t head = (sizeof(struct ppc_guest) + line - 1) & ~(line - 1);

	*stride = (sizeof(struct ppc_qnodes) + line - 1) & ~(line - 1);
	*sleepy_off = head + *stride * nr;
	return *sleepy_off +
	       (((size_t)nr * sizeof(u64) + line - 1) & ~(line - 1));
}

static size_t ppc_guest_size(const struct lk_params *p, unsigned int nr)
{
	size_t stride, off;

	return ppc_guest_layout(p, nr, &stride, &off);
}

static void ppc_guest_init(void *globals, const struct lk_params *p,
			   unsigned int nr)
{
	struct ppc_guest *g = globals;
	size_t stride, off;
	size_t line = p->line_bytes;

	ppc_guest_layout(p, nr, &stride, &off);
	g->p = *p;
	g->nr_cpus = nr;
	g->qnodes_stride = stride;
	g->qnodes =
		(struct ppc_qnodes *)((char *)globals +
				      ((sizeof(struct ppc_guest) + line - 1) &
				       ~(line - 1)));
	g->sleepy_seen_ns = (u64 *)((char *)globals + off);
}

static inline u32 lock_val_of_me(void)
{
	return _Q_LOCKED_VAL | ((u32)smp_processor_id() << _Q_OWNER_CPU_OFFSET);
}

static inline int owner_of(u32 v)
{
	return (int)((v & _Q_OWNER_CPU_MASK) >> _Q_OWNER_CPU_OFFSET);
}

static inline u32 tail_of(int cpu)
{
	return (u32)(cpu + 1) << _Q_TAIL_CPU_OFFSET;
}

static inline int tail_cpu(u32 v)
{
	return (int)(v >> _Q_TAIL_CPU_OFFSET) - 1;
}

/* --- the larx/stcx. sequences, each one atomic step, written as the
 * kernel writes them in assembly: the larx is the first access (no load
 * of the word before it), so an attempt that finds the lock taken has
 * still asked for the line; the lock takes carry the lock hint (EH=1) --- */

/* The lock-taking update's ordering: acquire (relaxed in the
 * ppc_lock_relaxed mutant). */
#define LOCK_ORD (MUTANT(ppc_lock_relaxed) ? SIM_ORD_RELAXED : SIM_ORD_ACQUIRE)

/* Free and no must-queue: take it, keeping any tail. */
static bool trylock_steal(struct ppc_qspinlock *lock)
{
	u32 old = (u32)__larx_update(
		&lock->val.counter, o,
		((u32)o & (_Q_LOCKED_VAL | _Q_MUST_Q_VAL)) != 0,
		(int)(((u32)o & _Q_TAIL_CPU_MASK) | lock_val_of_me()), true,
		LOCK_ORD);

	return !(old & (_Q_LOCKED_VAL | _Q_MUST_Q_VAL));
}

/* What the head's take keeps of the word it saw: the tail if it is not
 * ours; must-queue and sleepy go. */
static inline u32 kept_by_head(u32 old, u32 tail)
{
	u32 keep =
		(old & _Q_TAIL_CPU_MASK) == tail ? 0 : old & _Q_TAIL_CPU_MASK;

	if (MUTANT(ppc_mustq_kept))
		keep |= old & _Q_MUST_Q_VAL;
	return keep;
}

/* The head's take: clears the tail if it is still ours, drops must-queue
 * and sleepy either way; gives up while the lock is held.  Returns the
 * word it saw. */
static u32 trylock_clean_tail(struct ppc_qspinlock *lock, u32 tail)
{
	return (u32)__larx_update(
		&lock->val.counter, o, ((u32)o & _Q_LOCKED_VAL) != 0,
		(int)(kept_by_head((u32)o, tail) | lock_val_of_me()), true,
		LOCK_ORD);
}

/* Release barrier (lwsync), then swap our tail in. */
static u32 publish_tail_cpu(struct ppc_qspinlock *lock, u32 tail)
{
	smp_wmb(); /* node initialisation before publication */
	return (u32)__larx_update(&lock->val.counter, o, false,
				  (int)(((u32)o & ~_Q_TAIL_CPU_MASK) | tail),
				  false, SIM_ORD_RELAXED);
}

static void try_set_sleepy(struct ppc_qspinlock *lock, u32 old)
{
	if (!(old & _Q_LOCKED_VAL) || (old & _Q_SLEEPY_VAL))
		return;
	if (atomic_cmpxchg_relaxed(&lock->val, (int)old,
				   (int)(old | _Q_SLEEPY_VAL)) == (int)old)
		lockevent_inc(sim_sleepy_set);
}

/* --- sleepiness --- */

static void note_sleepy_time(void)
{
	if (G()->p.qspl.pv_sleepy_lock_interval_ns)
		G()->sleepy_seen_ns[smp_processor_id()] = sched_clock();
}

static bool recently_sleepy(void)
{
	u64 interval = G()->p.qspl.pv_sleepy_lock_interval_ns;
	u64 *seen = &G()->sleepy_seen_ns[smp_processor_id()];

	if (!interval || !*seen)
		return false;
	if (sched_clock() - *seen < interval)
		return true;
	*seen = 0;
	return false;
}

static void seen_sleepy_owner(struct ppc_qspinlock *lock, u32 v)
{
	if (!G()->p.qspl.pv_sleepy_lock)
		return;
	note_sleepy_time();
	if (!(v & _Q_SLEEPY_VAL))
		try_set_sleepy(lock, v);
}

/*
 * Confer to the owner if its vCPU is preempted and the word has not
 * changed since we sampled it (the count would be stale).  Returns true
 * when the owner was seen preempted.  @mustq: the head's variant, which
 * may drop must-queue around the confer.  Called at low SMT priority
 * (inside spin_begin), which it leaves for the confer.
 */
static bool yield_to_locked_owner(struct ppc_qspinlock *lock, u32 v, bool pv,
				  bool mustq)
{
	int owner;
	u32 yc;

	if (!pv || !G()->p.qspl.pv_yield_owner)
		goto relax;
	owner = owner_of(v);
	yc = yield_count_of(owner);
	if (!(yc & 1))
		goto relax; /* the owner is running */
	/* Normal priority for the bookkeeping and the hcall. */
	spin_end();
	seen_sleepy_owner(lock, v);
	smp_rmb(); /* the count before the word's re-check */
	if ((u32)atomic_read(&lock->val) == v) {
		bool allow = mustq && G()->p.qspl.pv_yield_allow_steal;

		if (allow)
			atomic_andnot((int)_Q_MUST_Q_VAL, &lock->val);
		lockevent_inc(sim_yield_owner_confer);
		yield_to_preempted(owner, yc);
		if (allow)
			atomic_or((int)_Q_MUST_Q_VAL, &lock->val);
		spin_begin();
		return true;
	}
	spin_begin();
	spin_cpu_relax();
	return true;
relax:
	spin_cpu_relax();
	return false;
}

/* The sleepy bookkeeping both spinning phases share. */
static void sleepy_check(struct ppc_qspinlock *lock, u32 v, bool *sleepy,
			 bool seen_preempted)
{
	struct lk_params *p = &G()->p;

	if (!p->qspl.pv_sleepy_lock)
		return;
	if (!*sleepy) {
		if (v & _Q_SLEEPY_VAL) {
			note_sleepy_time();
			*sleepy = true;
		} else if (recently_sleepy()) {
			*sleepy = true;
		}
	}
	if (p->qspl.pv_sleepy_lock_sticky && seen_preempted &&
	    !(v & _Q_SLEEPY_VAL))
		try_set_sleepy(lock, v);
}

static u32 budget_of(u32 spins, bool pv, bool sleepy)
{
	return spins * (pv && sleepy ? G()->p.qspl.pv_sleepy_lock_factor : 1);
}

/*
 * Sleep until the word changes in a way the spin loop would act on: the
 * lock freed, the owner changed, the owner's vCPU preempted, sleepy set,
 * or @iters no-op iterations done (each a read and a relax).  Returns the
 * value seen and how many iterations passed.
 */
struct wword {
	struct ppc_qspinlock *lock;
	struct ppc_qnode *node; /* the queue head's, or NULL */
	u32 v, first;
	bool pv, watch_sleepy;
};

static bool word_moved(struct wword *w)
{
	struct lk_params *p = &G()->p;
	struct ppc_qnode *nx;

	w->v = (u32)atomic_read(&w->lock->val);
	if (!(w->v & _Q_LOCKED_VAL) || w->v != w->first)
		return true;
	if (w->watch_sleepy && (w->v & _Q_SLEEPY_VAL))
		return true;
	if (!w->pv)
		return false;
	if (p->qspl.pv_yield_owner && (yield_count_of(owner_of(w->v)) & 1))
		return true;
	/* The head passes sleepy on to its next waiter each time round
	 * while the owner is preempted: wake for that too. */
	return w->node && p->qspl.pv_yield_sleepy_owner &&
	       (nx = READ_ONCE(w->node->next)) && !READ_ONCE(nx->sleepy) &&
	       vcpu_is_preempted(owner_of(w->v));
}

/* @node: the queue head's (its wake-ups include sleepy propagation), or
 * NULL; @done (or NULL): the iterations that passed. */
static u32 spin_on_word(struct ppc_qspinlock *lock, u32 v, bool pv,
			bool watch_sleepy, struct ppc_qnode *node, u32 iters,
			u32 *done)
{
	struct wword w = {lock, node, v, v, pv, watch_sleepy};
	u32 left;

	left = (u32)spin_until_cond_limit(word_moved(&w), iters);
	if (done)
		*done = iters - left;
	return w.v;
}

/* --- stealing --- */

/* The guest's NUMA node of a CPU: CPUs split evenly over the nodes. */
static unsigned int cpu_to_node(int cpu)
{
	struct ppc_guest *g = G();

	return (unsigned int)((uint64_t)cpu * g->p.numa_nodes / g->nr_cpus);
}

/*
 * How many steal iterations are allowed against the owner in @v: the
 * local budget, or the remote one when the owner is on another node.
 */
static u32 steal_limit(u32 v, bool pv, bool sleepy, bool *remote)
{
	struct lk_params *p = &G()->p;
	u32 limit = budget_of(p->qspl.steal_spins, pv, sleepy);

	*remote = false;
	/* The owner field of the word last read, even of a free lock (its
	 * owner field is then 0: CPU 0's node), as the kernel's steal_break
	 * does after a lost steal race. */
	if (p->numa_nodes > 1 &&
	    cpu_to_node(owner_of(v)) != cpu_to_node(smp_processor_id())) {
		u32 r = budget_of(p->qspl.remote_steal_spins, pv, sleepy);

		if (r < limit) {
			limit = r;
			*remote = true;
		}
	}
	return limit;
}

static bool steal_done(u32 v, u32 iters, bool pv, bool sleepy)
{
	bool remote;

	if (iters < steal_limit(v, pv, sleepy, &remote))
		return false;
	if (remote)
		lockevent_inc(sim_steal_break_remote);
	else
		lockevent_inc(sim_steal_break_local);
	return true;
}

static bool try_to_steal_lock(struct ppc_qspinlock *lock, bool pv)
{
	struct lk_params *p = &G()->p;
	bool sleepy = false, seen_preempted = false, remote;
	u32 iters = 0, v;

	if (!p->qspl.steal_spins)
		return false;
	/* Low SMT priority while spinning, normal for the steal itself. */
	spin_begin();
	v = (u32)atomic_read(&lock->val);
	for (;;) {
		bool preempted = false;

		if (v & _Q_MUST_Q_VAL)
			break;
		if (!(v & _Q_LOCKED_VAL)) {
			spin_end();
			if (trylock_steal(lock)) {
				lockevent_inc(sim_steal_success);
				return true;
			}
			/* lost the race: straight to the next read */
			spin_begin();
		} else {
			preempted = yield_to_locked_owner(lock, v, pv, false);
		}
		if (pv)
			sleepy_check(lock, v, &sleepy, seen_preempted);
		if (preempted) {
			seen_preempted = sleepy = true;
			if (!p->qspl.pv_spin_on_preempted_owner)
				iters++;
		} else {
			iters++;
		}
		if (steal_done(v, iters, pv, sleepy))
			break;
		if (!preempted && (v & _Q_LOCKED_VAL)) {
			/* Held by a running owner: spin until that changes. */
			u32 done, left = steal_limit(v, pv, sleepy, &remote) -
					 iters;

			v = spin_on_word(lock, v, pv, pv && !sleepy, NULL, left,
					 &done);
			iters += done;
			/* The read that saw the word move is the next
			 * iteration's (the kernel's loop reads it once). */
			if (done < left)
				continue;
			if (steal_done(v, iters, pv, sleepy))
				break;
		}
		v = (u32)atomic_read(&lock->val);
	}
	spin_end();
	return false;
}

/* --- queueing --- */

static struct ppc_qnode *get_tail_qnode(struct ppc_qspinlock *lock, int cpu)
{
	struct ppc_qnodes *qn = cpu_qnodes(cpu);

	smp_acquire__after_ctrl_dep(); /* pairs with publish_tail_cpu */
	for (int i = 0; i < PPC_MAX_NODES; i++)
		if (READ_ONCE(qn->nodes[i].lock) == lock)
			return &qn->nodes[i];
	lk_violation("Q2: cpu %d's tail node for lock %#llx not found", cpu,
		     (unsigned long long)lk_addr_key(lock));
}

/*
 * Yield to a preempted predecessor (or the owner, if sleepy): the
 * sleepy-owner form of 6.7+.  Called at low SMT priority, which it leaves
 * for the confer.  Returns true when it saw a preempted vCPU, whether or
 * not it conferred (the hand-off may have come first).
 */
static bool yield_to_prev(struct ppc_qspinlock *lock, struct ppc_qnode *node,
			  int prev_cpu, bool pv)
{
	struct lk_params *p = &G()->p;
	u32 yc;

	if (!pv)
		goto relax;
	if (p->qspl.pv_yield_sleepy_owner &&
	    (READ_ONCE(node->sleepy) || vcpu_is_preempted(prev_cpu))) {
		u32 v = (u32)atomic_read(&lock->val);

		if (v & _Q_LOCKED_VAL) {
			struct ppc_qnode *next = READ_ONCE(node->next);

			/* Pass sleepy on only while the owner is preempted,
			 * so that the queue can stop being sleepy. */
			if (next && !READ_ONCE(next->sleepy) &&
			    vcpu_is_preempted(owner_of(v)))
				WRITE_ONCE(next->sleepy, 1);
			if (yield_to_locked_owner(lock, v, pv, false))
				return true;
		}
		WRITE_ONCE(node->sleepy, 0);
	}
	if (p->qspl.pv_yield_prev) {
		yc = yield_count_of(prev_cpu);
		if (yc & 1) {
			spin_end();
			note_sleepy_time();
			smp_rmb();
			if (!READ_ONCE(node->locked)) {
				lockevent_inc(sim_yield_prev_confer);
				yield_to_preempted(prev_cpu, yc);
				spin_begin();
				return true;
			}
			spin_begin();
			spin_cpu_relax();
			return true;
		}
	}
relax:
	spin_cpu_relax();
	return false;
}

/* The wait for the hand-off sleeps until there is something to do. */
struct wnode {
	struct ppc_qspinlock *lock;
	struct ppc_qnode *node;
	int prev_cpu;
	bool pv;
	bool locked; /* the last evaluation's read of node->locked */
};

static bool node_wakes(struct wnode *w)
{
	struct lk_params *p = &G()->p;

	w->locked = READ_ONCE(w->node->locked) != 0;
	if (w->locked)
		return true;
	if (!w->pv)
		return false;
	if (p->qspl.pv_yield_sleepy_owner &&
	    (READ_ONCE(w->node->sleepy) || vcpu_is_preempted(w->prev_cpu)))
		return true;
	return p->qspl.pv_yield_prev && (yield_count_of(w->prev_cpu) & 1);
}

static void queued_spin_lock_mcs_queue(struct ppc_qspinlock *lock, bool pv)
{
	struct lk_params *p = &G()->p;
	struct ppc_qnodes *qn = cpu_qnodes(smp_processor_id());
	struct ppc_qnode *node, *next;
	bool sleepy = false, mustq = false, seen_preempted = false;
	u32 tail, old, iters = 0, v;
	int idx;

	/* The count is guest memory the kernel reads and writes plainly:
	 * accesses (hits) like the rest of the node's (session 17; they
	 * were free). */
	idx = READ_ONCE(qn->count);
	if (idx >= PPC_MAX_NODES) {
		lockevent_inc(sim_queue_overflow);
		while (!trylock_steal(lock))
			cpu_relax();
		return;
	}
	lockevent_inc(sim_queue_enter);
	WRITE_ONCE(qn->count, idx + 1);
	barrier();
	node = &qn->nodes[idx];
	WRITE_ONCE(node->next, NULL);
	WRITE_ONCE(node->lock, lock);
	WRITE_ONCE(node->cpu, smp_processor_id());
	WRITE_ONCE(node->sleepy, 0);
	WRITE_ONCE(node->locked, 0);
	tail = tail_of(smp_processor_id());

	old = publish_tail_cpu(lock, tail);
	if (old & _Q_TAIL_CPU_MASK) {
		int prev_cpu = tail_cpu(old);
		struct ppc_qnode *prev = get_tail_qnode(lock, prev_cpu);
		struct wnode w = {lock, node, prev_cpu, pv, false};

		lk_point(tail_published);
		WRITE_ONCE(prev->next, node);
		spin_begin();
		for (;;) {
			/* The wake's read of locked is the loop's: no second
			 * read before acting on it, as in the kernel's loop. */
			spin_until_cond(node_wakes(&w));
			if (w.locked)
				break;
			if (yield_to_prev(lock, node, prev_cpu, pv))
				seen_preempted = true;
		}
		spin_end();
		smp_rmb(); /* the hand-off's acquire */
	}

again:
	spin_begin();
	v = (u32)atomic_read(&lock->val);
	for (;;) {
		bool preempted;

		if (!(v & _Q_LOCKED_VAL))
			break;
		if (pv)
			sleepy_check(lock, v, &sleepy, seen_preempted);
		/* Propagate sleepiness to the next waiter (6.7+). */
		if (pv && p->qspl.pv_yield_sleepy_owner) {
			struct ppc_qnode *nx = READ_ONCE(node->next);

			if (nx && !READ_ONCE(nx->sleepy) &&
			    vcpu_is_preempted(owner_of(v)))
				WRITE_ONCE(nx->sleepy, 1);
		}
		/* The kernel's head counts whether or not stealing is on
		 * (its maybe_stealers is constant: the fast path's trylock
		 * steals past the queue whatever qspl_steal_spins says). */
		preempted = yield_to_locked_owner(lock, v, pv, mustq);
		if (preempted) {
			seen_preempted = true;
			if (pv)
				sleepy = true;
			if (!p->qspl.pv_spin_on_preempted_owner)
				iters++;
		} else {
			iters++;
		}
		if (!mustq &&
		    iters >= budget_of(p->qspl.head_spins, pv, sleepy)) {
			mustq = true;
			atomic_or((int)_Q_MUST_Q_VAL, &lock->val);
			lockevent_inc(sim_mustq_set);
		}
		if (!preempted) {
			/* A running owner: sleep until the word moves, or
			 * until it is time to set must-queue. */
			u32 done, left = mustq ? 0xffffffffU
					       : budget_of(p->qspl.head_spins,
							   pv, sleepy) -
							 iters;

			v = spin_on_word(lock, v, pv, pv && !sleepy, node, left,
					 &done);
			iters += done;
			/* The read that saw the word move is the next
			 * iteration's (the kernel's loop reads it once). */
			if (done < left)
				continue;
			if (!mustq && iters >= budget_of(p->qspl.head_spins, pv,
							 sleepy)) {
				mustq = true;
				atomic_or((int)_Q_MUST_Q_VAL, &lock->val);
				lockevent_inc(sim_mustq_set);
			}
		}
		v = (u32)atomic_read(&lock->val);
	}

	spin_end();

	old = trylock_clean_tail(lock, tail);
	if (old & _Q_LOCKED_VAL) {
		/* A stealer got in between: keep waiting as head. */
		lockevent_inc(sim_head_retry_after_steal);
		goto again;
	}
	if ((old & _Q_TAIL_CPU_MASK) == tail)
		goto release; /* we were the last: the tail is cleared */

	next = READ_ONCE(node->next);
	if (!next) {
		spin_begin();
		next = smp_cond_load_relaxed(&node->next, VAL);
		spin_end();
	}
	WRITE_ONCE(next->locked, 1);
	lk_point(handed_off);
	if (pv && p->qspl.pv_prod_head) {
		int ncpu = READ_ONCE(next->cpu);

		if (vcpu_is_preempted(ncpu)) {
			lockevent_inc(sim_prod_head);
			prod_cpu(ncpu);
		}
	}
release:
	/* Clear lock before count, so a reuse cannot be matched (M14). */
	WRITE_ONCE(node->lock, NULL);
	barrier();
	WRITE_ONCE(qn->count, READ_ONCE(qn->count) - 1);
}

/* --- the lock operations --- */

static void ppc_init(void *p)
{
	struct ppc_qspinlock *lock = p;

	lock->val.counter = 0;
}

static bool ppc_trylock(void *p)
{
	return trylock_steal(p);
}

static void ppc_lock(void *p)
{
	struct ppc_qspinlock *lock = p;
	bool pv;

	if (likely(trylock_steal(lock)))
		return;
	pv = is_shared_processor();
	/* The slowpath spins at low SMT priority, inside its spin loops
	 * only (spin_begin/spin_end there). */
	if (!try_to_steal_lock(lock, pv))
		queued_spin_lock_mcs_queue(lock, pv);
}

static void ppc_unlock(void *p)
{
	struct ppc_qspinlock *lock = p;
	u32 v;

	if (MUTANT(ppc_unlock_word)) {
		/* A 32-bit store: the tail and must-queue go too. */
		atomic_set_release(&lock->val, 0);
		return;
	}
	/* (locked, owner, sleepy) <- 0; must-queue and tail stay. */
	if (MUTANT(ppc_unlock_relaxed))
		WRITE_ONCE(lock->locked, 0);
	else
		smp_store_release(&lock->locked, 0);
	v = (u32)lock->val.counter; /* host-side check, not a guest read */
	if (LK_CHECKS && (v & _Q_MUST_Q_VAL) && !(v & _Q_TAIL_CPU_MASK))
		lk_violation("Q1: must-queue left set with no queue (word "
			     "%#x)",
			     v);
}

#ifdef QSIM_MUTANT
#define PPC_CAT_(a, b, c) a##b##c
#define PPC_CAT(a, b, c)  PPC_CAT_(a, b, c)
#define PPC_OPS		  PPC_CAT(lk_mutant_, QSIM_MUTANT, _ops)
/* This build's entry of the catalogue, as constant expressions (see
 * pv_qspinlock.c). */
#define MUT_NAME_(id, name, mapping, memory, doc) QSIM_MUTANT == (id) ? #name:
#define MUT_DOC_(id, name, mapping, memory, doc)  QSIM_MUTANT == (id) ? (doc):
#define MUT_MEM_(id, name, mapping, memory, doc)  QSIM_MUTANT == (id) ? (memory):
#else
#define PPC_OPS lk_ppc_qspinlock_ops
#endif

static bool ppc_qnode_counts(void *globals, void **base, size_t *stride,
			     unsigned int *ncpus, int *max)
{
	struct ppc_guest *g = globals;

	*base = &g->qnodes[0].count;
	*stride = g->qnodes_stride;
	*ncpus = g->nr_cpus;
	*max = PPC_MAX_NODES;
	return true;
}

const struct lk_ops PPC_OPS = {
	.name = "ppc_qspinlock",
#ifdef QSIM_MUTANT
	.desc = "a mutant build of ppc_qspinlock",
	.mutant = LK_MUTANTS(MUT_NAME_) NULL,
	.mutant_desc = LK_MUTANTS(MUT_DOC_) NULL,
	.mutant_memory = LK_MUTANTS(MUT_MEM_) NULL,
#else
	.desc = "powerpc queued spinlock: owner in the word, stealing, "
		"must-queue, sleepy, confer to owner/predecessor (qspl_*)",
#endif
	.size = sizeof(struct ppc_qspinlock),
	.align = sizeof(u32),
	.init = ppc_init,
	.lock = ppc_lock,
	.unlock = ppc_unlock,
	.trylock = ppc_trylock,
	.global_size = ppc_guest_size,
	.global_init = ppc_guest_init,
	.word = LK_WORD_PPC,
	.qnode_counts = ppc_qnode_counts,
	.params = "qspl_*",
};

#endif

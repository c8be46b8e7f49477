/* SPDX-License-Identifier: MIT */
/*
 * The queued spinlock slowpath, as a template: one source, two builds.
 * qspinlock.c includes it with QS_PV 0 (native hooks are empty) and
 * pv_qspinlock.c with QS_PV 1 (the pv hooks of LOCK-FACTS.md section 2),
 * the way the kernel compiles its slowpath twice.  Before including,
 * define:
 *
 *   QS_SLOWPATH            the function's name (QS_LINKAGE: static or not)
 *   QS_PV                  0 or 1
 *   QS_TRYLOCK(lock)       the trylock used inside the slowpath
 *   qs_pv_init_node(n), qs_pv_wait_node(n, prev), qs_pv_kick_node(l, n),
 *   qs_pv_wait_head_or_lock(l, n)  the four hooks
 *
 * Steps (numbers as in LOCK-FACTS 1.4), with (tail, pending, locked):
 *
 *   S1  (0,1,0): let a pending->locked hand-over finish (_Q_PENDING_LOOPS)
 *   S3  (0,0,*) -> (0,1,*): become the pending waiter; wait for locked = 0;
 *       (*,1,0) -> (*,0,1) in one 16-bit store.  [native only]
 *   S4  take a per-CPU node (overflow beyond four: trylock spin)
 *   S5  one more trylock: the node line was cold
 *   S6  publish the tail: (p,*,*) -> (n,*,*)
 *   S7  link behind the old tail and wait to be handed the MCS lock
 *   S8  head: wait for (*,0,0) (pv: or take it in the hook)
 *   S9  claim: (n,0,0) -> (0,0,1) if still the tail, else set locked and
 *       hand the MCS lock to the successor
 */

/* The mutant builds of pv_qspinlock.c (locks/mutants.h) define MUTANT. */
#ifndef MUTANT
#define MUTANT(name) 0
#endif

#ifndef QS_LINKAGE
#define QS_LINKAGE
#endif

QS_LINKAGE void QS_SLOWPATH(struct qspinlock *lock, u32 val)
{
	struct qnode *base, *me, *pred, *succ;
	u32 mytail, prev_tail;
	int slot;

	if (QS_PV)
		goto pv_queue;

	/* S1: a waiter is mid hand-over from pending to locked. */
	if (val == _Q_PENDING_VAL) {
		u32 n = qs_guest()->p.pending_loops;

		if (!n || !spin_until_cond_timeout(
				  (val = (u32)atomic_read(&lock->val)) !=
					  _Q_PENDING_VAL,
				  n))
			val = (u32)atomic_read(&lock->val);
	}

	/* S2: anyone queued or pending already: join the queue. */
	if (val & ~_Q_LOCKED_MASK)
		goto queue;

	/* S3: (0,0,*) -> (0,1,*) */
	val = (u32)atomic_fetch_or_acquire(_Q_PENDING_VAL, &lock->val);
	if (val & ~_Q_LOCKED_MASK) {
		/* Lost the race; undo our pending bit unless it was not ours. */
		if (!(val & _Q_PENDING_MASK))
			WRITE_ONCE(lock->pending, 0);
		goto queue;
	}
	/* (0,1,1) -> (0,1,0): the owner's release store; acquire. */
	if (val & _Q_LOCKED_MASK)
		smp_cond_load_acquire(&lock->locked, !VAL);
	/* (*,1,0) -> (*,0,1) */
	WRITE_ONCE(lock->locked_pending, (u16)_Q_LOCKED_VAL);
	lockevent_inc(lock_pending);
	return;

queue:
	lockevent_inc(lock_slowpath);
pv_queue:
	/* S4: a node for this nesting level. */
	base = qs_cpu_nodes(smp_processor_id());
	/* The count is guest memory the kernel reads and writes plainly:
	 * accesses like the node's (session 17; they were free). */
	slot = READ_ONCE(base->count);
	WRITE_ONCE(base->count, slot + 1);
	mytail = qs_encode_tail(smp_processor_id(), slot);
	if (slot == 1)
		lockevent_inc(lock_use_node2);
	else if (slot == 2)
		lockevent_inc(lock_use_node3);
	else if (slot == 3)
		lockevent_inc(lock_use_node4);
	/* Each nesting level takes one node: more than 4 + overflow is a leak. */
	if (unlikely(slot > _Q_MAX_NODES))
		lk_violation("cpu %d has %d queue nodes in use",
			     smp_processor_id(), slot + 1);
	if (unlikely(slot >= _Q_MAX_NODES)) {
		/* No node left: spin on trylock, unfairly but safely. */
		lockevent_inc(lock_no_node);
		while (!QS_TRYLOCK(lock))
			cpu_relax();
		goto release;
	}
	me = base + slot;
	/* The count must be visible before the node is reused. */
	barrier();
	WRITE_ONCE(me->locked, 0);
	WRITE_ONCE(me->next, NULL);
	qs_pv_init_node(me);

	/* S5 */
	if (QS_TRYLOCK(lock))
		goto release;

	/* S6: node contents before the tail that publishes it. */
	if (!MUTANT(no_wmb_publish))
		smp_wmb();
	prev_tail =
		(u32)xchg_relaxed(&lock->tail, (u16)(mytail >> _Q_TAIL_OFFSET))
		<< _Q_TAIL_OFFSET;
	succ = NULL;

	/* S7: someone is ahead of us. */
	if (prev_tail & _Q_TAIL_MASK) {
		lk_point(tail_published);
		pred = qs_decode_tail(prev_tail);
		WRITE_ONCE(pred->next, me);
		qs_pv_wait_node(me, pred);
		/* Pairs with the release hand-off at S9 of our predecessor. */
		smp_cond_load_acquire(&me->locked, VAL);
		succ = READ_ONCE(me->next);
		if (succ)
			prefetchw(succ);
	}

	/* S8: we are the head. */
	val = qs_pv_wait_head_or_lock(lock, me);
	if (!val)
		val = (u32)atomic_cond_read_acquire(
			&lock->val, !((u32)VAL & _Q_LOCKED_PENDING_MASK));

	/* S9: (n,0,0) -> (0,0,1) when nobody queued behind us. */
	if ((val & _Q_TAIL_MASK) == mytail) {
		int expect = (int)val;

		if (atomic_try_cmpxchg_relaxed(&lock->val, &expect,
					       (int)_Q_LOCKED_VAL))
			goto release;
	}
	/* (*,*,0) -> (*,*,1): a successor exists or is linking in. */
	WRITE_ONCE(lock->locked, (u8)_Q_LOCKED_VAL);
	if (!succ)
		succ = smp_cond_load_relaxed(&me->next, VAL);
	smp_store_release(&succ->locked, 1);
	lk_point(handed_off);
	qs_pv_kick_node(lock, succ);

release:
	slot = READ_ONCE(base->count) - 1;
	WRITE_ONCE(base->count, slot);
	if (unlikely(slot < 0))
		lk_violation("cpu %d released a queue node it did not take",
			     smp_processor_id());
}

// SPDX-License-Identifier: MIT
/*
 * qsim fixture tree: kernel/locking/qspinlock.c.
 *
 * A small MCS-queued spinlock written for qsim's tests, with the
 * interfaces the kernel's file uses: per-CPU queue nodes, lock events,
 * the arch's pv_wait/pv_kick, and a second pass over this same file,
 * after qspinlock_paravirt.h, that builds the paravirt slowpath.  The
 * algorithm is the fixture's own:
 *
 * - a waiter first re-reads the word up to _Q_PENDING_LOOPS times while
 *   only a holder is there, and takes the lock if it comes free;
 * - otherwise it swaps its node into the tail, links behind its
 *   predecessor and waits for the predecessor to hand over;
 * - the head of the queue waits for the holder byte to clear, takes the
 *   lock (clearing the tail if it is still the last), and hands the
 *   queue to its successor.
 */
#ifndef FIXTURE_PV_PASS

#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/hardirq.h>
#include <asm/byteorder.h>
#include <asm/qspinlock.h>

#include "qspinlock_stat.h"
#include "mcs_spinlock.h"

/* Contexts a CPU may be queued from at once: task, softirq, irq, nmi. */
#define FX_NODES 4

/* A queue node, with room for the paravirt pass's per-node state. */
struct qnode {
	struct mcs_spinlock mcs;
#ifdef CONFIG_PARAVIRT_SPINLOCKS
	long pv_room[2];
#endif
};

static DEFINE_PER_CPU_ALIGNED(struct qnode, qnodes[FX_NODES]);

static inline u32 fx_encode_tail(int cpu, int idx)
{
	return ((u32)(cpu + 1) * FX_NODES + (u32)idx) << _Q_TAIL_OFFSET;
}

static inline struct mcs_spinlock *fx_decode_tail(u32 word)
{
	u32 t = word >> _Q_TAIL_OFFSET;
	int cpu = (int)(t / FX_NODES) - 1;

	return &per_cpu_ptr(&qnodes[t % FX_NODES], cpu)->mcs;
}

/* The native pass's paravirt hooks do nothing. */
static __always_inline void fx_native_init_node(struct mcs_spinlock *node)
{
}

static __always_inline void fx_native_wait_node(struct mcs_spinlock *node,
						struct mcs_spinlock *prev)
{
}

static __always_inline void fx_native_kick_node(struct qspinlock *lock,
						struct mcs_spinlock *node)
{
}

static __always_inline void fx_native_wait_head(struct qspinlock *lock,
						struct mcs_spinlock *node)
{
}

#define fx_pv_init_node fx_native_init_node
#define fx_pv_wait_node fx_native_wait_node
#define fx_pv_kick_node fx_native_kick_node
#define fx_pv_wait_head fx_native_wait_head

#if defined(CONFIG_PARAVIRT_SPINLOCKS) /* the native pass's name */
#define queued_spin_lock_slowpath native_queued_spin_lock_slowpath /* 1st */
#endif

#endif /* FIXTURE_PV_PASS */

void queued_spin_lock_slowpath(struct qspinlock *lk, u32 val)
{
	struct qspinlock *lock = lk;
	struct mcs_spinlock *node, *prev, *next;
	u32 tail, word;
	int idx, loops;

	lockevent_inc(fx_slowpath);

	/* A holder alone may be about to leave: watch it a little. */
	for (loops = 0; loops < _Q_PENDING_LOOPS && val == _Q_LOCKED_VAL;
	     loops++) {
		cpu_relax();
		val = (u32)atomic_read(&lock->val);
	}
	if (queued_spin_trylock(lock)) {
		lockevent_inc(fx_early);
		return;
	}

	node = this_cpu_ptr(&qnodes[0].mcs);
	idx = node->count++;
	if (unlikely(idx >= FX_NODES)) {
		/* Out of nodes: spin on the word without queueing. */
		lockevent_inc(fx_nested);
		while (!queued_spin_trylock(lock))
			cpu_relax();
		goto out;
	}
	node = &this_cpu_ptr(&qnodes[idx])->mcs;
	barrier();
	node->locked = 0;
	node->next = NULL;
	fx_pv_init_node(node);

	/* The node must be whole before anyone can find it by the tail. */
	smp_wmb();
	tail = fx_encode_tail(smp_processor_id(), idx);
	word = (u32)xchg_relaxed(&lock->tail, (u16)(tail >> _Q_TAIL_OFFSET))
	       << _Q_TAIL_OFFSET;
	if (word) {
		prev = fx_decode_tail(word);
		WRITE_ONCE(prev->next, node);
		lockevent_inc(fx_queued);
		fx_pv_wait_node(node, prev);
		arch_mcs_spin_lock_contended(&node->locked);
	}

	/* Head of the queue: nobody but us may take the lock now. */
	fx_pv_wait_head(lock, node);
	for (;;) {
		word = (u32)atomic_cond_read_acquire(&lock->val,
						     !(VAL & _Q_LOCKED_MASK));
		if ((word & _Q_TAIL_MASK) == tail) {
			/* Last in the queue: leave it empty. */
			if (atomic_try_cmpxchg_relaxed(&lock->val, (int *)&word,
						       _Q_LOCKED_VAL))
				goto out;
		} else if (atomic_try_cmpxchg_relaxed(&lock->val, (int *)&word,
						      word | _Q_LOCKED_VAL)) {
			break;
		}
	}

	/* Someone is behind: wait for its link, then hand over. */
	next = smp_cond_load_relaxed(&node->next, VAL != NULL);
	arch_mcs_spin_unlock_contended(&next->locked);
	fx_pv_kick_node(lock, next);
out:
	__this_cpu_dec(qnodes[0].mcs.count);
}
EXPORT_SYMBOL(queued_spin_lock_slowpath);

/* The second pass: the same slowpath with the paravirt hooks. */
#if defined(CONFIG_PARAVIRT_SPINLOCKS) && !defined(FIXTURE_PV_PASS)
#define FIXTURE_PV_PASS

#undef fx_pv_init_node
#undef fx_pv_wait_node
#undef fx_pv_kick_node
#undef fx_pv_wait_head
#define fx_pv_init_node pv_init_node
#define fx_pv_wait_node pv_wait_node
#define fx_pv_kick_node pv_kick_node
#define fx_pv_wait_head pv_wait_head

#undef queued_spin_lock_slowpath
#define queued_spin_lock_slowpath __pv_queued_spin_lock_slowpath

#include "qspinlock_paravirt.h"
#include "qspinlock.c"

#endif

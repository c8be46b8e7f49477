/* SPDX-License-Identifier: MIT */
/*
 * The generic queued spinlock: lock word, queue nodes, guest globals.
 * Written from LOCK-FACTS.md sections 1-2; docs/locks.md describes it.
 *
 * Lock word (32 bits, the layout for fewer than 16K CPUs), written as a
 * (tail, pending, locked) triple in comments, traces and assertions:
 *
 *   bits  0- 7  locked byte   1 = held; 3 (_Q_SLOW_VAL) = held, and a
 *                             halted waiter is in the pv hash table
 *   bits  8-15  pending byte  natively: the second contender; pv: the
 *                             queue head is actively spinning
 *   bits 16-17  tail index    which of the tail CPU's four nodes
 *   bits 18-31  tail cpu + 1  0 = no queue
 *
 * The byte and half-word views follow the host's byte order (qsim runs on
 * little-endian hosts, where locked is byte 0 and tail half-word 1).
 */
#ifndef QSIM_LOCKS_QSPINLOCK_H
#define QSIM_LOCKS_QSPINLOCK_H

#include <glib.h>

#include "qsim_kernel.h"
#include "locks/lock.h"

struct qspinlock {
	union {
		atomic_t val;
		struct {
			u8 locked;
			u8 pending;
		};
		struct {
			u16 locked_pending;
			u16 tail;
		};
	};
};

#define _Q_LOCKED_VAL	       1U
#define _Q_LOCKED_MASK	       0x000000ffU
#define _Q_PENDING_VAL	       0x00000100U
#define _Q_PENDING_MASK	       0x0000ff00U
#define _Q_LOCKED_PENDING_MASK 0x0000ffffU
#define _Q_TAIL_IDX_OFFSET     16
#define _Q_TAIL_IDX_MASK       0x00030000U
#define _Q_TAIL_CPU_OFFSET     18
#define _Q_TAIL_OFFSET	       16
#define _Q_TAIL_MASK	       0xffff0000U
#define _Q_SLOW_VAL	       3U
#define _Q_MAX_NODES	       4
#define QS_MAX_CPUS	       (1U << 14)

/* pv node states (the lower-case spellings of the older kernels). */
enum vcpu_state {
	vcpu_running = 0,
	vcpu_halted = 1,
	vcpu_hashed = 2,
};

/*
 * One queue node: the MCS part, then the pv part (unused natively).  32
 * bytes, so a CPU's four nodes fill one 128-byte line.
 */
struct qnode {
	struct qnode *next;
	int locked; /* set to 1 by the predecessor: you are the head */
	int count;  /* node 0 only: nodes this CPU has in use */
	int cpu;
	u8 state; /* enum vcpu_state */
	u8 pad[11];
};

struct pv_hash_entry {
	struct qspinlock *lock;
	struct qnode *node;
};

/*
 * A partition's guest-kernel state for the qspinlock family: tunables,
 * the per-CPU queue nodes, the pv hash table, and what the pv glue keeps
 * per CPU.  Laid out in guest memory by qs_guest_init().
 */
struct qs_guest {
	struct lk_params p;
	unsigned int nr_cpus;
	struct qnode *qnodes; /* nr_cpus * _Q_MAX_NODES, line aligned */
	struct pv_hash_entry *pv_lock_hash;
	unsigned int pv_lock_hash_bits;
	u16 *holders; /* splpar-directed: lock holder cpu + 1, by lock hash */
	unsigned int holder_bits;
	u64 *kick_time;	  /* per CPU: when the last pv_kick aimed at it */
	void **wait_lock; /* per CPU: the lock it is queued on (pv) */
	/* Host-side check state (not guest memory): hash entries per lock,
	 * keyed by lock address, looked up only (never iterated). */
	GHashTable *hash_count;
	bool lost_kick; /* the late_lost_kick mutant's one lost kick */
};

size_t qs_guest_size(const struct lk_params *p, unsigned int nr_cpus);
void qs_guest_init(void *globals, const struct lk_params *p,
		   unsigned int nr_cpus);

static inline struct qs_guest *qs_guest(void)
{
	return lk_guest();
}

static inline u32 qs_encode_tail(int cpu, int idx)
{
	return ((u32)(cpu + 1) << _Q_TAIL_CPU_OFFSET) |
	       ((u32)idx << _Q_TAIL_IDX_OFFSET);
}

static inline struct qnode *qs_decode_tail(u32 tail)
{
	int cpu = (int)(tail >> _Q_TAIL_CPU_OFFSET) - 1;
	int idx = (int)((tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET);

	return &qs_guest()->qnodes[cpu * _Q_MAX_NODES + idx];
}

static inline struct qnode *qs_cpu_nodes(int cpu)
{
	return &qs_guest()->qnodes[cpu * _Q_MAX_NODES];
}

/* Shared by both builds (qspinlock.c). */
bool qs_trylock(struct qspinlock *lock);
void qs_lock_init(void *lock);
void native_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);
void native_queued_spin_unlock(struct qspinlock *lock);
void qs_guest_fini(void *globals);
/* lk_ops.pv_hash and lk_ops.qnode_counts of the qspinlock family. */
bool qs_pv_hash(void *globals, void **base, size_t *entries);
bool qs_qnode_counts(void *globals, void **base, size_t *stride,
		     unsigned int *ncpus, int *max);

#ifndef QSIM_MUTANT
/* The pv build (pv_qspinlock.c); mutant builds keep theirs static. */
void __pv_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);
struct qspinlock **pv_hash(struct qspinlock *lock, struct qnode *node);
struct qnode *pv_unhash(struct qspinlock *lock);
#endif

#endif

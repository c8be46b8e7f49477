/* SPDX-License-Identifier: MIT */
/*
 * Observers: a lock family's invariants checked from outside the lock
 * code, by reading guest memory at each write that changes what they
 * watch (docs/torture.md, "Observers").  Nothing in the lock's own files
 * takes part, so they guard a kernel tree's files as they guard qsim's.
 *
 * The qspinlock observer knows the generic queued spinlock's word
 * (locked byte in bits 0-7, pending in 8-15, tail in 16-31) and its pv
 * hash table (entries of a lock pointer then a node pointer), which are
 * the same in qsim's clean-room lock and in every kernel since the pv
 * lock came (4.2).  Its invariants:
 *
 *   O1 (lock word)  the locked byte is 0, 1 or _Q_SLOW_VAL (3);
 *   O2 (P1, one entry)  a lock never has two pv hash entries;
 *   O3 (P1, hash first)  a waiter that sets _Q_SLOW_VAL on a lock it
 *       does not hold has hashed it already (the holder itself may set
 *       it first and hash after: the lazy hash of pv_kick_node);
 *   O4 (P1, unhash first)  a lock whose locked byte goes from
 *       _Q_SLOW_VAL to 0 has no hash entry left: the unlocker took it
 *       out before releasing.
 *
 * Who holds a lock is read from the word itself: the cpu whose write
 * last turned the locked byte from 0 to non-zero.
 *
 * The powerpc observer knows the powerpc queued spinlock's word of 6.2
 * on (and qsim's clean-room ppc_qspinlock's): the locked bit 0, the
 * owner's cpu in bits 1-14, sleepy in 15, must-queue in 16, the tail in
 * 17-31.  Its invariants:
 *
 *   O5 (Q1)  must-queue is never set while no one is queued (tail 0);
 *   O6  the owner, sleepy and must-queue-free low half is non-zero only
 *       while the locked bit is set (an unlock clears the half at once,
 *       and only a holder's word carries an owner or sleepy).
 *
 * And, for either family, where the lock says where they are
 * (lk_ops.qnode_counts):
 *
 *   O7  each cpu's count of queue nodes in use stays from 0 to the
 *       nodes it has (a node taken and never counted, or given back
 *       twice, breaks it at once).
 */
#ifndef QSIM_SIM_OBSERVE_H
#define QSIM_SIM_OBSERVE_H

#include <stddef.h>

struct sim;
struct obs;

enum obs_kind {
	OBS_QSPINLOCK, /* the generic queued spinlock's word, pv hash */
	OBS_PPC,       /* the powerpc queued spinlock's word */
};

/* An observer of one partition's locks of @kind; @who names the
 * partition in reports.  All observers of a sim share its write hook. */
struct obs *obs_new(struct sim *s, enum obs_kind kind, const char *who);
/* Watch the lock word at @lock (the workload's lock @idx). */
void obs_watch_lock(struct obs *o, void *lock, unsigned int idx);
/* Watch each of @ncpus cpus' queue-node count: an int at @base + cpu *
 * @stride, from 0 to @max (O7). */
void obs_watch_qnode_counts(struct obs *o, void *base, size_t stride,
			    unsigned int ncpus, int max);
/* Watch the pv hash table: @entries entries of two pointers at @base. */
void obs_watch_pv_hash(struct obs *o, void *base, size_t entries);
void obs_free(struct obs *o);

#endif

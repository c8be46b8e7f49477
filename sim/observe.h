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
 */
#ifndef QSIM_SIM_OBSERVE_H
#define QSIM_SIM_OBSERVE_H

#include <stddef.h>

struct sim;
struct obs;

/* An observer of one partition's qspinlock-family locks; @who names the
 * partition in reports.  All observers of a sim share its write hook. */
struct obs *obs_qspinlock_new(struct sim *s, const char *who);
/* Watch the lock word at @lock (the workload's lock @idx). */
void obs_watch_lock(struct obs *o, void *lock, unsigned int idx);
/* Watch the pv hash table: @entries entries of two pointers at @base. */
void obs_watch_pv_hash(struct obs *o, void *base, size_t entries);
void obs_free(struct obs *o);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Lock-event counters: one list, used for the counter enum, the names in
 * the store and the summary, and the derived averages.  The first group
 * are the kernel's names (lock_events_list.h in Linux), counted where the
 * kernel counts them; the sim_ group is qsim's own.
 *
 * LOCK_EVENT(name, kind): kind is COUNT, or AVG_OVER(divisor) for a sum
 * that is reported as an average over another counter.
 */
#ifndef QSIM_LOCKS_LOCK_EVENTS_H
#define QSIM_LOCKS_LOCK_EVENTS_H

#define LOCK_EVENTS(X)                      \
	X(lock_pending, COUNT)              \
	X(lock_slowpath, COUNT)             \
	X(lock_use_node2, COUNT)            \
	X(lock_use_node3, COUNT)            \
	X(lock_use_node4, COUNT)            \
	X(lock_no_node, COUNT)              \
	X(pv_hash_hops, AVG_KICK_UNLOCK)    \
	X(pv_kick_unlock, COUNT)            \
	X(pv_kick_wake, COUNT)              \
	X(pv_latency_kick, AVG_KICK_UNLOCK) \
	X(pv_latency_wake, AVG_KICK_WAKE)   \
	X(pv_lock_stealing, COUNT)          \
	X(pv_spurious_wakeup, COUNT)        \
	X(pv_wait_again, COUNT)             \
	X(pv_wait_early, COUNT)             \
	X(pv_wait_head, COUNT)              \
	X(pv_wait_node, COUNT)              \
	X(sim_pv_hash, COUNT)               \
	X(sim_pv_unhash_self, COUNT)        \
	X(sim_pv_wait_slept, COUNT)         \
	X(sim_steal_success, COUNT)         \
	X(sim_steal_break_local, COUNT)     \
	X(sim_steal_break_remote, COUNT)    \
	X(sim_queue_enter, COUNT)           \
	X(sim_queue_overflow, COUNT)        \
	X(sim_yield_owner_confer, COUNT)    \
	X(sim_yield_prev_confer, COUNT)     \
	X(sim_prod_head, COUNT)             \
	X(sim_mustq_set, COUNT)             \
	X(sim_sleepy_set, COUNT)            \
	X(sim_head_retry_after_steal, COUNT)

/*
 * After the named counters, slots for a kernel tree's counters that qsim
 * has no name for (a counter a newer tree adds, or the fixture tree's):
 * they take the tree's own names (lk_tree_event_slot).
 */
#define LOCKEVENT_TREE_SLOTS 16

enum lock_event {
#define X(name, kind) LOCKEVENT_##name,
	LOCK_EVENTS(X)
#undef X
		LOCKEVENT_NAMED,
	LOCKEVENT_NUM = LOCKEVENT_NAMED + LOCKEVENT_TREE_SLOTS,
};

extern const char *const lock_event_names[LOCKEVENT_NAMED];
/* The name of counter @e: a named one, a tree's, or NULL (a free slot). */
const char *lk_event_name(int e);
/* The counter for a kernel tree's counter @name that qsim has no name
 * for: the same slot for the same name in every run of the process;
 * -1 when the slots are used up. */
int lk_tree_event_slot(const char *name);

#endif

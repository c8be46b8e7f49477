/* SPDX-License-Identifier: MIT */
/*
 * qsim fixture tree: the lock events the fixture's files count, one
 * LOCK_EVENT(name) each.  Included more than once, with different
 * definitions of LOCK_EVENT: no include guard.
 */
LOCK_EVENT(fx_slowpath)	   /* a lock took the slow path */
LOCK_EVENT(fx_early)	   /* ... and got it before queueing */
LOCK_EVENT(fx_queued)	   /* ... queued behind another waiter */
LOCK_EVENT(fx_nested)	   /* ... had no free queue node */
LOCK_EVENT(fx_halt_node)   /* a queued waiter halted */
LOCK_EVENT(fx_halt_head)   /* the queue head marked the lock and halted */
LOCK_EVENT(fx_kick_node)   /* a hand-over kicked a halted waiter */
LOCK_EVENT(fx_kick_unlock) /* an unlock kicked the halted head */

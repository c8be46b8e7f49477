/* SPDX-License-Identifier: MIT */
/*
 * Mutants: deliberately broken builds of pv_qspinlock.c (and, from
 * LK_PPC_MUTANT_FIRST on, ppc_qspinlock.c), each a known bug class
 * (LOCK-FACTS.md section 10): most show on a sequentially consistent
 * machine, the barrier ones only on a weakly ordered one.  The build
 * compiles both files once more per entry with QSIM_MUTANT set to its id
 * (the other file compiles to nothing);
 * `qsim torture --mutant NAME` must catch every one (docs/torture.md).
 *
 * X(id, name, mapping that exposes it or NULL for any, memory model it
 *   needs or NULL for sc, what it breaks)
 *
 * The barrier mutants (memory "power") drop an ordering the lock needs on
 * a weakly ordered machine: under sc they behave as the correct lock, and
 * torture must never report them there (docs/memory-model.md).
 */
#ifndef QSIM_LOCKS_MUTANTS_H
#define QSIM_LOCKS_MUTANTS_H

#define LK_MUTANTS(X)                                                         \
	X(1, head_halted, NULL, NULL,                                         \
	  "the head stores HALTED instead of HASHED before pv_wait, so a "    \
	  "late kick_node hashes the lock a second time (M3)")                \
	X(2, no_recheck, "kvm", NULL,                                         \
	  "pv_wait sleeps without re-checking *ptr == val (M6)")              \
	X(3, no_latch, "splpar-cede", NULL,                                   \
	  "the hypervisor keeps no prod latch / pending kick, so a kick "     \
	  "before the sleep is lost (M6)")                                    \
	X(4, kick_after_release, NULL, NULL,                                  \
	  "unlock releases first, then unhashes and kicks through the lock "  \
	  "(M5)")                                                             \
	X(5, kick_before_unhash, "kvm", NULL,                                 \
	  "unlock kicks the head before unhashing it (M2 family)")            \
	X(6, steal_ignores_pending, NULL, NULL,                               \
	  "the hybrid trylock ignores pending, so stealers starve the head "  \
	  "(M9)")                                                             \
	X(7, no_lazy_hash, "kvm", NULL,                                       \
	  "kick_node marks the successor HASHED but never hashes it: nobody " \
	  "kicks it (missing kick)")                                          \
	X(8, slow_before_hash, NULL, NULL,                                    \
	  "the head sets _Q_SLOW_VAL before hashing itself (M2)")             \
	X(9, hash_every_round, NULL, NULL,                                    \
	  "the head hashes itself on every round, not once per acquisition")  \
	X(10, late_lost_kick, "kvm", NULL,                                    \
	  "one slow unlock, the first after 40 ms, forgets its kick: a "      \
	  "wake-up lost late in a run, caught only by the drain")             \
	X(11, no_mb_wait_node, NULL, "power",                                 \
	  "pv_wait_node stores HALTED without the full barrier before it "    \
	  "re-reads node->locked: waiter and kicker both miss (M1)")          \
	X(12, no_mb_kick_node, NULL, "power",                                 \
	  "pv_kick_node drops the barrier before its relaxed state CAS, so "  \
	  "the hand-off may be seen after the state is read (M1)")            \
	X(13, no_rmb_unlock, NULL, "power",                                   \
	  "the unlock slowpath drops the smp_rmb after its failed cmpxchg: "  \
	  "the hash lookup may read before the head hashed (M2)")             \
	X(14, relaxed_slow_xchg, NULL, "power",                               \
	  "the head sets _Q_SLOW_VAL with a relaxed xchg: its hash entry "    \
	  "may be seen after the slow value")                                 \
	X(15, no_wmb_publish, NULL, "power",                                  \
	  "the queue node's initialisation is not ordered before the tail "   \
	  "that publishes it (M10)")                                          \
	X(16, relaxed_unlock, NULL, "power",                                  \
	  "unlock clears the locked byte without release ordering: the "      \
	  "critical section's stores may be seen after it")                   \
	X(17, relaxed_lock, NULL, "power",                                    \
	  "the fast path takes the lock with a relaxed cmpxchg: the "         \
	  "critical section's loads may pass it")                             \
	X(20, ppc_mustq_kept, NULL, NULL,                                     \
	  "ppc_qspinlock: trylock_clean_tail keeps must-queue set (M16)")     \
	X(21, ppc_unlock_word, NULL, NULL,                                    \
	  "ppc_qspinlock: unlock stores 0 to the whole word, dropping the "   \
	  "tail and must-queue (not the 16-bit store)")                       \
	X(22, ppc_unlock_relaxed, NULL, "power",                              \
	  "ppc_qspinlock: unlock stores the locked byte without release "     \
	  "ordering (the lwsync before it dropped)")                          \
	X(23, ppc_lock_relaxed, NULL, "power",                                \
	  "ppc_qspinlock: the trylock's acquire ordering dropped: the "       \
	  "critical section's loads may pass the lock")

/* Ids from here on build ppc_qspinlock.c; those below, pv_qspinlock.c. */
#define LK_PPC_MUTANT_FIRST 20

#define MUT_NONE			  0
#define X(id, name, mapping, memory, doc) MUT_##name = id,
enum lk_mutant_id { LK_MUTANTS(X) };
#undef X

#endif

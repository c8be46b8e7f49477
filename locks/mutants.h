/* SPDX-License-Identifier: MIT */
/*
 * Mutants: deliberately broken builds of pv_qspinlock.c (and, from
 * LK_PPC_MUTANT_FIRST on, ppc_qspinlock.c), each a known bug class
 * (LOCK-FACTS.md section 10) that a sequentially consistent simulator can
 * exhibit.  The build compiles both files once more per entry with
 * QSIM_MUTANT set to its id (the other file compiles to nothing);
 * `qsim torture --mutant NAME` must catch every one (docs/torture.md).
 *
 * X(id, name, mapping that exposes it or NULL for any, what it breaks)
 */
#ifndef QSIM_LOCKS_MUTANTS_H
#define QSIM_LOCKS_MUTANTS_H

#define LK_MUTANTS(X)                                                         \
	X(1, head_halted, NULL,                                               \
	  "the head stores HALTED instead of HASHED before pv_wait, so a "    \
	  "late kick_node hashes the lock a second time (M3)")                \
	X(2, no_recheck, "kvm",                                               \
	  "pv_wait sleeps without re-checking *ptr == val (M6)")              \
	X(3, no_latch, "splpar-cede",                                         \
	  "the hypervisor keeps no prod latch / pending kick, so a kick "     \
	  "before the sleep is lost (M6)")                                    \
	X(4, kick_after_release, NULL,                                        \
	  "unlock releases first, then unhashes and kicks through the lock "  \
	  "(M5)")                                                             \
	X(5, kick_before_unhash, "kvm",                                       \
	  "unlock kicks the head before unhashing it (M2 family)")            \
	X(6, steal_ignores_pending, NULL,                                     \
	  "the hybrid trylock ignores pending, so stealers starve the head "  \
	  "(M9)")                                                             \
	X(7, no_lazy_hash, "kvm",                                             \
	  "kick_node marks the successor HASHED but never hashes it: nobody " \
	  "kicks it (missing kick)")                                          \
	X(8, slow_before_hash, NULL,                                          \
	  "the head sets _Q_SLOW_VAL before hashing itself (M2)")             \
	X(9, hash_every_round, NULL,                                          \
	  "the head hashes itself on every round, not once per acquisition")  \
	X(10, late_lost_kick, "kvm",                                          \
	  "one slow unlock, the first after 40 ms, forgets its kick: a "      \
	  "wake-up lost late in a run, caught only by the drain")             \
	X(20, ppc_mustq_kept, NULL,                                           \
	  "ppc_qspinlock: trylock_clean_tail keeps must-queue set (M16)")     \
	X(21, ppc_unlock_word, NULL,                                          \
	  "ppc_qspinlock: unlock stores 0 to the whole word, dropping the "   \
	  "tail and must-queue (not the 16-bit store)")

/* Ids from here on build ppc_qspinlock.c; those below, pv_qspinlock.c. */
#define LK_PPC_MUTANT_FIRST 20

#define MUT_NONE		  0
#define X(id, name, mapping, doc) MUT_##name = id,
enum lk_mutant_id { LK_MUTANTS(X) };
#undef X

#endif

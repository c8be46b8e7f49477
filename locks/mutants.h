/* SPDX-License-Identifier: MIT */
/*
 * Mutants: deliberately broken builds of pv_qspinlock.c, each a known bug
 * class of pv wait/kick logic (LOCK-FACTS.md section 10) that a
 * sequentially consistent simulator can exhibit.  The build compiles
 * pv_qspinlock.c once more per entry with QSIM_MUTANT set to its id;
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
	  "the head hashes itself on every round, not once per acquisition")

#define MUT_NONE		  0
#define X(id, name, mapping, doc) MUT_##name = id,
enum lk_mutant_id { LK_MUTANTS(X) };
#undef X

#endif

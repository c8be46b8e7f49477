# SPDX-License-Identifier: MIT
#
# Checks from outside guard a tree's files (label ktree): copies of
# tests/kernel-fixture with one bug each are built, and torture must
# catch each through the engine-side observers (sim/observe.h), since no
# check lives in the fixture's files:
#   - the generic pv head sets _Q_SLOW_VAL before it hashes itself (the
#     kernel's historical M2 bug, in the fixture's own code): O3;
#   - the powerpc unlock flips the locked bit instead of clearing the
#     owner half, leaving an owner in an unlocked word: O6;
#   - the powerpc slowpath never counts the node it takes: O7;
#   - the generic pv unlock's release is relaxed, so under POWER's memory
#     model the critical section's stores may become visible after the
#     unlock: the next holder's stale-data check (the kernel-tree
#     accessors go through the weak memory model, docs/memory-model.md).
# The first one's failure is replayed as a user fixing the tree would:
# the failing scenario names the buggy build's kernel files, the buggy
# binary brings the violation back without a word, and the fixture's own
# binary (@CLEAN) warns that its files differ and runs clean.
#   cmake -DSRC=<qsim source> -DWORK=<scratch dir> -DCLEAN=<fixture's qsim>
#         -P ktree-mutant.cmake
set(base ${WORK})

# The digest `qsim version` prints for the binary @bin.
function(files_sha256 bin var)
	execute_process(COMMAND ${bin} version OUTPUT_VARIABLE v
		RESULT_VARIABLE rc)
	string(REGEX MATCH "kernel files sha256 ([0-9a-f]+)" m "${v}")
	if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_1)
		message(FATAL_ERROR "${bin} version: no kernel files:\n${v}")
	endif()
	set(${var} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

# In mutant()'s scope: its first failing seed, replayed by both binaries.
macro(replay_elsewhere)
	file(GLOB failed ${WORK}/torture-out/seed-*.ini)
	list(GET failed 0 failed)
	files_sha256(${WORK}/build/qsim buggy)
	files_sha256(${CLEAN} clean)
	file(READ ${failed} scenario)
	if(buggy STREQUAL clean OR
	   NOT scenario MATCHES "kernel_files_sha256 = ${buggy}")
		message(FATAL_ERROR "${failed} does not name the buggy files "
			"${buggy} (the fixture's: ${clean}):\n${scenario}")
	endif()
	execute_process(COMMAND ${WORK}/build/qsim run ${failed} --no-store
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
	if(NOT rc EQUAL 2 OR err MATCHES "warning")
		message(FATAL_ERROR "the buggy binary's replay of ${failed}: "
			"exit ${rc} (2 wanted), no warning wanted:\n${err}")
	endif()
	execute_process(COMMAND ${CLEAN} run ${failed} --no-store
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
	if(NOT rc EQUAL 0 OR NOT err MATCHES "warning: .*other kernel files")
		message(FATAL_ERROR "the fixture binary's replay of ${failed}: "
			"exit ${rc} (0 wanted) and a warning wanted:\n${err}")
	endif()
	message(STATUS "${name} replayed: the buggy build fails it, the "
		"fixture's warns and runs clean")
endmacro()

# @expect: what torture's output must show; @memory: machine.memory.
function(mutant name file right wrong lock expect memory)
	set(WORK ${base}/${name})
	include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ktree-copy.cmake)
	set(f ${tree}/${file})
	file(READ ${f} text)
	string(REPLACE "${right}" "${wrong}" mutated "${text}")
	if(mutated STREQUAL text)
		message(FATAL_ERROR "${name}: ${file} changed: update "
			"tests/ktree-mutant.cmake's mutation to match it")
	endif()
	file(WRITE ${f} "${mutated}")
	ktree_configure()
	execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build -j2
			--target qsim
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "${name}: building:\n${out}")
	endif()
	execute_process(COMMAND ${WORK}/build/qsim torture --lock ${lock}
			--seeds 200 --jobs 2 --memory ${memory}
			--out ${WORK}/torture-out --db ${WORK}/torture.db
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
	if(NOT rc EQUAL 2 OR NOT out MATCHES "${expect}")
		message(FATAL_ERROR "${name}: torture did not catch it by "
			"${expect} (exit ${rc}):\n${out}")
	endif()
	string(REGEX MATCH "VIOLATION[^\n]*" line "${out}")
	message(STATUS "${name} caught as it should be: ${line}")
	if(name STREQUAL "slow-before-hash")
		replay_elsewhere()
	endif()
	file(REMOVE_RECURSE ${WORK})
endfunction()

mutant(slow-before-hash kernel/locking/qspinlock_paravirt.h
"fx_hash_add(lock, pn);
		if (cmpxchg(&lock->locked, _Q_LOCKED_VAL, FX_SLOW_VAL) !=
		    _Q_LOCKED_VAL) {
			/* Released meanwhile: our entry is ours to remove. */
			fx_hash_take(lock);
			continue;
		}"
"if (cmpxchg(&lock->locked, _Q_LOCKED_VAL, FX_SLOW_VAL) !=
		    _Q_LOCKED_VAL)
			continue;
		fx_hash_add(lock, pn);"
	kernel_pv_qspinlock "observer \\(partition 0\\): O3" sc)

mutant(unlock-flips-bit arch/powerpc/include/asm/qspinlock.h
	"andis.	%0,%0,0xffff"
	"xori	%0,%0,1"
	kernel_ppc_qspinlock "observer \\(partition 0\\): O6" sc)

# The powerpc slowpath never counts the queue node it takes, so its
# release takes the count below zero: O7, which reads each CPU's count
# where the library says it is (qk_info.qnode_count).
mutant(count-never-taken arch/powerpc/lib/qspinlock.c
	"idx = qn->count++;"
	"idx = qn->count;"
	kernel_ppc_qspinlock "observer \\(partition 0\\): O7" sc)

# The pv unlock's cmpxchg loses its release ordering: caught under the
# power memory model by the holders' check of the data their lock
# protects (seed 1 of 100 when it was added), never under sc.
mutant(relaxed-pv-unlock kernel/locking/qspinlock_paravirt.h
	"u8 was = cmpxchg_release(&lock->locked, _Q_LOCKED_VAL, 0);"
	"u8 was = cmpxchg_relaxed(&lock->locked, _Q_LOCKED_VAL, 0);"
	kernel_pv_qspinlock "VIOLATION \\(stale-data\\)" power)

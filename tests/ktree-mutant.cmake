# SPDX-License-Identifier: MIT
#
# Checks from outside guard a tree's files (label ktree): a copy of
# tests/kernel-fixture whose pv queue head sets _Q_SLOW_VAL before it
# hashes itself (the kernel's historical M2 bug, in the fixture's own
# code) is built, and torture must catch it through the engine-side
# observer (sim/observe.h, O3): no check in the fixture's files does.
#   cmake -DSRC=<qsim source> -DWORK=<scratch dir> -P ktree-mutant.cmake
include(${CMAKE_CURRENT_LIST_DIR}/ktree-copy.cmake)
set(f ${tree}/kernel/locking/qspinlock_paravirt.h)
file(READ ${f} text)
set(right "fx_hash_add(lock, pn);
		if (cmpxchg(&lock->locked, _Q_LOCKED_VAL, FX_SLOW_VAL) !=
		    _Q_LOCKED_VAL) {
			/* Released meanwhile: our entry is ours to remove. */
			fx_hash_take(lock);
			continue;
		}")
set(wrong "if (cmpxchg(&lock->locked, _Q_LOCKED_VAL, FX_SLOW_VAL) !=
		    _Q_LOCKED_VAL)
			continue;
		fx_hash_add(lock, pn);")
string(REPLACE "${right}" "${wrong}" mutated "${text}")
if(mutated STREQUAL text)
	message(FATAL_ERROR "the fixture's pv_wait_head changed: update "
		"tests/ktree-mutant.cmake's mutation to match it")
endif()
file(WRITE ${f} "${mutated}")
ktree_configure()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build -j2
		--target qsim
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "building against the mutant tree:\n${out}")
endif()
execute_process(COMMAND ${WORK}/build/qsim torture
		--lock kernel_pv_qspinlock --seeds 200 --jobs 2
		--out ${WORK}/torture-out
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 2 OR NOT out MATCHES "observer \\(partition 0\\): O3")
	message(FATAL_ERROR "torture did not catch the mutant fixture by "
		"the observer (exit ${rc}):\n${out}")
endif()
string(REGEX MATCH "VIOLATION[^\n]*" line "${out}")
message(STATUS "caught as it should be: ${line}")
file(REMOVE_RECURSE ${WORK})

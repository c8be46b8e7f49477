# SPDX-License-Identifier: MIT
#
# Shared by the negative kernel-tree tests (ktree-badasm.cmake,
# ktree-mutant.cmake): a fresh copy of tests/kernel-fixture at ${tree},
# and a qsim build configured against it at ${WORK}/build.
set(tree ${WORK}/tree)
file(REMOVE_RECURSE ${WORK})
file(COPY ${SRC}/tests/kernel-fixture/ DESTINATION ${tree})

macro(ktree_configure)
	execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build
			-DQSIM_KERNEL_TREE=${tree} -DCMAKE_BUILD_TYPE=Release
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "configuring against ${tree}:\n${out}")
	endif()
endmacro()

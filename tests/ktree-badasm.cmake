# SPDX-License-Identifier: MIT
#
# The negative fixture (label ktree): a copy of tests/kernel-fixture with
# one asm template qsim-kasm has no model for must fail its build, with
# a message naming the template and the file.
#   cmake -DSRC=<qsim source> -DWORK=<scratch dir> -P ktree-badasm.cmake
set(tree ${WORK}/tree)
file(REMOVE_RECURSE ${WORK})
file(COPY ${SRC}/tests/kernel-fixture/ DESTINATION ${tree})
file(APPEND ${tree}/arch/powerpc/lib/qspinlock.c
	"\n/* unmodelled: a cache-block touch */\n"
	"void fx_touch(const void *p)\n{\n"
	"\tasm volatile(\"dcbt 0,%0\" : : \"r\"(p) : \"memory\");\n}\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build
		-DQSIM_KERNEL_TREE=${tree} -DCMAKE_BUILD_TYPE=Release
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "configuring against the bad tree failed early:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build
		--target qsim_klib_ppc
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
	message(FATAL_ERROR "the tree with an unmodelled asm template built")
endif()
if(NOT out MATCHES "qspinlock\\.c:[0-9]+: error: .*dcbt")
	message(FATAL_ERROR "the build failed, but not naming the template "
		"and the file:\n${out}")
endif()
string(REGEX MATCH "[^\n]*error: [^\n]*dcbt[^\n]*" line "${out}")
message(STATUS "failed as it should: ${line}")
file(REMOVE_RECURSE ${WORK})

# SPDX-License-Identifier: MIT
#
# The negative fixture (label ktree): a copy of tests/kernel-fixture with
# one asm template qsim-kasm has no model for must fail its build, with
# a message naming the template and the file.
#   cmake -DSRC=<qsim source> -DWORK=<scratch dir> -P ktree-badasm.cmake
include(${CMAKE_CURRENT_LIST_DIR}/ktree-copy.cmake)
file(APPEND ${tree}/arch/powerpc/lib/qspinlock.c
	"\n/* unmodelled: a cache-block touch */\n"
	"void fx_touch(const void *p)\n{\n"
	"\tasm volatile(\"dcbt 0,%0\" : : \"r\"(p) : \"memory\");\n}\n")
ktree_configure()
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

# SPDX-License-Identifier: MIT
#
# Kernel-tree mode (docs/kernel-tree.md): with -DQSIM_KERNEL_TREE=DIR,
# build the kernel's own lock files from DIR, unmodified, into libraries
# qsim embeds as the lock types kernel_qspinlock, kernel_pv_qspinlock
# (the generic files) and kernel_ppc_qspinlock (the powerpc file, 6.2 on).
#
# Per kind of lock file:
#   1. preprocess glue/<kind>.c, which includes the tree's file, against
#      qsim's arch include tree only (-nostdinc; the tree's own headers
#      through forwarders generated here), recording what it read;
#   2. check it read only files the manifest lists for the version;
#   3. qsim-kasm: translate inline asm to the machine model (fail-closed)
#      and decide the cond-loads;
#   4. compile a shared library; blobs.S embeds it in qsim.
# Sets QSIM_KTREE_SOURCES (for qsim_locks) and QSIM_KTREE_DEFS.

set(QSIM_KTREE_SOURCES "")
set(QSIM_KTREE_DEFS "")
if(NOT QSIM_KERNEL_TREE)
	return()
endif()

# The path goes into C strings, compiler flags and CMake lists.
if(QSIM_KERNEL_TREE MATCHES "[;\"\\\n$]")
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${QSIM_KERNEL_TREE}: the path "
		"has a ';', '\"', '\\', '$' or a newline, which the build "
		"cannot pass on; use a path without them (a symlink to the "
		"tree will do)")
endif()
get_filename_component(kt "${QSIM_KERNEL_TREE}" ABSOLUTE)
set(kdir ${CMAKE_SOURCE_DIR}/locks/kernel)
set(kbin ${CMAKE_BINARY_DIR}/ktree)

# --- the tree and its version ---
if(NOT IS_DIRECTORY "${kt}")
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt}: no such folder")
endif()
if(NOT EXISTS "${kt}/Makefile")
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt}: no Makefile there, so "
		"not a kernel tree (a sparse tree needs the files "
		"locks/kernel/manifest.txt lists, and the top Makefile)")
endif()
file(STRINGS "${kt}/Makefile" mk LIMIT_COUNT 12
	REGEX "^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) *=")
foreach(l ${mk})
	string(REGEX MATCH "^([A-Z]+) *= *(.*)$" _ "${l}")
	set(KV_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
if(NOT KV_VERSION MATCHES "^[0-9]+$" OR NOT KV_PATCHLEVEL MATCHES "^[0-9]+$")
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt}: its Makefile gives no "
		"VERSION and PATCHLEVEL (found '${KV_VERSION}' and "
		"'${KV_PATCHLEVEL}')")
endif()
set(kver "${KV_VERSION}.${KV_PATCHLEVEL}")
if(NOT KV_SUBLEVEL MATCHES "^[0-9]+$")
	set(KV_SUBLEVEL 0)
endif()
set(kfull "${kver}.${KV_SUBLEVEL}${KV_EXTRAVERSION}")
if(kver VERSION_LESS 5.10)
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt}: found Linux ${kfull}; "
		"qsim's kernel-tree mode supports 5.10 and later "
		"(locks/kernel/manifest.txt)")
endif()

# --- the manifest: the files of each kind for this version ---
file(STRINGS ${kdir}/manifest.txt manifest REGEX "^[a-z]")
# The tree's version picks the manifest's files: a checkout of another
# release in the same tree configures again at the next build.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
	${kdir}/manifest.txt "${kt}/Makefile")
set(kinds "")
foreach(l ${manifest})
	string(REGEX MATCH "^([a-z]+) +([0-9.]+) +([^ ]+) +(.+)$" ok "${l}")
	if(NOT ok)
		message(FATAL_ERROR "locks/kernel/manifest.txt: bad line '${l}'")
	endif()
	set(kind ${CMAKE_MATCH_1})
	if(kver VERSION_LESS ${CMAKE_MATCH_2})
		continue()
	endif()
	list(APPEND kinds ${kind})
	list(APPEND files_${kind} ${CMAKE_MATCH_3})
	list(APPEND how_${kind} "${CMAKE_MATCH_4}")
endforeach()
list(REMOVE_DUPLICATES kinds)

# A kind whose files are all missing is not in this tree (the powerpc
# file before 6.2 is excluded by the manifest; a sparse tree may hold one
# kind only); one partly there is an error.
set(built "")
foreach(kind ${kinds})
	set(missing "")
	set(present 0)
	foreach(f ${files_${kind}})
		if(f STREQUAL "Makefile")
			continue()
		endif()
		if(EXISTS "${kt}/${f}")
			math(EXPR present "${present} + 1")
		else()
			list(APPEND missing ${f})
		endif()
	endforeach()
	if(present EQUAL 0)
		message(STATUS "kernel tree ${kfull}: no ${kind} lock files")
		continue()
	endif()
	if(missing)
		string(REPLACE ";" ", " m "${missing}")
		message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt} (Linux ${kfull}): "
			"the ${kind} lock files are incomplete: missing ${m} "
			"(locks/kernel/manifest.txt lists what ${kver} needs)")
	endif()
	list(APPEND built ${kind})
endforeach()
if(NOT built)
	message(FATAL_ERROR "QSIM_KERNEL_TREE=${kt} (Linux ${kfull}): none of "
		"the lock files locks/kernel/manifest.txt lists are there")
endif()
message(STATUS "kernel tree ${kt}: Linux ${kfull}, building ${built}")

# --- the compiler's own headers, the only ones besides ours ---
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=include
	OUTPUT_VARIABLE cc_include OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_DIRECTORY "${cc_include}")
	execute_process(COMMAND ${CMAKE_C_COMPILER} -print-resource-dir
		OUTPUT_VARIABLE cc_res OUTPUT_STRIP_TRAILING_WHITESPACE)
	set(cc_include "${cc_res}/include")
endif()

if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
	set(tsan_params -mllvm -tsan-distinguish-volatile=1
		-mllvm -tsan-instrument-func-entry-exit=0)
else()
	set(tsan_params --param=tsan-distinguish-volatile=1
		--param=tsan-instrument-func-entry-exit=0)
endif()

set(blobs "")
set(all_files "")
foreach(kind ${built})
	set(fwd ${kbin}/fwd-${kind})
	file(REMOVE_RECURSE ${fwd})
	set(compiled "")
	set(deps "")
	set(quote_dirs "")
	list(LENGTH files_${kind} n)
	math(EXPR last "${n} - 1")
	foreach(i RANGE ${last})
		list(GET files_${kind} ${i} f)
		list(GET how_${kind} ${i} how)
		list(APPEND deps ${kt}/${f})
		list(APPEND all_files ${f})
		if(how STREQUAL "compiled")
			set(compiled ${kt}/${f})
			get_filename_component(d ${kt}/${f} DIRECTORY)
			list(APPEND quote_dirs -iquote ${d})
		elseif(how MATCHES "^<(.+)>$")
			file(WRITE ${fwd}/${CMAKE_MATCH_1}
				"/* generated: the tree's own ${f} */\n"
				"#include \"${kt}/${f}\"\n")
		endif()
	endforeach()
	set(pp ${kbin}/${kind}.i)
	set(dep ${kbin}/${kind}.d)
	set(out ${kbin}/${kind}.k.c)
	string(REPLACE ";" "," allowed "${files_${kind}}")
	add_custom_command(OUTPUT ${out}
		COMMAND ${CMAKE_C_COMPILER} -E -std=gnu11 -nostdinc -ffreestanding
			-isystem ${cc_include} -I${fwd} -I${kdir}/include -I${kdir}
			${quote_dirs} -D__KERNEL__ "-DQK_TREE_FILE=\"${compiled}\""
			-MD -MF ${dep} -o ${pp} ${kdir}/glue/${kind}.c
		COMMAND ${CMAKE_COMMAND} -DDEP=${dep} -DTREE=${kt}
			"-DALLOWED=${allowed}" -DKIND=${kind} -DVERSION=${kfull}
			-P ${kdir}/check-reads.cmake
		COMMAND qsim_kasm ${pp} ${out}
		DEPENDS ${deps} ${kdir}/glue/${kind}.c ${kdir}/glue/common.h
			${kdir}/include/qsim/kernel.h ${kdir}/kapi.h
			${kdir}/include/asm/qspinlock.h ${kdir}/check-reads.cmake
			qsim_kasm
		COMMENT "Kernel tree: ${kind} lock files of Linux ${kfull}"
		VERBATIM)
	add_library(qsim_klib_${kind} MODULE ${out})
	set_target_properties(qsim_klib_${kind} PROPERTIES PREFIX "" SUFFIX ".so"
		LIBRARY_OUTPUT_DIRECTORY ${kbin} C_VISIBILITY_PRESET hidden)
	set(so ${kbin}/qsim_klib_${kind}.so)
	# Foreign code: its warnings are not ours to fix.
	# The compiler's thread-sanitizer instrumentation, with qsim's hooks
	# (glue/common.h), makes plain accesses simulated ones.
	target_compile_options(qsim_klib_${kind} PRIVATE -w
		-fno-strict-aliasing -fno-common -fsanitize=thread
		${tsan_params})
	string(TOUPPER ${kind} K)
	list(APPEND QSIM_KTREE_DEFS QSIM_KTREE_${K}=1)
	string(APPEND blobs
		"\t.section .rodata\n\t.balign 64\n"
		"\t.globl qsim_klib_${kind}\nqsim_klib_${kind}:\n"
		"\t.incbin \"${so}\"\n"
		"\t.globl qsim_klib_${kind}_end\nqsim_klib_${kind}_end:\n")
	list(APPEND blob_deps ${so})
endforeach()
list(REMOVE_DUPLICATES all_files)
string(APPEND blobs "\t.section .note.GNU-stack,\"\",@progbits\n")
file(WRITE ${kbin}/blobs.S.new "${blobs}")
configure_file(${kbin}/blobs.S.new ${kbin}/blobs.S COPYONLY)

# The tree's identity, taken at every build (a patch changes it).
string(REPLACE ";" "," idfiles "${all_files}")
add_custom_target(qsim_ktree_identity ALL
	COMMAND ${CMAKE_COMMAND} -DTREE=${kt} -DVERSION=${kfull}
		"-DFILES=${idfiles}" -DOUT=${kbin}/identity.c
		-P ${kdir}/identity.cmake
	BYPRODUCTS ${kbin}/identity.c
	COMMENT "Kernel tree: identity"
	VERBATIM)

set_source_files_properties(${kbin}/blobs.S PROPERTIES
	OBJECT_DEPENDS "${blob_deps}")
set(QSIM_KTREE_SOURCES ${kbin}/blobs.S ${kbin}/identity.c
	${kdir}/ktree.c)
set(QSIM_KTREE_TARGETS "")
foreach(kind ${built})
	list(APPEND QSIM_KTREE_TARGETS qsim_klib_${kind})
endforeach()
list(APPEND QSIM_KTREE_TARGETS qsim_ktree_identity)

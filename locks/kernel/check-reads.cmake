# SPDX-License-Identifier: MIT
# Kernel-tree mode: the preprocessor read only what the manifest lists.
#   cmake -DDEP=x.d -DTREE=dir -DALLOWED=f1,f2,... -DKIND=k -DVERSION=v -P
file(READ ${DEP} d)
string(REPLACE "\\\n" " " d "${d}")
string(REGEX REPLACE "^[^:]*: *" "" d "${d}")
string(REGEX REPLACE "[ \t\n]+" ";" d "${d}")
string(REPLACE "," ";" allowed "${ALLOWED}")
foreach(f ${d})
	if(NOT f)
		continue()
	endif()
	get_filename_component(f "${f}" ABSOLUTE)
	string(FIND "${f}" "${TREE}/" at)
	if(NOT at EQUAL 0)
		continue()
	endif()
	file(RELATIVE_PATH rel "${TREE}" "${f}")
	list(FIND allowed "${rel}" i)
	if(i LESS 0)
		message(FATAL_ERROR "kernel tree ${TREE} (Linux ${VERSION}): "
			"building the ${KIND} lock files read ${rel}, which "
			"locks/kernel/manifest.txt does not list for this "
			"version; qsim's arch must provide what it is for")
	endif()
endforeach()

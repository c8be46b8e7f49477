# Writes OUT with QSIM_VERSION: the project version and, from a git
# checkout, `git describe --dirty --always --tags` of the source (so runs
# before and after a change can be told apart).  Run at every build; the
# file is rewritten only when the text changes.
execute_process(COMMAND git describe --dirty --always --tags
	WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE d
	RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc EQUAL 0 AND NOT d STREQUAL "")
	set(v "${BASE}-g${d}")
else()
	set(v "${BASE}")
endif()
set(text "#define QSIM_VERSION \"${v}\"\n")
if(EXISTS "${OUT}")
	file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
	file(WRITE "${OUT}" "${text}")
endif()

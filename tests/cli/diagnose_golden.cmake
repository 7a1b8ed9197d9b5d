# Golden test runner for tilescope-cli (cmake -P): runs CLI with ARGS ('|'-separated) in WORKDIR,
# optionally feeding INPUT on stdin, and compares "exit: N", stdout and stderr with GOLDEN.
# TILESCOPE_UPDATE_GOLDEN=1 in the environment rewrites GOLDEN instead (review the diff).
string(REPLACE "|" ";" arguments "${ARGS}")
set(input_option)
if(DEFINED INPUT)
  set(input_option INPUT_FILE "${INPUT}")
endif()
execute_process(COMMAND "${CLI}" ${arguments} WORKING_DIRECTORY "${WORKDIR}" ${input_option}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(actual "exit: ${status}\n--- stdout\n${out}--- stderr\n${err}")
if("$ENV{TILESCOPE_UPDATE_GOLDEN}")
  file(WRITE "${GOLDEN}" "${actual}")
  message(STATUS "updated ${GOLDEN}")
  return()
endif()
if(NOT EXISTS "${GOLDEN}")
  message(FATAL_ERROR "no golden file ${GOLDEN}; run with TILESCOPE_UPDATE_GOLDEN=1 to create it")
endif()
file(READ "${GOLDEN}" expected)
if(NOT actual STREQUAL expected)
  file(WRITE "${ACTUAL}" "${actual}")
  message(FATAL_ERROR "output differs from ${GOLDEN}\nactual output written to ${ACTUAL}:\n${actual}")
endif()

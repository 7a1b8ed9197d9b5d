# The one golden runner of tests/cli: runs one tilescope-cli case and compares its stdout, stderr
# and exit code (and, with OUT_FILE, the file it wrote) with the golden file. Called by ctest:
#   cmake -DCLI=... -DCASE_ARGS=a;b -DGOLDEN=... -DWORKDIR=... [-DEXPECTED_RC=N] [-DOUT_FILE=...]
#         [-DINPUT=file (stdin)] [-DLAYOUT=command|exit_first] -P run_golden.cmake
# LAYOUT (how the golden file is laid out; both kept so that no golden changes):
#   command     (default, golden/)  "$ tilescope-cli ARGS", stdout, "--- stderr", stderr, "--- exit N"
#   exit_first  (diagnose_golden/, check_model_golden/)  "exit: N", "--- stdout", stdout, "--- stderr", stderr
#
# To regenerate after an intended change: TILESCOPE_UPDATE_GOLDEN=1 ctest -L cli, then review
# `git diff tests/cli` line by line against KERNELS.md before committing.
if(DEFINED OUT_FILE)
  file(REMOVE "${WORKDIR}/${OUT_FILE}")
endif()
set(input_option)
if(DEFINED INPUT)
  set(input_option INPUT_FILE "${INPUT}")
endif()
execute_process(COMMAND "${CLI}" ${CASE_ARGS}
                WORKING_DIRECTORY "${WORKDIR}" ${input_option}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(LAYOUT STREQUAL "exit_first")
  set(actual "exit: ${rc}\n--- stdout\n${out}--- stderr\n${err}")
elseif(NOT DEFINED LAYOUT OR LAYOUT STREQUAL "command")
  string(REPLACE ";" " " command_line "${CASE_ARGS}")
  set(actual "$ tilescope-cli ${command_line}\n${out}--- stderr\n${err}--- exit ${rc}\n")
else()
  message(FATAL_ERROR "unknown LAYOUT '${LAYOUT}' (command or exit_first)")
endif()
if(DEFINED OUT_FILE)
  if(EXISTS "${WORKDIR}/${OUT_FILE}")
    file(READ "${WORKDIR}/${OUT_FILE}" written)
  else()
    set(written "(not written)\n")
  endif()
  string(APPEND actual "--- ${OUT_FILE}\n${written}")
endif()

if(DEFINED EXPECTED_RC AND NOT rc STREQUAL EXPECTED_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECTED_RC}\n${actual}")
endif()
if("$ENV{TILESCOPE_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE "${GOLDEN}" "${actual}")
  message(STATUS "rewrote ${GOLDEN}")
  return()
endif()
if(NOT EXISTS "${GOLDEN}")
  message(FATAL_ERROR "no golden file ${GOLDEN}; run with TILESCOPE_UPDATE_GOLDEN=1 and review it\n${actual}")
endif()
file(READ "${GOLDEN}" expected)
if(NOT actual STREQUAL expected)
  file(WRITE "${GOLDEN}.actual" "${actual}")
  execute_process(COMMAND diff -u "${GOLDEN}" "${GOLDEN}.actual" OUTPUT_VARIABLE difference)
  file(REMOVE "${GOLDEN}.actual")
  message(FATAL_ERROR "output differs from ${GOLDEN}:\n${difference}")
endif()

# Runs `tilescope-cli calibrate --json` and checks the contract: exit 3 with exactly one line
# "no CUDA device: <reason>" on stderr and nothing on stdout when there is no GPU; with one, exit 0
# and a calibration document whose figures are measured (never a made-up number: a figure that
# could not be measured is null).
execute_process(COMMAND ${CLI} calibrate --json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  if(NOT out MATCHES "\"format\": \"tilescope-calibration\"" OR NOT out MATCHES "\"bandwidth_gbps\": [0-9]")
    message(FATAL_ERROR "calibrate exited 0 without a measured calibration:\n${out}\nstderr: ${err}")
  endif()
  message(STATUS "a GPU is present: calibrate measured\n${out}")
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/expect_no_gpu.cmake)

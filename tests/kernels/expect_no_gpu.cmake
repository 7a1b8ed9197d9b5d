# The no-GPU half of a GPU command's contract, shared by run_no_gpu.cmake and calibrate_no_gpu.cmake
# (include it after execute_process filled rc, out and err): exit 3 with exactly one line
# "no CUDA device: <reason>" on stderr and nothing on stdout.
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "expected exit 3 (no GPU), got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
string(STRIP "${err}" stripped)
string(FIND "${stripped}" "\n" newline)
if(NOT newline EQUAL -1 OR NOT stripped MATCHES "^no CUDA device: .+")
  message(FATAL_ERROR "expected one line 'no CUDA device: <reason>' on stderr, got:\n${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "expected nothing on stdout, got:\n${out}")
endif()
message(STATUS "${stripped}")

# Runs `tilescope-cli run` and checks the contract: exit 3 with exactly one line
# "no CUDA device: <reason>" on stderr when there is no GPU; exit 0 when there is one.
execute_process(COMMAND ${CLI} run -k awq_gemv -s M=1,N=256,K=256 --repeat 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(STATUS "a GPU is present: run succeeded")
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/expect_no_gpu.cmake)

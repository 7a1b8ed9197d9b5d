# awq_gemm: AWQ 4-bit GEMM (gemm, legacy_grid_y, prefill, and the stacks' dispatch autoawq / vllm). Its launch inputs are shared with awq_gemv.
tilescope_kernel_family(awq_gemm
  CLASS AwqGemmFamily
  PLANNER plan.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu
  DEVICE_TABLES awqGemmDeviceKernels
  INPUTS ../awq_common/awq_inputs.cpp
  INPUTS_FACTORY prepareAwqGemmInputs
  GPU_CHECK gemm M=16,N=4096,K=4096,group_size=128 autoawq M=4096,N=14336,K=4096,group_size=128
  TESTS tests/plan_awq_gemm_test.cpp tests/plan_awq_gemm_dispatch_test.cpp tests/diagnosis_awq_gemm_vllm_test.cpp
  KERNEL_TESTS tests/awq_gemm_dequantize_test.cpp tests/awq_gemm_fragment_test.cpp tests/awq_gemm_index_test.cpp tests/awq_gemm_reference_test.cpp)

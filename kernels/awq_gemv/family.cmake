# awq_gemv: AWQ 4-bit GEMV (gemv, gemv_fast). Its launch inputs are shared with awq_gemm.
tilescope_kernel_family(awq_gemv
  CLASS AwqGemvFamily
  PLANNER plan.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu
  DEVICE_TABLES awqGemvDeviceKernels
  INPUTS ../awq_common/awq_inputs.cpp
  INPUTS_FACTORY prepareAwqGemvInputs
  GPU_CHECK gemv M=1,N=4096,K=4096,group_size=128
  TESTS tests/plan_awq_gemv_test.cpp
  KERNEL_TESTS tests/awq_gemv_kernel_test.cpp)

# awq_gemv: AWQ 4-bit GEMV (gemv, gemv_fast). Its launch inputs are shared with awq_gemm.
tilescope_kernel_family(awq_gemv
  CLASS AwqGemvFamily
  PLANNER plan.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu
  DEVICE_TABLES awqGemvDeviceKernels
  INPUTS ../awq_common/awq_inputs.cpp
  INPUTS_FACTORY prepareAwqGemvInputs)

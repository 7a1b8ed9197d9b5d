# gemm_bucket: M-bucketed bf16 GEMM (oproj).
tilescope_kernel_family(gemm_bucket
  CLASS GemmBucketFamily
  PLANNER plan.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu
  DEVICE_TABLES gemmBucketDeviceKernels
  INPUTS inputs.cpp
  INPUTS_FACTORY prepareGemmBucketInputs
  GPU_CHECK oproj M=64,N=7168,K=2048
  TESTS tests/plan_gemm_bucket_test.cpp
  KERNEL_TESTS tests/gemm_bucket_index_test.cpp tests/gemm_bucket_reference_test.cpp)

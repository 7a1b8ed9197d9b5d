# attention: FlashAttention-style forward (fa2 with split-KV and its combine, sm120_tile_search), fp16 and bf16.
tilescope_kernel_family(attention
  CLASS AttentionFamily
  PLANNER plan.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu kernel_bf16.cu split_kv.cu split_kv_bf16.cu
  DEVICE_TABLES attentionDeviceKernels attentionBf16DeviceKernels attentionSplitKvDeviceKernels attentionSplitKvBf16DeviceKernels
  INPUTS inputs.cpp
  INPUTS_FACTORY prepareAttentionInputs)

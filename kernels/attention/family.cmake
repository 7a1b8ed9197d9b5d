# attention: FlashAttention-style forward (fa2 with split-KV and its combine, sm120_tile_search), fp16 and bf16.
tilescope_kernel_family(attention
  CLASS AttentionFamily
  PLANNER plan.cpp backward.cpp
  REFERENCE reference.cpp
  DEVICE kernel.cu kernel_bf16.cu split_kv.cu split_kv_bf16.cu
  DEVICE_TABLES attentionDeviceKernels attentionBf16DeviceKernels attentionSplitKvDeviceKernels attentionSplitKvBf16DeviceKernels
  INPUTS inputs.cpp
  INPUTS_FACTORY prepareAttentionInputs
  GPU_CHECK fa2 batch=1,seqlen_q=256,seqlen_k=256,heads=4,head_dim=128,head_dim_v=128
  TESTS tests/plan_attention_test.cpp tests/plan_fa2_bwd_test.cpp tests/diagnosis_fa2_bwd_test.cpp tests/split_kv_views_test.cpp
  KERNEL_TESTS tests/attention_swizzle_test.cpp tests/attention_index_test.cpp tests/attention_reference_test.cpp)

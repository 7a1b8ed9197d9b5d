# sdpa: PyTorch scaled_dot_product_attention's backend filters (sdp_utils.cpp); models which backend takes a shape, no device code.
tilescope_kernel_family(sdpa
  CLASS SdpaFamily
  PLANNER plan.cpp
  TESTS tests/plan_sdpa_test.cpp tests/diagnosis_sdpa_test.cpp)

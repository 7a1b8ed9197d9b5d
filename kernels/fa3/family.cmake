# fa3: FlashAttention-3's forward checks (hopper/flash_api.cpp, flash-attention v2.8.3 tree); no device code.
tilescope_kernel_family(fa3
  CLASS Fa3Family
  PLANNER plan.cpp
  TESTS tests/plan_fa3_test.cpp)

# xformers: memory_efficient_attention's cutlass operators (v0.0.28 checks, grid); models which shapes they take, no device code.
tilescope_kernel_family(xformers
  CLASS XformersFamily
  PLANNER plan.cpp
  TESTS tests/plan_xformers_test.cpp tests/diagnosis_xformers_test.cpp)

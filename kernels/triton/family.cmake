# triton: a Triton matmul-style kernel by its autotuner config; models launches only, no device code.
tilescope_kernel_family(triton
  CLASS TritonFamily
  PLANNER plan.cpp
  TESTS tests/plan_triton_test.cpp)

# custom: any kernel's launch from its figures; models launches only, no device code.
tilescope_kernel_family(custom
  CLASS CustomFamily
  PLANNER plan.cpp
  TESTS tests/plan_custom_test.cpp)

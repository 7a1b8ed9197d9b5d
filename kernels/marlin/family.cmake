# marlin: vLLM's GPTQ/AWQ-Marlin layer checks (marlin_utils.py); models which layers it takes, no device code.
tilescope_kernel_family(marlin
  CLASS MarlinFamily
  PLANNER plan.cpp
  TESTS tests/plan_marlin_test.cpp)

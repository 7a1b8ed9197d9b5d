# flashinfer: FlashInfer's prefill and decode dispatch rules (v0.1.6); models which shapes it takes, no device code.
tilescope_kernel_family(flashinfer
  CLASS FlashInferFamily
  PLANNER plan.cpp
  TESTS tests/plan_flashinfer_test.cpp tests/diagnosis_flashinfer_test.cpp)

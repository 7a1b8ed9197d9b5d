# Golden tests for `tilescope-cli check-model` (the helper function lives in diagnose_tests.cmake).
set(models resources/models)
tilescope_cli_golden(check_model_gemv_rtx5090
  "check-model|tests/data/casperhansen__mistral-7b-instruct-awq-gemv|--device|rtx-5090|--batch|1,8,64" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_mistral_json
  "check-model|${models}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json|--device|rtx-5090|--batch|1,8,64|--json"
  GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_gemma_t4_seq
  "check-model|${models}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json|-d|t4|--batch|1,8|--seq|1,2048" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_gemma2_h100
  "check-model|${models}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json|-d|h100-sxm|--batch|1,8,64" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_qwen3_l4
  "check-model|${models}/Wfiles__awq_quantized__config.json|-d|l4|--batch|1,64|--seq|1,512" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_quant_config_alone
  "check-model|${models}/casperhansen__mistral-7b-instruct-awq-gemv__quant_config.json" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_contradictory "check-model|tests/data/check_model_contradictory" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_bad_batch
  "check-model|${models}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json|--batch|8,0" GOLDEN_DIR check_model_golden)
# --stack: the same checkpoint around vLLM's 256 tokens and AutoAWQ's M = 1024 ("ok (d)": dequantize + cuBLAS).
tilescope_cli_golden(check_model_gemma_h200_vllm
  "check-model|${models}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json|-d|h200|--batch|1|--seq|255,256,1023,1024|--stack|vllm"
  GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_gemma_h200_autoawq_json
  "check-model|${models}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json|-d|h200|--batch|1|--seq|1023,1024|--json"
  GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_bad_stack
  "check-model|${models}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json|--stack|tgi" GOLDEN_DIR check_model_golden)
# check-model --backends (issue 29): the backend matrix of a head_dim-256 checkpoint (Gemma-2, GQA 16/8) and
# of a GQA 32/8 head_dim-128 one (Mistral) for training, and the matrix as JSON on one device.
tilescope_cli_golden(check_model_backends_gemma2
  "check-model|${models}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json|--backends|--batch|1,8,64" GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_backends_mistral_train
  "check-model|${models}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json|--backends|--train|--devices|t4,a10,rtx-4090,a100-80gb-sxm,h100-sxm|--batch|1,8|--seq|512,4096"
  GOLDEN_DIR check_model_golden)
tilescope_cli_golden(check_model_backends_gemma_json
  "check-model|${models}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json|--backends|--devices|rtx-4090|--train|--json" GOLDEN_DIR check_model_golden)

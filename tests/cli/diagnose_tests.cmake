# Golden tests for `tilescope-cli diagnose` and `check-model`: output and exit code per case, in the
# exit-first layout of their golden folders. ARGUMENTS separates the CLI's arguments with '|'.
function(tilescope_cli_golden name arguments)
  cmake_parse_arguments(PARSE_ARGV 2 golden "" "INPUT;GOLDEN_DIR" "")
  string(REPLACE "|" ";" case_args "${arguments}")
  tilescope_cli_case(${name} "" LAYOUT exit_first GOLDEN_DIR ${golden_GOLDEN_DIR} INPUT "${golden_INPUT}" ARGS ${case_args})
endfunction()

set(logs tests/data/logs)
foreach(log awq_gemm_oc awq_gemv_batch awq_legacy_grid cascade fa2_headdim fa4_sm120 gemm_ar_bucket gemv_fast_batch
            smem_launch_sm89 too_many_resources)
  tilescope_cli_golden(diagnose_${log} "diagnose|${logs}/${log}.log" GOLDEN_DIR diagnose_golden)
endforeach()
tilescope_cli_golden(diagnose_cascade_json "diagnose|${logs}/cascade.log|--json" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_fa4_sm120_json "diagnose|${logs}/fa4_sm120.log|--json" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_stdin "diagnose|-" INPUT ${logs}/gemm_ar_bucket.log GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_no_signature "diagnose|tests/data/diagnose_no_signature.log" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_no_signature_json "diagnose|tests/data/diagnose_no_signature.log|--json" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_empty "diagnose|tests/data/diagnose_empty.log" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_binary "diagnose|tests/data/diagnose_binary.bin" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_missing_file "diagnose|tests/data/no-such-file.log" GOLDEN_DIR diagnose_golden)
# Issue 13: a traceback as a user pastes it (prompt tokens, a named model, no N or K in the text).
tilescope_cli_golden(diagnose_issue13_mixtral "diagnose|tests/data/diagnose_issue13_mixtral_awq.log" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_issue13_mixtral_json "diagnose|tests/data/diagnose_issue13_mixtral_awq.log|--json" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_llmawq7 "diagnose|tests/data/diagnose_corpus/llmawq7_large_input_invalid_config.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_model_option
  "diagnose|tests/data/diagnose_corpus/vllm16566_v0_worker_invalid_config.log|--model|resources/models/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json"
  GOLDEN_DIR diagnose_golden)
# Issue 16: errors from other stacks: Triton's OutOfResources with the config it came from (read from
# the log, planned as the triton family), and ptxas' static shared-memory cap (replayed as a custom launch).
tilescope_cli_golden(diagnose_public_triton1561 "diagnose|tests/data/diagnose_corpus/triton1561_tutorial_a100.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_llamacpp16081 "diagnose|tests/data/diagnose_corpus/llamacpp16081_ptxas_static_smem.log"
  GOLDEN_DIR diagnose_golden)
# Issue 28: the kernel a log names (an extension op, a reproducer's call) and the shape of the call's
# tensors; a grid overflow read from flash_attn_func's q; the JSON refusal's reason.
tilescope_cli_golden(diagnose_public_causal_conv1d48 "diagnose|tests/data/diagnose_corpus/causal_conv1d48_invalid_config.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_xformers845 "diagnose|tests/data/diagnose_corpus/xformers845_batch_65536.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_fa1812_json "diagnose|tests/data/diagnose_corpus/fa1812_flash_attn_func_heads.log|--json"
  GOLDEN_DIR diagnose_golden)
# A GPU its software has no code for: vLLM's AWQ capability check planned on the V100 it names (and an older
# vLLM's minimum, 80, kept without a plan), and PyTorch's "no kernel image" with its warning's GPU and build list.
tilescope_cli_golden(diagnose_public_vllm4202 "diagnose|tests/data/diagnose_corpus/vllm4202_awq_v100_sxm2_32gb.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_vllm1282 "diagnose|tests/data/diagnose_corpus/vllm1282_awq_min80_t4.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_anomalib2953 "diagnose|tests/data/diagnose_corpus/anomalib2953_titan_xp_sm61.log"
  GOLDEN_DIR diagnose_golden)
# vLLM's compressed-tensors refusal (a printed tuple) on a named V100, planned on nothing; PyTorch's warning
# that its build is too new for the GPU: alone, a prediction of "no kernel image"; with the error, read by it.
tilescope_cli_golden(diagnose_public_llmcompressor1258 "diagnose|tests/data/diagnose_corpus/llmcompressor1258_w4a16_v100_32g.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_kaggle1546 "diagnose|tests/data/diagnose_corpus/kaggle1546_p100_old_gpu_warning.log"
  GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_public_avatarify58 "diagnose|tests/data/diagnose_corpus/avatarify58_gtx660ti_old_gpu.log"
  GOLDEN_DIR diagnose_golden)
# An architecture no database GPU has (Maxwell's 5.2) is said so, not "more than one GPU in the database".
tilescope_cli_golden(diagnose_vllm14154_sm52 "diagnose|${logs}/vllm14154_bitsandbytes_sm52_title.log" GOLDEN_DIR diagnose_golden)
# Issue 28: a limit printed under AMD's ROCm stack implies no NVIDIA GPU; a log that names an architecture, no product.
tilescope_cli_golden(diagnose_rocm_mi300 "diagnose|${logs}/sglang2384_mi300_triton_lds.log" GOLDEN_DIR diagnose_golden)
tilescope_cli_golden(diagnose_pascal_class "diagnose|${logs}/pascal50_triton_pascal_class.log" GOLDEN_DIR diagnose_golden)

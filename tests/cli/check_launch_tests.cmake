# Issue 16: the custom family through `plan` and `run`, and `check-launch` on real tool output
# (tests/data/ptxas: this project's own build and a small nvcc compile; tests/data/ncu: the GPU
# check's Nsight Compute profile on an H200; a PyTorch profiler trace). Goldens in check_launch_golden/.
# Device lists are explicit so that devices joining the database do not move these goldens.
set(_devices t4,a100-80gb-sxm,rtx-4090,h100-sxm,rtx-5090)
set(_dir GOLDEN_DIR check_launch_golden)

# ---- plan -k custom: the issue's example, flash-attention #2750's figure, ptxas' static cap, grid.y per runtime
tilescope_cli_case(plan_custom_optin_4090 0 ${_dir} ARGS plan -k custom -s block_x=256,registers=168,dynamic_smem=101376,smem_optin=1 -d rtx-4090 --cuda 12)
tilescope_cli_case(plan_custom_over_optin_4090 1 ${_dir} ARGS plan -k custom -s block_x=256,registers=168,dynamic_smem=131072,smem_optin=1 -d rtx-4090 --cuda 12)
tilescope_cli_case(plan_custom_no_optin 1 ${_dir} ARGS plan -k custom -s dynamic_smem=65536 -d a100-80gb-sxm --cuda 12)
tilescope_cli_case(plan_custom_static_cap 1 ${_dir} ARGS plan -k custom -s static_smem=51584,dynamic_smem=0 -d h100-sxm --cuda 12)
tilescope_cli_case(plan_custom_grid_y_json 1 ${_dir} ARGS plan -k custom -s grid_y=65536 -d h200 --cuda 13 --json)
tilescope_cli_case(kernels_custom 0 ${_dir} ARGS kernels custom)
# No device code: refused before any GPU is looked for.
tilescope_cli_case(run_custom_refused 2 ${_dir} ARGS run -k custom)

# ---- check-launch on real tool output
# ptxas -v of this project's own build (tests/data/ptxas/README.md): every entry function, the
# largest block its registers allow on each device, or a given block and grid.
tilescope_cli_case(check_launch_ptxas_awq_gemv 0 ${_dir} ARGS check-launch tests/data/ptxas/awq_gemv_sm90.log --devices ${_devices} --cuda 12)
tilescope_cli_case(check_launch_ptxas_attention_block 0 ${_dir} ARGS check-launch tests/data/ptxas/attention_sm90.log --block 128 --grid 16,32,4 --devices ${_devices} --cuda 12)
# A template instance whose 64 KB of static shared memory ptxas refuses (the log carries its error line).
tilescope_cli_case(check_launch_ptxas_static_cap 1 ${_dir} ARGS check-launch tests/data/ptxas/scale_templates_sm90.log --devices ${_devices} --cuda 13)
tilescope_cli_case(check_launch_ptxas_json 1 ${_dir} ARGS check-launch tests/data/ptxas/scale_templates_sm90.log --block 256 --devices rtx-4090,h100-sxm --cuda 12 --json)
tilescope_cli_case(check_launch_ptxas_stdin 0 ${_dir} INPUT tests/data/ptxas/awq_gemv_sm90.log ARGS check-launch - --block 32,4 --grid 1,2752 --devices t4,h100-sxm --cuda 12)
# Nsight Compute --page details from the H200 GPU check: gemm_bucket_bn256 takes 196,608 B of dynamic smem.
tilescope_cli_case(check_launch_ncu_gemm_bucket 1 ${_dir} ARGS check-launch tests/data/ncu/h200_gemm_bucket_bn256_details.csv --devices ${_devices} --cuda 13)
tilescope_cli_case(check_launch_ncu_awq_gemv_json 0 ${_dir} ARGS check-launch tests/data/ncu/h200_awq_gemv_details.csv --devices ${_devices} --cuda 12 --json)
# A PyTorch profiler trace: every distinct kernel configuration.
tilescope_cli_case(check_launch_kineto_triton 0 ${_dir} ARGS check-launch tests/data/hta_triton_example_a100.json.gz --devices ${_devices} --cuda 12)
# Input errors.
tilescope_cli_case(check_launch_not_a_report 2 ${_dir} ARGS check-launch tests/data/ptxas/README.md --cuda 12)
tilescope_cli_case(check_launch_bad_block 2 ${_dir} ARGS check-launch tests/data/ptxas/awq_gemv_sm90.log --block 0,1 --cuda 12)
tilescope_cli_case(check_launch_bad_format 2 ${_dir} ARGS check-launch tests/data/ptxas/awq_gemv_sm90.log --format nvprof --cuda 12)
tilescope_cli_case(check_launch_forced_format 2 ${_dir} ARGS check-launch tests/data/ptxas/awq_gemv_sm90.log --format ncu --cuda 12)
# A BERT-small trace recorded on an H100 (TraceLens sample): three kernel configurations need more
# than the 101,376 B an RTX 4090 / 5090 block may opt into.
tilescope_cli_case(check_launch_kineto_bert_h100 1 ${_dir} ARGS check-launch tests/data/tracelens_bert-small_h100.json.gz --devices ${_devices} --cuda 12)

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

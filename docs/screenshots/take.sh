#!/bin/sh
# Regenerates the screenshots in this folder with `tilescope --screenshot` (offscreen, no
# display or GPU needed). Usage: docs/screenshots/take.sh [path/to/tilescope]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
app=${1:-$here/../../build/ci/bin/tilescope}
export QT_QPA_PLATFORM=offscreen
size=${TILESCOPE_SHOT_SIZE:-1440x900}

# Attention head_dim on H100 SXM against RTX 5090: the SM120 tile search at (512, 512) fits
# H100's 232,448-byte opt-in limit and no tile fits RTX 5090's 101,376 bytes.
attention="--kernel attention --variant sm120_tile_search --device h100-sxm --compare rtx-5090
  --shape batch=4,seqlen_q=4096,seqlen_k=4096,heads=32,head_dim=512,head_dim_v=512"
for page in launch occupancy shared-memory tiles; do
  # shellcheck disable=SC2086
  "$app" $attention --page "$page" --size $size --screenshot "$here/attention-$page.png"
done
# shellcheck disable=SC2086
"$app" $attention --x head_dim=16:1024:+16 --y head_dim_v=16:1024:+16 --page boundaries --size $size \
  --screenshot "$here/attention-boundaries.png"

# The AWQ GEMM legacy_grid_y boundary (llm-awq issue #7): grid.y = ceil(M/16) * N/128 > 65,535.
legacy="--kernel awq_gemm --variant legacy_grid_y --device h100-sxm --compare rtx-5090
  --shape M=32768,N=5376,K=4096,group_size=128"
# shellcheck disable=SC2086
"$app" $legacy --x M=512:65536:+512 --y N=512:16384:+128 --page boundaries --size $size \
  --screenshot "$here/awq-gemm-legacy-boundaries.png"
# shellcheck disable=SC2086
"$app" $legacy --page launch --size $size --screenshot "$here/awq-gemm-legacy-launch.png"

# The stacks' dispatch (issue 30): AutoAWQ runs the GEMM kernel below M = 1024 and dequantize + cuBLAS from it; the
# dashed line on the map marks the switch (the Tiles page shows it as a tile step once its M range passes 1,024).
dispatch="--kernel awq_gemm --variant autoawq --device h200 --shape M=2048,N=14336,K=4096,group_size=128"
# shellcheck disable=SC2086
"$app" $dispatch --x M=64:4096:+64 --y N=512:16384:+512 --page boundaries --size $size \
  --screenshot "$here/awq-gemm-autoawq-dispatch-boundaries.png"

# The gemm_bucket M-cell staircase with its padding waste, on A100 where the big cells fail.
"$app" --kernel gemm_bucket --device a100-80gb-sxm --compare h100-sxm --shape M=300 --page tiles --size $size \
  --screenshot "$here/gemm-bucket-tiles.png"
# The 1-D mode: one axis, the same cells as a strip, H100 SXM's ok boundary as the outline.
"$app" --kernel gemm_bucket --device a100-80gb-sxm --compare h100-sxm --shape M=64 --x M=1:640:+1 --y none \
  --page boundaries --size $size --screenshot "$here/gemm-bucket-boundaries-1d.png"

# Real PyTorch profiler traces (resources/samples): BERT-small on H100 in the Runs page, the
# launches Kineto reported at 0 % occupancy tinted; HTA's sampled rank-0 trace (1,154 kernels on
# four streams) in the Timeline.
samples="$here/../../resources/samples"
"$app" "$samples/tracelens_bert-small_h100.json.gz" --page runs --size $size --screenshot "$here/trace-runs.png"
"$app" "$samples/hta_sampled_rank-0_no_deviceprops.json.gz" --page timeline --size $size --screenshot "$here/trace-timeline.png"
# Measured performance (issue 14): the gemm_bucket oproj M sweep an H200 recorded (tests/data/gpu_check), time
# against M with the bucket cliffs explained, the plan changes dotted and the roofline estimate dashed.
h200_runs="$here/../../tests/data/gpu_check/h200_after_runs.jsonl.gz"
"$app" "$h200_runs" --page performance --size $size --screenshot "$here/performance-h200-gemm-bucket.png"
# The smallest window the pages are laid out for (issue #15 item 12): the same pages at 1024 x 700.
small=1024x700
# shellcheck disable=SC2086
"$app" $attention --page launch --size $small --screenshot "$here/small-attention-launch.png"
# shellcheck disable=SC2086
"$app" $attention --page occupancy --size $small --screenshot "$here/small-attention-occupancy.png"
"$app" --kernel attention --page boundaries --size $small --screenshot "$here/small-fa2-boundaries.png"
"$app" --kernel awq_gemv --page boundaries --size $small --screenshot "$here/small-gemv-boundaries.png"
"$app" --kernel awq_gemm --shape group_size=138 --page launch --size $small --screenshot "$here/small-awq-gemm-no-launch.png"
"$app" --kernel awq_gemm --variant prefill --page shared-memory --size $small --screenshot "$here/small-prefill-shared-memory.png"
"$app" "$samples/hta_alexnet_a100.json.gz" --page timeline --size $small --theme dark --screenshot "$here/small-alexnet-timeline-dark.png"
"$app" "$h200_runs" --page performance --size $small --screenshot "$here/small-performance-h200.png"
"$app" "$h200_runs" --page performance --size $small --theme dark --screenshot "$here/small-performance-h200-dark.png"
echo "screenshots written to $here"

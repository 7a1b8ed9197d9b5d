#!/usr/bin/env bash
# GPU check of the bundled kernels (DESIGN.md "GPU work"). Builds tilescope-cli without Qt for
# this GPU's arch, runs every family at both sides of its boundaries (cases.txt), and checks:
# output vs the CPU reference, the plan vs the CUPTI record (grid, block, smem, registers), each
# predicted failure vs the CUDA error really raised, time vs the roofline (bytes over measured
# copy bandwidth; FLOPs over cuBLAS). Writes runs.jsonl (one `run --json` object per case: the
# trace until core/trace lands), roofline.json and summary.md into $OUT or the folder given.
# Budget: under 8 minutes on an H200 (one arch is compiled; each run is capped by `timeout`).
# Usage: tests/gpu/run.sh [OUTPUT_DIR]      Exit: 0 all checks held, 1 a check failed, 3 no GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-${OUT:-$root/build/gpu-check}}"
mkdir -p "$out"
start=$(date +%s)
log() { echo "[$(( $(date +%s) - start ))s] $*"; }

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "no CUDA device: nvidia-smi finds no GPU" | tee "$out/summary.md"
  exit 3
fi
cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')"
log "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) (sm_$cc)"

# nlohmann-json and CLI11 from .deps/include when the machine has no packages: give CMake config
# files for them so that the project's find_package calls resolve to those headers.
prefix=()
if [ -d "$root/.deps/include" ]; then
  deps="$root/.deps"
  mkdir -p "$deps/lib/cmake/nlohmann_json" "$deps/lib/cmake/CLI11"
  [ -f "$deps/lib/cmake/nlohmann_json/nlohmann_jsonConfig.cmake" ] || cat > "$deps/lib/cmake/nlohmann_json/nlohmann_jsonConfig.cmake" <<CFG
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$deps/include")
set(nlohmann_json_VERSION 3.11.3)
CFG
  [ -f "$deps/lib/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake" ] || cat > "$deps/lib/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake" <<CFG
set(PACKAGE_VERSION 3.11.3)
set(PACKAGE_VERSION_COMPATIBLE TRUE)
CFG
  [ -f "$deps/lib/cmake/CLI11/CLI11Config.cmake" ] || cat > "$deps/lib/cmake/CLI11/CLI11Config.cmake" <<CFG
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$deps/include")
CFG
  prefix=(-DCMAKE_PREFIX_PATH="$deps")
fi

build="$root/build/gpu"
log "configuring (sm_$cc only)"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_GUI=OFF -DTILESCOPE_TESTS=OFF \
  -DTILESCOPE_BENCHMARKS=OFF -DTILESCOPE_CUDA_ARCHS="$cc" -DCMAKE_CUDA_COMPILER="${CUDACXX:-/usr/local/cuda/bin/nvcc}" \
  -DCUDAToolkit_ROOT=/usr/local/cuda "${prefix[@]}" > "$out/configure.log" 2>&1 || { log "configure failed (see configure.log)"; tail -20 "$out/configure.log"; exit 1; }
log "building tilescope-cli"
cmake --build "$build" --target tilescope-cli -j "$(nproc)" > "$out/build.log" 2>&1 || { log "build failed (see build.log)"; tail -30 "$out/build.log"; exit 1; }
cli="$build/bin/tilescope-cli"

log "roofline references"
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if "$nvcc" -O2 -arch="sm_$cc" -o "$build/bandwidth" "$here/bandwidth.cu" -lcublas > "$out/bandwidth_build.log" 2>&1 \
   && timeout 120 "$build/bandwidth" > "$out/roofline.json"; then
  log "$(cat "$out/roofline.json")"
else
  echo '{}' > "$out/roofline.json"
  log "roofline references unavailable (see bandwidth_build.log)"
fi

: > "$out/runs.jsonl"
failures=0
while read -r family variant shape expected; do
  case "$family" in ''|'#'*) continue ;; esac
  dtypes=(fp16)
  [ "$family" = attention ] && dtypes=(fp16 bf16)
  for dtype in "${dtypes[@]}"; do
    extra=()
    [ "$family" = attention ] && extra=(--dtype "$dtype")
    json="$(timeout 180 "$cli" run -k "$family" -v "$variant" -s "$shape" --repeat 10 --json "${extra[@]}" 2> "$out/last_stderr.txt")"
    rc=$?
    if [ -z "$json" ]; then
      json="{\"kernel\": \"$family\", \"variant\": \"$variant\", \"shape_text\": \"$shape\", \"fatal\": true, \"exit_code\": $rc, \"stderr\": $(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$out/last_stderr.txt" 2>/dev/null || echo '""')}"
    fi
    # One line per run, annotated with what the case expects.
    line="$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["expected_verdict"]=sys.argv[1]; d["exit_code"]=int(sys.argv[2]); d["dtype"]=sys.argv[3]; print(json.dumps(d))' "$expected" "$rc" "$dtype")"
    echo "$line" >> "$out/runs.jsonl"
    log "$family/$variant $shape $dtype -> exit $rc"
  done
done < "$here/cases.txt"

python3 "$here/summarize.py" "$out/runs.jsonl" "$out/roofline.json" > "$out/summary.md"
status=$?
cat "$out/summary.md"
log "done: $out"
exit $status

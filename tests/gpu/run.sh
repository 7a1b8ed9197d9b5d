#!/usr/bin/env bash
# The GPU check (DESIGN.md "GPU work"), run from the bundle that tests/gpu/pack.sh built: nothing is
# compiled here. Every family at both sides of its boundaries (cases.txt, attention in fp16 and
# bf16), each run checked for: verdict as the case expects, output vs the CPU reference, plan vs
# the CUPTI record (grid, block, smem, registers), predicted vs raised CUDA error, and timed by
# CUPTI kernel records with L2 flushed between repeats; peers (PyTorch SDPA flash/cuDNN, cuBLAS,
# int4 tinygemm) timed in the same run; the measured copy and cuBLAS rooflines.
#
# Usage: run.sh [--ncu] [--sanitize] [--repeat N] [--cases FILE] [--cli PATH] [--no-peers] [OUT_DIR]
#   --ncu       also compare Nsight Compute's launch statistics with the plan, one launch per variant
#   --sanitize  also run one shape per kernel under compute-sanitizer (memcheck; racecheck for attention)
#   --cli PATH  time another tilescope-cli on the same cases (an older build, for before/after)
#   OUT_DIR     default $OUT, else ./gpu-check. runs.jsonl, peers.json, ncu.json, sanitize.txt,
#               summary.md, summary.json, log.txt (+ roofline inside peers.json), calibration.json and
#               prefill_m_sweep.jsonl (issue 14: for resources/samples/)
# Exit: 0 every check held, 1 a check failed, 2 the bundle is incomplete, 3 no GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bundle="$here"
# From a source tree, the bundle is where pack.sh puts it by default.
[ -x "$bundle/bin/tilescope-cli" ] || bundle="$(cd "$here/../.." && pwd)/build/gpu-bundle"
ncu=0; sanitize=0; repeat=20; peers=1
cases="$bundle/cases.txt"
cli="$bundle/bin/tilescope-cli"
out="${OUT:-$PWD/gpu-check}"
while [ $# -gt 0 ]; do
  case "$1" in
    --ncu) ncu=1; shift ;;
    --sanitize) sanitize=1; shift ;;
    --no-peers) peers=0; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --cli) cli="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
mkdir -p "$out"
logfile="$out/log.txt"
: > "$logfile"
start=$(date +%s)
log() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$logfile"; }

if [ ! -x "$cli" ]; then
  echo "run.sh: no tilescope-cli at $cli: build the bundle first (tests/gpu/pack.sh), then run <bundle>/run.sh" >&2
  exit 2
fi
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "no CUDA device: nvidia-smi finds no GPU" | tee "$out/summary.md"
  exit 3
fi
log "GPU: $(nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | head -1)"
log "bundle: $(tr '\n' ' ' < "$bundle/BUNDLE" 2>/dev/null); cli: $cli"

runs="$out/runs.jsonl"
: > "$runs"
while read -r family variant shape expected only; do
  case "$family" in ''|'#'*) continue ;; esac
  dtypes=(fp16)
  [ "$family" = attention ] && dtypes=(fp16 bf16)
  [ -n "${only:-}" ] && dtypes=("$only")  # a fifth column restricts attention to one dtype
  for dtype in "${dtypes[@]}"; do
    extra=()
    [ "$family" = attention ] && extra=(--dtype "$dtype")
    json="$(timeout 180 "$cli" run -k "$family" -v "$variant" -s "$shape" --repeat "$repeat" --flush-l2 --json "${extra[@]}" 2> "$out/stderr.tmp" < /dev/null)"
    rc=$?
    # One line per run, annotated with what the case expects (a fatal run leaves its stderr instead).
    printf '%s' "$json" > "$out/stdout.tmp"
    python3 "$bundle/summarize.py" annotate --stdout "$out/stdout.tmp" --stderr "$out/stderr.tmp" --expected "$expected" \
      --exit-code "$rc" --dtype "$dtype" --kernel "$family" --variant "$variant" --shape "$shape" >> "$runs"
    t="$(tail -1 "$runs" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d.get("timing_us") or {}; print(t.get("median","-"), t.get("source",""))')"
    log "$family/$variant $shape $dtype -> exit $rc, $t us"
  done
done < "$cases"
rm -f "$out/stderr.tmp" "$out/stdout.tmp"

# Issue 14: this GPU's measured roofline, and a prefill M sweep across its tile cliffs (M=16/17,
# 32/33, 64/65, 128/129, 256/257) with each cell's achieved figures against that roofline. The
# sweep is what resources/samples/ ships for users without a GPU; trace summary --cliffs reads it.
if "$cli" calibrate --help > /dev/null 2>&1; then
  log "calibrate: copy bandwidth and cuBLAS fp16/bf16 peaks"
  timeout 300 "$cli" calibrate --json > "$out/calibration.json" 2>> "$logfile" || log "calibrate failed (exit $?)"
  calibration=()
  [ -s "$out/calibration.json" ] && calibration=(--calibration "$out/calibration.json")
  log "prefill M sweep (sweep --run), N=K=4096"
  timeout 600 "$cli" sweep --run -k awq_gemm -v prefill -s N=4096,K=4096,group_size=128 \
    --x M=1,2,4,8,16,17,24,32,33,48,64,65,96,128,129,192,256,257,384,512 --repeat "$repeat" --flush-l2 "${calibration[@]}" \
    > "$out/prefill_m_sweep.jsonl" 2>> "$logfile" || log "prefill sweep failed (exit $?)"
  "$cli" trace summary --cliffs "$out/prefill_m_sweep.jsonl" >> "$logfile" 2>&1 || log "trace summary --cliffs failed (exit $?)"
fi

peers_json="$out/peers.json"
echo '{}' > "$peers_json"
if [ "$peers" = 1 ]; then
  log "roofline and peers (PyTorch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo missing))"
  roofline="{}"
  if [ -x "$bundle/bin/bandwidth" ]; then
    roofline="$(timeout 120 "$bundle/bin/bandwidth" 2>> "$logfile")" || roofline="{}"
  fi
  log "roofline probe: $roofline"
  timeout 300 python3 "$bundle/peers.py" --cases "$cases" --roofline "$roofline" --out "$peers_json" >> "$logfile" 2>&1 \
    || log "peers.py failed (exit $?): see log.txt"
fi

if [ "$ncu" = 1 ]; then
  ncu_json="$out/ncu.json"
  if command -v ncu > /dev/null; then
    log "Nsight Compute launch statistics, one launch per variant"
    python3 "$bundle/summarize.py" ncu --cli "$cli" --runs "$runs" --tmp "$out" --out "$ncu_json" >> "$logfile" 2>&1 || log "ncu comparison found differences"
  else
    echo '{"error": "ncu not found"}' > "$ncu_json"
  fi
fi

if [ "$sanitize" = 1 ]; then
  report="$out/sanitize.txt"
  : > "$report"
  if command -v compute-sanitizer > /dev/null; then
    log "compute-sanitizer, one small shape per kernel"
    python3 "$bundle/summarize.py" sanitize --cli "$cli" --runs "$runs" --out "$report" >> "$logfile" 2>&1 || log "compute-sanitizer reported errors"
  else
    echo "compute-sanitizer not found" > "$report"
  fi
fi

python3 "$bundle/summarize.py" summary --runs "$runs" --peers "$peers_json" --ncu "$out/ncu.json" --sanitize "$out/sanitize.txt" \
  --md "$out/summary.md" --json "$out/summary.json"
status=$?
cat "$out/summary.md"
log "done in $(( $(date +%s) - start )) s: $out"
exit $status

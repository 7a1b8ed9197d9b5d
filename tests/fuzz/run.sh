#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS, starting from a seed corpus made of tests/data. The
# harnesses live in the `asan` build (clang, ASan + UBSan + libFuzzer), which the script configures
# and builds when needed. Crash inputs land in build/asan/artifacts/<harness>/; the script exits 1 if
# any harness found one.
# Usage: tests/fuzz/run.sh SECONDS [harness...]   (default: all seven)
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: tests/fuzz/run.sh SECONDS [harness...]   (TILESCOPE_FUZZ_BUILD, TILESCOPE_FUZZ_JOBS, TILESCOPE_FUZZ_SKIP_BUILD: see the script)"
case "${1:-}" in
  -h | --help) echo "$usage"; exit 0 ;;
  '' | *[!0-9]*) echo "$usage" >&2; exit 2 ;;  # seconds first, so '--help' or a harness name is not taken for it
esac
seconds="$1"
shift
harnesses=("$@")
[ "${#harnesses[@]}" -gt 0 ] || harnesses=(fuzz_trace_reader fuzz_kineto_import fuzz_device_file fuzz_model_config fuzz_log_diagnoser fuzz_shape_planner fuzz_launch_report)
build="${TILESCOPE_FUZZ_BUILD:-build/asan}"

if [ ! -f "$build/build.ninja" ]; then
  # The `asan` preset (CMakePresets.json) builds the harnesses next to the sanitized tests, so CI
  # compiles core under clang's sanitizers once for both. Its device code (the planners' register
  # table) is compiled exactly as the ci build's, so after that build ccache has it.
  cmake --preset asan -B "$build" >/dev/null
fi
if ! grep -q '^TILESCOPE_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "tests/fuzz/run.sh: $build was configured without TILESCOPE_FUZZ=ON (by an older asan preset?):" \
       "reconfigure it with 'cmake --preset asan --fresh', or point TILESCOPE_FUZZ_BUILD at a build that has the harnesses" >&2
  exit 2
fi
# TILESCOPE_FUZZ_SKIP_BUILD=1 runs the harnesses already built, without the build step.
[ "${TILESCOPE_FUZZ_SKIP_BUILD:-0}" = 1 ] || cmake --build "$build" --target "${harnesses[@]}"

seeds() {  # harness corpus-dir: copies that harness' seed inputs from tests/data
  local dir="$2"
  case "$1" in
    fuzz_trace_reader) cp tests/data/trace_golden.tilescope.json "$dir/" ;;
    fuzz_kineto_import)
      cp tests/data/hta_triton_example_a100.json.gz tests/data/hta_mi250_rocm_no_regs.json.gz "$dir/"
      gzip -dc tests/data/hta_triton_example_a100.json.gz >"$dir/hta_triton_example_a100.json" ;;
    fuzz_device_file) cp tests/data/device_*.json tests/data/devices_two.json resources/devices.json "$dir/" ;;
    fuzz_model_config)
      # config.json NUL quant_config.json: the harness splits at the first NUL byte.
      for d in tests/data/casperhansen__mistral-7b-instruct-awq-gemv tests/data/check_model_contradictory; do
        { cat "$d/config.json"; printf '\0'; cat "$d/quant_config.json"; } >"$dir/$(basename "$d").bin"
      done
      cp resources/models/*.json "$dir/" ;;
    fuzz_log_diagnoser) cp tests/data/logs/*.log tests/data/diagnose_*.log tests/data/diagnose_*.bin tests/data/diagnose_corpus/*.log "$dir/" ;;
    fuzz_shape_planner) cp tests/fuzz/seeds/fuzz_shape_planner/* "$dir/" ;;
    fuzz_launch_report) cp tests/data/ptxas/*.log tests/data/ncu/*.csv "$dir/" ;;
  esac
}

# One harness per core at a time (TILESCOPE_FUZZ_JOBS, default: every core): each still runs its full
# SECONDS, so a run finds what a sequential one would, in 1/jobs of the time. Results print in order.
jobs="${TILESCOPE_FUZZ_JOBS:-$(nproc)}"
fuzz_one() {  # harness: runs it, leaves its one-line result in $build/$1.result; fails if it found something
  local h="$1" corpus="$build/corpus/$1" artifacts="$build/artifacts/$1" start
  rm -f "$build/$h.result"
  mkdir -p "$corpus" "$artifacts"
  seeds "$h" "$corpus"
  start=$(date +%s)
  if ! "$build/bin/$h" -max_total_time="$seconds" -max_len=65536 -timeout=25 -rss_limit_mb=4096 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" >"$build/$h.log" 2>&1; then
    echo "fuzz: $h FAILED after $(( $(date +%s) - start ))s: see $build/$h.log and $artifacts/" >"$build/$h.result"
    return 1
  fi
  echo "fuzz: $h ran $(( $(date +%s) - start ))s: $(grep -E 'stat::number_of_executed_units' "$build/$h.log" | tr -s ' ')" >"$build/$h.result"
}

echo "fuzz: ${#harnesses[@]} harness(es) for ${seconds}s each, $jobs at a time (corpora in $build/corpus/)"
pids=()
status=0
for index in "${!harnesses[@]}"; do
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
  fuzz_one "${harnesses[$index]}" &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for h in "${harnesses[@]}"; do
  if grep -q FAILED "$build/$h.result" 2>/dev/null; then
    cat "$build/$h.result" >&2
    tail -n 40 "$build/$h.log" >&2
  else
    cat "$build/$h.result"
  fi
done
exit $status

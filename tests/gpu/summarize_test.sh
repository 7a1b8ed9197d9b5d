#!/usr/bin/env bash
# ctest gpu_check_summary: summarize.py on the GPU check recorded on an H200 (tests/data/gpu_check,
# 2026-11-30, before the kernel rewrites): its table must carry what the runs hold — registers
# from the CUPTI record's registers_per_thread, CUPTI times, peers — and fail on the runs that
# failed there (CUDA 13 raised cudaErrorInvalidValue where the build of that day predicted 9; the
# prefill case at N=4160 that the planner refuses). Usage: summarize_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src="$1"
work="$2"
data="$src/tests/data/gpu_check"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
gunzip -c "$data/h200_before_runs.jsonl.gz" > "$work/runs.jsonl"
set +e
python3 "$src/tests/gpu/summarize.py" summary --runs "$work/runs.jsonl" --peers "$data/h200_before_peers.json" \
  --md "$work/summary.md" --json "$work/summary.json"
rc=$?
set -e
[ "$rc" = 1 ] || fail "summary exited $rc; 5 runs failed their checks on that day, so 1 is expected"
grep -q "58 of 63 runs passed every check" "$work/summary.md" || fail "wrong pass count: $(tail -3 "$work/summary.md")"
row="$(grep '^| awq_gemv | gemv | fp16 | M=1,N=4096,K=4096,group_size=128 |' "$work/summary.md")"
[[ "$row" == *"| 40 | 36.1 |"* ]] || fail "the gemv row lacks registers 40 and 36.1 us: $row"
[[ "$row" == *"tinygemm_int4 6.9"* ]] || fail "the gemv row lacks its tinygemm peer: $row"
grep -q "CUDA said cudaErrorInvalidValue" "$work/summary.md" || fail "the CUDA 13 launch error is not reported"
python3 - "$work/summary.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["roofline"]["copy_GBps"] == 4272.1, doc["roofline"]
gemv = next(r for r in doc["runs"] if r["kernel"] == "awq_gemv" and r["ours_us"])
assert gemv["timing_source"] == "cupti" and gemv["l2_flushed"] is True, gemv
assert 5.0 < gemv["pct_of_copy_roofline"] < 7.0, gemv["pct_of_copy_roofline"]
PY

# The check after the kernel rewrites (bundle of 2570df3): every run passed, and Nsight Compute's
# launch statistics agree with the plan once the shared-memory block limit is read for the
# carveout the driver chose (NCU 2 where the plan's largest carveout gives 4, both above the
# kernel's active blocks).
gunzip -c "$data/h200_after_runs.jsonl.gz" > "$work/after_runs.jsonl"
python3 "$src/tests/gpu/summarize.py" summary --runs "$work/after_runs.jsonl" --peers "$data/h200_after_peers.json" \
  --ncu "$data/h200_after_ncu.json" --sanitize "$data/h200_after_sanitize.txt" --md "$work/after.md" --json "$work/after.json" \
  || fail "the after check should pass: $(tail -5 "$work/after.md")"
grep -q "122 of 122 runs passed every check" "$work/after.md" || fail "after: wrong pass count"
grep -q "Nsight Compute: 9 launches compared, 0 mismatching figures" "$work/after.md" || fail "after: NCU comparison: $(grep -A12 'Nsight' "$work/after.md")"
grep -q "compute-sanitizer: 0 failing sanitizer run(s)" "$work/after.md" || fail "after: sanitizer line"
echo "summary ok"

#!/usr/bin/env bash
# Absurd shape values through the CLI: each must end in a usage error (exit 2) naming the problem,
# or a verdict (exit 0/1) -- never a crash or, in the asan preset, a sanitizer report (which aborts).
# Usage: absurd_shapes.sh TILESCOPE_CLI
set -uo pipefail
cli="$1"
failures=0
expect() {  # expect CODE PATTERN -- ARGS...: exit code CODE and PATTERN in stdout+stderr
  local code="$1" pattern="$2"; shift 3
  local out; out="$("$cli" "$@" 2>&1)"; local got=$?
  if ! [[ "$got" =~ ^($code)$ ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: tilescope-cli $* -> exit $got (expected $code, /$pattern/):"; echo "$out" | head -n 20
    failures=$((failures + 1))
  else
    echo "ok: tilescope-cli $* -> exit $got"
  fi
}
two62=4611686018427387904   # 2^62
expect 2 "out of range" -- plan -k awq_gemm -d h100-sxm -s M=-1
expect 2 "out of range" -- plan -k awq_gemm -d h100-sxm -s M=$two62
expect 2 "out of range" -- plan -k awq_gemm -d h100-sxm -s N=-$two62
expect 2 "does not fit in 64 bits" -- plan -k awq_gemm -d h100-sxm -s K=99999999999999999999999
expect 2 "not an integer" -- plan -k awq_gemm -d h100-sxm -s M=1e9
expect 2 "out of range" -- plan -k attention -d h100-sxm -s head_dim=$two62
expect 2 "out of range" -- plan -k gemm_bucket -d h100-sxm -s M=-9223372036854775808
# Every parameter at its maximum: M*N*K = 2^64 overflows 64 bits; the planner must still give a verdict.
expect '[01]' "^verdict +[a-z_]+" -- plan -k awq_gemm -d h100-sxm -s M=16777216,N=1048576,K=1048576
expect '[01]' "^verdict +[a-z_]+" -- plan -k awq_gemv -d h100-sxm -s M=16777216,N=1048576,K=1048576
expect '[01]' "^verdict +[a-z_]+" -- plan -k attention -d h100-sxm -s batch=1048576,seqlen_q=16777216,seqlen_k=16777216,heads=1048576,head_dim=1024,head_dim_v=1024
expect '[01]' "^verdict +[a-z_]+" -- plan -k gemm_bucket -d h100-sxm -s M=16777216,N=1048576,K=1048576
# Zero-sized problems: a verdict or a usage error, not a division by zero.
expect '[012]' "^verdict +[a-z_]+" -- plan -k awq_gemm -d h100-sxm -s M=0,N=0,K=0
expect '[012]' "^verdict +[a-z_]+" -- plan -k awq_gemv -d h100-sxm -s M=0
expect '[012]' "^verdict +[a-z_]+" -- plan -k attention -d h100-sxm -s batch=0
exit $((failures > 0))

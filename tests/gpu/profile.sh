#!/usr/bin/env bash
# Nsight Compute's full report (every section, details page, CSV) for one launch of each case in a
# cases file: where a kernel's time goes (stall reasons, pipe and memory throughput, occupancy),
# before deciding how to change it. Runs from the bundle, like run.sh; nothing is compiled.
#
# Usage: profile.sh [--cases FILE] [--cli PATH] [OUT_DIR]
#   --cases FILE  lines as in cases.txt (family variant shape expected [dtype]); default profile_cases.txt
#   OUT_DIR       default $OUT, else ./gpu-profile. Writes profile.tgz (one CSV per case, p1.csv ...)
#                 and index.txt (which case each CSV is, and ncu's exit code).
# Exit: 0 every case profiled, 1 some ncu run failed, 2 no bundle or no ncu, 3 no GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bundle="$here"
[ -x "$bundle/bin/tilescope-cli" ] || bundle="$(cd "$here/../.." && pwd)/build/gpu-bundle"
cases="$here/profile_cases.txt"
cli="$bundle/bin/tilescope-cli"
out="${OUT:-$PWD/gpu-profile}"
while [ $# -gt 0 ]; do
  case "$1" in
    --cases) cases="$2"; shift 2 ;;
    --cli) cli="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "profile.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[ -x "$cli" ] || { echo "profile.sh: no tilescope-cli at $cli (build the bundle: tests/gpu/pack.sh)" >&2; exit 2; }
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "no CUDA device: nvidia-smi finds no GPU" >&2
  exit 3
fi
command -v ncu > /dev/null || { echo "profile.sh: ncu not found" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
: > "$out/index.txt"
status=0 i=0
while read -r family variant shape expected dtype; do
  case "$family" in ''|'#'*) continue ;; esac
  i=$((i + 1))
  extra=()
  [ -n "${dtype:-}" ] && extra=(--dtype "$dtype")
  # --repeat 0 --no-cupti: the one checked launch, and no CUPTI subscriber beside ncu's.
  timeout 120 ncu --set full --import-source no --launch-count 1 --csv --page details --log-file "$work/p$i.csv" \
    "$cli" run -k "$family" -v "$variant" -s "$shape" --repeat 0 --no-cupti --json "${extra[@]}" > /dev/null 2>> "$out/index.txt" < /dev/null
  rc=$?
  [ "$rc" = 0 ] || status=1
  echo "p$i $family $variant $shape ${dtype:-} (expected $expected) ncu exit $rc" | tee -a "$out/index.txt"
done < "$cases"
(cd "$work" && tar czf "$out/profile.tgz" p*.csv 2> /dev/null)
rm -rf "$work"
exit "$status"

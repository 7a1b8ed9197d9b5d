#!/usr/bin/env bash
# ctest gpu_bundle_pack: packs the build's own tilescope-cli with tests/gpu/pack.sh and runs the
# bundle from another directory, as the GPU machine will: the CLI starts with only the bundle's
# libraries (RPATH $ORIGIN/../lib), `run` exits 3 without a GPU, the check's scripts are there
# and run.sh itself exits 3 without a GPU. Usage: bundle_test.sh CLI WORK_DIR [BUDGET_MB]
set -euo pipefail
cli="$1"
work="$2"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
bundle="$work/bundle"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The build's CLI carries SASS for every arch of TILESCOPE_CUDA_ARCHS (the CI build: 7), not just sm_90:
# 200 MB. A sanitized CLI (the asan preset: Debug, ASan and UBSan instrumentation, libasan carried) is
# about twice that and is never carried to a GPU; tests/gpu/CMakeLists.txt passes it 600 MB, a budget
# that only guards against runaway growth. The bundle a device call carries is pack.sh's default (one
# arch, Release, 40 MB).
budget_mb="${3:-200}"
"$here/pack.sh" --cli "$cli" --out "$bundle" --max-mb "$budget_mb"
for f in bin/tilescope-cli run.sh profile.sh cases.txt profile_cases.txt summarize.py peers.py README.md BUNDLE; do
  [ -e "$bundle/$f" ] || fail "the bundle lacks $f"
done
[ "$(patchelf --print-rpath "$bundle/bin/tilescope-cli")" = '$ORIGIN/../lib' ] || fail "the CLI's RPATH is not \$ORIGIN/../lib"
ls "$bundle/lib" | grep '^libcupti\.so' >/dev/null || fail "libcupti is not in the bundle"
ls "$bundle/lib" | grep '^libsimdjson\.so' >/dev/null || fail "libsimdjson is not in the bundle"

# Elsewhere, with the system's copies of the carried libraries out of the search path: each
# carried library must resolve inside the bundle.
elsewhere="$(mktemp -d)"
trap 'rm -rf "$elsewhere"' EXIT
cd "$elsewhere"
for lib in "$bundle"/lib/*; do
  name="$(basename "$lib")"
  resolved="$(ldd "$bundle/bin/tilescope-cli" | awk -v n="$name" '$1 == n {print $3}')"
  [ -n "$resolved" ] && [ "$(readlink -f "$resolved")" = "$(readlink -f "$lib")" ] || fail "$name resolves to '$resolved', not the bundle's copy"
done
"$bundle/bin/tilescope-cli" --version | grep -Eq "^[0-9]+\.[0-9]+\.[0-9]+ \(" || fail "--version from the bundle"
set +e
"$bundle/bin/tilescope-cli" run -k awq_gemv -s M=1,N=4096,K=4096 --repeat 1 --flush-l2 > run.out 2> run.err
rc=$?
set -e
# No GPU here: exit 3 with the reason. On a machine with a GPU the run itself must pass.
if [ "$rc" = 3 ]; then
  grep -q "no CUDA device" run.err || fail "exit 3 without 'no CUDA device' on stderr"
elif [ "$rc" != 0 ]; then
  fail "bundle run exited $rc: $(cat run.err)"
fi
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  set +e
  "$bundle/run.sh" "$elsewhere/out" > run_sh.out 2>&1
  rc=$?
  set -e
  [ "$rc" = 3 ] || fail "run.sh without a GPU exited $rc, not 3: $(cat run_sh.out)"
  set +e
  "$bundle/profile.sh" "$elsewhere/profile" > profile_sh.out 2>&1
  rc=$?
  set -e
  [ "$rc" = 3 ] || fail "profile.sh without a GPU exited $rc, not 3: $(cat profile_sh.out)"
fi
echo "bundle ok: $(du -sh "$bundle" | cut -f1), $(ls "$bundle/lib" | tr '\n' ' ')"

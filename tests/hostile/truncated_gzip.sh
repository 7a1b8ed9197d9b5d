#!/usr/bin/env bash
# A profiler trace cut short, gzip'ed or plain, through the CLI: exit 2 and a message naming the cut,
# never an import that looks complete (issue 17: the gzip path once said nothing of a cut).
# The cut copies are made here from a real sample in tests/data.
# Usage: truncated_gzip.sh TILESCOPE_CLI TESTS_DATA_DIR
set -uo pipefail
cli="$1"
sample="$2/hta_sampled_rank-0_no_deviceprops.json.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect PATTERN -- ARGS...: exit code 2 and PATTERN in stdout+stderr
  local pattern="$1"; shift 2
  local out; out="$("$cli" "$@" 2>&1)"; local got=$?
  if [[ "$got" != 2 ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: tilescope-cli $* -> exit $got (expected 2, /$pattern/):"; echo "$out" | head -n 20
    failures=$((failures + 1))
  else
    echo "ok: tilescope-cli $* -> exit $got: $out"
  fi
}
head -c 100000 "$sample" > "$work/cut.json.gz"
head -c $(( $(wc -c < "$sample") - 8 )) "$sample" > "$work/no_trailer.json.gz"
gzip -dc < "$sample" | head -c 100000 > "$work/cut.json"
expect "the gzip stream ends before its end marker.*truncated\?" -- import-kineto "$work/cut.json.gz"
expect "the gzip stream ends before its end marker.*truncated\?" -- import-kineto "$work/no_trailer.json.gz"
expect "the gzip stream ends before its end marker.*truncated\?" -- trace summary "$work/cut.json.gz"
expect "the file ends inside .*truncated\?" -- import-kineto "$work/cut.json"
exit $((failures > 0))

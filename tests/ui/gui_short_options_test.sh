#!/bin/sh
# Issue 31 item 14: a short option means in `tilescope` what it means in `tilescope-cli`: `-v` is the
# variant (it printed the version and exited), `--version` the version.
# Usage: gui_short_options_test.sh TILESCOPE_BINARY
set -eu
app=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$app" -k attention -v fa2 --export-report "$scratch/fa2.md" >"$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt" >&2; fail "tilescope -k attention -v fa2 --export-report failed"; }
[ -s "$scratch/fa2.md" ] || { cat "$scratch/out.txt" >&2; fail "-v fa2 wrote no report (was -v read as --version?)"; }
grep -q "attention" "$scratch/fa2.md" || fail "the report does not name the attention kernel"
grep -q "fa2" "$scratch/fa2.md" || fail "the report does not name the fa2 variant"
# An unknown variant after -v is refused, as the CLI refuses it.
if "$app" -k attention -v no_such_variant --export-report "$scratch/bad.md" >"$scratch/bad.txt" 2>&1; then fail "-v no_such_variant was accepted"; fi
grep -q "unknown kernel or variant" "$scratch/bad.txt" || { cat "$scratch/bad.txt" >&2; fail "no 'unknown kernel or variant' message"; }
# The version stays one option away.
"$app" --version >"$scratch/version.txt" 2>&1 || fail "--version failed"
grep -q "tilescope" "$scratch/version.txt" || { cat "$scratch/version.txt" >&2; fail "--version printed no version"; }
echo "ok"

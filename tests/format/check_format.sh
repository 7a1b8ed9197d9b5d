#!/usr/bin/env bash
# Fails when a tracked C++/CUDA source is not laid out as .clang-format says, and prints the
# first differences. Usage: tests/format/check_format.sh [--fix] [REPO]
# --fix rewrites the files in place instead (what to run before committing).
# Files under tests/data are test inputs (compiler output captured from real sources), not code.
set -euo pipefail
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
repo="$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
cd "$repo"
formatter="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$formatter" ]; then
  echo "check_format: clang-format not found (installer/setup.sh installs clang-format-14)" >&2
  exit 1
fi
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.cu' '*.cuh' | grep -v '^tests/data/')
else  # a source tarball: every source below the root
  mapfile -t files < <(find . -path ./build -prune -o -path ./tests/data -prune -o -type f \
                         \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||' | sort)
fi
if [ "$fix" = 1 ]; then
  "$formatter" --style=file -i "${files[@]}"
  echo "check_format: formatted ${#files[@]} files with $formatter"
  exit 0
fi
# One clang-format process checks every file (--dry-run --Werror): ~2 CPU-s, where a process and a
# diff per file took ~50 (process start-up, not formatting). Only the files it names get a diff.
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
if "$formatter" --style=file --dry-run --Werror "${files[@]}" 2>"$report"; then
  echo "check_format: ${#files[@]} files laid out as .clang-format says"
  exit 0
fi
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' "$report" | cut -d: -f1 | awk '!seen[$0]++')
if [ "${#bad[@]}" -eq 0 ]; then  # clang-format failed without naming a file: show what it said
  cat "$report" >&2
  exit 1
fi
for f in "${bad[@]:0:5}"; do
  "$formatter" --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" - | head -40 || true
done
echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format; run tests/format/check_format.sh --fix" >&2
exit 1

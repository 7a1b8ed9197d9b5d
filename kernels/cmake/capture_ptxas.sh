#!/usr/bin/env bash
# CUDA compiler launcher: runs one nvcc compile (built with -Xptxas -v) and keeps ptxas' resource
# report beside the object as <object>.ptxas, for GenerateResourceTable.cmake. The report lines are
# kept out of the build log; everything else nvcc prints (warnings, errors) still reaches it.
object=""
previous=""
for argument in "$@"; do
  if [ "$previous" = "-o" ]; then object="$argument"; fi
  previous="$argument"
done
if [ -z "$object" ]; then exec "$@"; fi
log="${object}.ptxas"
"$@" 2> "${log}.tmp"
status=$?
grep -v -E '^(ptxas info|    [0-9]+ bytes stack frame)' "${log}.tmp" >&2
mv -f "${log}.tmp" "${log}"
exit $status

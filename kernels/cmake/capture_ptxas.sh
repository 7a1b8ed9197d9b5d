#!/usr/bin/env bash
# CUDA compiler launcher: runs one nvcc compile (built with -Xptxas -v) and keeps ptxas' resource
# report beside the object as <object>.ptxas, for GenerateResourceTable.cmake. The report lines are
# kept out of the build log; everything else nvcc prints (warnings, errors) still reaches it.
# When the command is `ccache nvcc ...` (kernels/CMakeLists.txt), the build directory must not be part of
# ccache's key (it is by default for a -g compile), so that the ci and sanitizer builds share entries.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
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

#!/usr/bin/env bash
# Builds the GPU check's bundle on a machine without a GPU: the no-GUI tilescope-cli for the given
# CUDA archs, every shared library it needs beyond glibc, libstdc++/libgcc and the driver (RPATH
# $ORIGIN/../lib), the roofline probe, and the check's scripts and cases. The GPU machine has the
# CUDA toolkit, CMake and PyTorch but none of our Debian dependencies: it runs the bundle as it is.
#
# Usage: tests/gpu/pack.sh [--archs 90] [--out build/gpu-bundle] [--cli PATH] [--max-mb 40]
#   --archs  CUDA archs to compile (TILESCOPE_CUDA_ARCHS form, e.g. "90" or "80;90"); default 90 (H100/H200)
#   --out    bundle folder (default build/gpu-bundle: ignored by git, so `run` can carry it)
#   --cli    bundle this tilescope-cli instead of building one (the ctest packs the build's own)
#   --max-mb fail above this size (default 40: what a device call carries; a 7-arch CLI needs more)
# Then: carry the bundle to the GPU machine and run `<bundle>/run.sh` there (tests/gpu/README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
archs=90
out="$root/build/gpu-bundle"
cli=""
max_mb=40
while [ $# -gt 0 ]; do
  case "$1" in
    --archs) archs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cli) cli="$2"; shift 2 ;;
    --max-mb) max_mb="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pack.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
log() { echo "pack.sh [$(( $(date +%s) - start ))s] $*"; }
command -v patchelf > /dev/null || { echo "pack.sh: patchelf is missing (installer/setup.sh installs it)" >&2; exit 2; }
nvcc="${CUDACXX:-/usr/local/cuda/bin/nvcc}"

if [ -z "$cli" ]; then
  build="$root/build/gpu-pack"
  log "configuring the no-GUI CLI for sm_${archs//;/, sm_} in $build"
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_GUI=OFF -DTILESCOPE_TESTS=OFF \
    -DTILESCOPE_BENCHMARKS=OFF "-DTILESCOPE_CUDA_ARCHS=$archs" "-DCMAKE_CUDA_COMPILER=$nvcc" -DCUDAToolkit_ROOT=/usr/local/cuda \
    "${launcher[@]}" > "$build.configure.log" 2>&1 || { tail -20 "$build.configure.log"; exit 1; }
  log "building tilescope-cli"
  cmake --build "$build" --target tilescope-cli > "$build.build.log" 2>&1 || { tail -30 "$build.build.log"; exit 1; }
  cli="$build/bin/tilescope-cli"
fi
[ -x "$cli" ] || { echo "pack.sh: no tilescope-cli at $cli" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp "$cli" "$out/bin/tilescope-cli"
# Debug info is most of a RelWithDebInfo binary (69 of 75 MB): the bundle carries none.
strip --strip-debug "$out/bin/tilescope-cli"
# Libraries the target machine cannot be assumed to have. glibc, libstdc++/libgcc and the driver
# (libcuda, loaded by the static CUDA runtime at run time) are the machine's own.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libutil|libresolv|libstdc\+\+|libgcc_s|libcuda)\.so'
missing=$(ldd "$cli" | awk '/not found/ {print $1}')
[ -z "$missing" ] || { echo "pack.sh: $cli needs libraries this machine lacks: $missing" >&2; exit 1; }
ldd "$cli" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
  if [[ ! "$name" =~ $system_lib ]]; then
    cp -L "$path" "$out/lib/$name"
  fi
done
patchelf --set-rpath '$ORIGIN/../lib' "$out/bin/tilescope-cli"
for lib in "$out"/lib/*.so*; do
  [ -e "$lib" ] && patchelf --set-rpath '$ORIGIN' "$lib"
done

# The roofline probe: copy bandwidth and cuBLAS fp16/bf16 peaks. cuBLAS (hundreds of MB) is not
# carried: the probe finds the target's own toolkit through its RPATH.
if [ -x "$nvcc" ]; then
  gencode=()
  IFS=';' read -ra arch_list <<< "$archs"
  for a in "${arch_list[@]}"; do gencode+=("-gencode=arch=compute_$a,code=sm_$a"); done
  if "$nvcc" -O2 "${gencode[@]}" -o "$out/bin/bandwidth" "$here/bandwidth.cu" -lcublas \
       -Xlinker -rpath -Xlinker /usr/local/cuda/lib64 -Xlinker -rpath -Xlinker /usr/local/cuda/lib > "$out/bandwidth_build.log" 2>&1; then
    rm -f "$out/bandwidth_build.log"
  else
    log "roofline probe did not build (see $out/bandwidth_build.log); the check will measure the roofline with PyTorch"
  fi
fi

cp "$here/run.sh" "$here/profile.sh" "$here/cases.txt" "$here/profile_cases.txt" "$here/summarize.py" "$here/peers.py" "$here/README.md" "$out/"
chmod +x "$out/run.sh" "$out/profile.sh"
{
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo '+uncommitted')"
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) for sm_${archs//;/, sm_}"
  "$out/bin/tilescope-cli" --version 2>&1 | head -1
} > "$out/BUNDLE"
size=$(du -sm "$out" | cut -f1)
log "bundle: $out (${size} MB): $(ls "$out/lib" | tr '\n' ' ')"
[ "$size" -le "$max_mb" ] || { echo "pack.sh: the bundle is ${size} MB, over its ${max_mb} MB budget" >&2; exit 1; }

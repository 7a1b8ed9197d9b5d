#!/usr/bin/env bash
# Prints threads and sizeof(SharedStorage) of every xformers v0.0.28 cutlassF/cutlassB kernel (README.md).
set -euo pipefail
xformers=${1:?bare git dir of facebookresearch/xformers}
cutlass=${2:?bare git dir of NVIDIA/cutlass}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$xformers" archive v0.0.28 xformers/csrc/attention/cuda/fmha | tar -x -C "$work"
cutlass_rev=$(git -C "$xformers" ls-tree v0.0.28 third_party/cutlass | awk '{print $3}')
git -C "$cutlass" archive "$cutlass_rev" include | tar -x -C "$work"
fmha="$work/xformers/csrc/attention/cuda/fmha"
# The kernels include ATen only for dropout's Philox state; a stub of its shape is enough for sizeof.
mkdir -p "$work/stub/ATen/cuda" "$work/stub/c10/cuda"
cat >"$work/stub/ATen/cuda/CUDAGeneratorImpl.h" <<'H'
#pragma once
#include <cstdint>
namespace at {
struct PhiloxCudaState {
  PhiloxCudaState() = default;
  PhiloxCudaState(uint64_t s, uint64_t o) : seed_(s), offset_(o) {}
  uint64_t seed_ = 0, offset_ = 0;
};
}
H
cat >"$work/stub/ATen/cuda/CUDAGraphsUtils.cuh" <<'H'
#pragma once
#include <tuple>
#include <ATen/cuda/CUDAGeneratorImpl.h>
namespace at { namespace cuda { namespace philox {
__host__ __device__ inline std::tuple<uint64_t, uint64_t> unpack(at::PhiloxCudaState s) { return {s.seed_, s.offset_}; }
}}}
H
echo '#pragma once' >"$work/stub/ATen/cuda/CUDAContext.h"
echo '#pragma once' >"$work/stub/c10/cuda/CUDAGuard.h"
python3 - "$fmha/autogen" "$work/probe.cu" <<'PY'
import re, sys
autogen, out = sys.argv[1], sys.argv[2]
lines = ['#include <cstdio>', '#include "kernel_forward.h"', '#include "kernel_backward.h"',
         'template <typename K> void show(const char* group, const char* name, const char* cond) {',
         '  std::printf("%s %s %s threads=%d smem=%zu\\n", group, name, cond, int(K::kNumThreads), sizeof(typename K::SharedStorage));',
         '}', 'int main() {']
for header in ('cutlassF.h', 'cutlassB.h'):
    group = None
    for line in open(f'{autogen}/{header}'):
        m = re.match(r'template <typename T> void (dispatch_\w+)\(T cb, int cc\) \{', line)
        if m:
            group = m.group(1)
            continue
        m = re.match(r'\s*(if \((.*?)\) )?cb\((.*)\(\), (\w+)\);', line)
        if m and group:
            lines.append(f'  show<{m.group(3)}>("{group}", "{m.group(4)}", "{m.group(2) or "-"}");')
lines.append('}')
open(out, 'w').write('\n'.join(lines) + '\n')
PY
nvcc -std=c++17 -arch=sm_80 --expt-relaxed-constexpr -w -I "$work/stub" -I "$work/include" -I "$fmha" \
    -I "$work/xformers/csrc" "$work/probe.cu" -o "$work/probe"
"$work/probe"

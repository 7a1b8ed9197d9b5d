// awq_gemm device code shared by the gemm/legacy kernels (kernel.cu) and the prefill kernels
// (prefill.cuh): tile constants and a packing helper. Included only by kernel.cu, one translation unit.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/common/mma.cuh"

namespace tilescope {
namespace {

using device::Lane;

constexpr int kWarpSize = 32;
constexpr int kTileM = 16;
constexpr int kTileK = 32;
constexpr int kMmaK = 16;
constexpr int kMmaN = 8;
constexpr int kHalfPerVector = 8;  // 16-byte vectors
constexpr int kWarpColumns = 64;   // a gemm warp owns 64 output columns: 8 packed words per K row
constexpr int kGemmStages = 4;     // A ring slots per gemm warp (cp.async); the B register ring is GemmShape::kBDepth

__device__ __forceinline__ std::uint32_t packHalf2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&h);
}

}  // namespace
}  // namespace tilescope

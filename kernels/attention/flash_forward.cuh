// The FlashAttention-style forward shared by kernel.cu (fp16) and kernel_bf16.cu (bf16), split so
// that the two instantiation sets compile in parallel. See kernel.cu for the design.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/attention_index.h"
#include "kernels/attention/params.h"
#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace attention_detail {

using device::Lane;

[[maybe_unused]] constexpr int kWarpSize = 32;
[[maybe_unused]] constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
[[maybe_unused]] constexpr int kVector = 8;  // elements per 16-byte copy
[[maybe_unused]] constexpr float kLog2e = 1.4426950408889634f;

// Copies rows [rowStart, rowStart + rows) x columns [col0, col0 + cols) of a [seq, heads, dim]
// slice into shared memory (row stride `stride`), zero-filling rows past `rowLimit` and columns
// past `dim`. 16-byte copies when every row is 16-byte aligned.
template <typename T>
__device__ __forceinline__ void loadTile(T* dst, int stride, const T* src, long long rowPitch, int rowStart, int rows,
                                         int rowLimit, int col0, int cols, int dim, int threads) {
    const int tid = static_cast<int>(threadIdx.x);
    if (dim % kVector == 0 && rowPitch % kVector == 0) {
        const int vectorsPerRow = cols / kVector;
        for (int v = tid; v < rows * vectorsPerRow; v += threads) {
            const int r = v / vectorsPerRow, c = col0 + (v % vectorsPerRow) * kVector;
            T* to = dst + r * stride + c;
            if (rowStart + r < rowLimit && c < dim)
                device::copy16Async(to, src + (rowStart + r) * rowPitch + c);
            else
                *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
    } else {
        for (int v = tid; v < rows * cols; v += threads) {
            const int r = v / cols, c = col0 + v % cols;
            dst[r * stride + c] = (rowStart + r < rowLimit && c < dim) ? src[(rowStart + r) * rowPitch + c]
                                                                        : device::fromFloat<T>(0.f);
        }
    }
}

// HeadDimBucket > 0: FA2, strides are the planner's head-dim bucket and one pass covers V.
// HeadDimBucket == 0: SM120 search, strides round head dims up to 16 and V is covered in
// DvChunk-column passes (the output accumulators live in registers, sized at compile time).
template <typename T, int BlockM, int BlockN, int Warps, int HeadDimBucket, int DvChunk, bool Sheared>
__device__ __forceinline__ void flashForward(const AttentionParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int kThreads = Warps * kWarpSize;
    constexpr int kRowsPerWarp = attention::rowsPerWarp(BlockM, Warps);
    constexpr int kComputeWarps = BlockM / kRowsPerWarp;
    constexpr int kMi = kRowsPerWarp / kMmaM;
    constexpr int kNf = BlockN / kMmaN;
    constexpr int kDf = DvChunk / kMmaN;

    const int headDimPad = HeadDimBucket > 0 ? HeadDimBucket : attention::roundHeadDim(p.headDim, attention::kSm120HeadDimMultiple);
    const int headDimVPad = HeadDimBucket > 0 ? HeadDimBucket : attention::roundHeadDim(p.headDimV, attention::kSm120HeadDimMultiple);
    const int qStride = headDimPad + (Sheared ? attention::kShearElements : 0);
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + BlockM * qStride;
    T* sV = sK + BlockN * headDimPad;

    const int tid = static_cast<int>(threadIdx.x), warp = tid / kWarpSize;
    const Lane l = device::laneCoordinates();
    const int row0 = static_cast<int>(blockIdx.x) * BlockM;
    const long long batch = blockIdx.y, head = blockIdx.z;
    const long long qPitch = static_cast<long long>(p.heads) * p.headDim;
    const long long vPitch = static_cast<long long>(p.heads) * p.headDimV;
    const T* q = static_cast<const T*>(p.q) + (batch * p.seqlenQ * p.heads + head) * p.headDim;
    const T* k = static_cast<const T*>(p.k) + (batch * p.seqlenK * p.heads + head) * p.headDim;
    const T* v = static_cast<const T*>(p.v) + (batch * p.seqlenK * p.heads + head) * p.headDimV;
    T* o = static_cast<T*>(p.o) + (batch * p.seqlenQ * p.heads + head) * p.headDimV;
    const bool causal = p.causal != 0;
    const float scaleLog2 = p.softmaxScale * kLog2e;
    const long long tiles = attention::keyTilesForBlock(row0, BlockM, BlockN, p.seqlenQ, p.seqlenK, causal);
    const int warpRow0 = warp * kRowsPerWarp;
    const bool computes = warp < kComputeWarps;

    loadTile(sQ, qStride, q, qPitch, row0, BlockM, p.seqlenQ, 0, headDimPad, p.headDim, kThreads);

    for (int dvBase = 0; dvBase < headDimVPad; dvBase += DvChunk) {
        const int dvCols = headDimVPad - dvBase < DvChunk ? headDimVPad - dvBase : DvChunk;
        float m[kMi][2], sum[kMi][2], acc[kMi][kDf][4];
#pragma unroll
        for (int mi = 0; mi < kMi; ++mi) {
            m[mi][0] = m[mi][1] = -INFINITY;
            sum[mi][0] = sum[mi][1] = 0.f;
#pragma unroll
            for (int df = 0; df < kDf; ++df) acc[mi][df][0] = acc[mi][df][1] = acc[mi][df][2] = acc[mi][df][3] = 0.f;
        }
        for (long long tile = 0; tile < tiles; ++tile) {
            const int key0 = static_cast<int>(tile) * BlockN;
            __syncthreads();  // the previous tile's K and V are consumed
            loadTile(sK, headDimPad, k, qPitch, key0, BlockN, p.seqlenK, 0, headDimPad, p.headDim, kThreads);
            loadTile(sV, headDimVPad, v, vPitch, key0, BlockN, p.seqlenK, dvBase, dvCols, p.headDimV, kThreads);
            __syncthreads();
            if (!computes) continue;

            float s[kMi][kNf][4];
#pragma unroll
            for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
                for (int nf = 0; nf < kNf; ++nf) s[mi][nf][0] = s[mi][nf][1] = s[mi][nf][2] = s[mi][nf][3] = 0.f;
            for (int ks = 0; ks < headDimPad; ks += kMmaK) {
#pragma unroll
                for (int mi = 0; mi < kMi; ++mi) {
                    std::uint32_t a[4];
                    device::loadA(a, sQ, qStride, warpRow0 + mi * kMmaM, ks, l);
#pragma unroll
                    for (int nf = 0; nf < kNf; ++nf) {
                        std::uint32_t b[2];
                        device::loadBnMajor(b, sK, headDimPad, nf * kMmaN, ks, l);
                        device::mma<T>(s[mi][nf], a, b);
                    }
                }
            }
            // Scale into the exp2 domain, mask, and update the running max and sum per row.
#pragma unroll
            for (int mi = 0; mi < kMi; ++mi) {
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    const int row = row0 + warpRow0 + mi * kMmaM + l.g + half * 8;
                    const long long lastKey = attention::lastVisibleKey(row, p.seqlenQ, p.seqlenK, causal);
                    float rowMax = -INFINITY;
#pragma unroll
                    for (int nf = 0; nf < kNf; ++nf)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const int key = key0 + nf * kMmaN + 2 * l.t + e;
                            float& x = s[mi][nf][half * 2 + e];
                            x = (key < p.seqlenK && key <= lastKey) ? x * scaleLog2 : -INFINITY;
                            rowMax = fmaxf(rowMax, x);
                        }
                    rowMax = fmaxf(rowMax, __shfl_xor_sync(0xffffffffu, rowMax, 1));
                    rowMax = fmaxf(rowMax, __shfl_xor_sync(0xffffffffu, rowMax, 2));
                    const float newMax = fmaxf(m[mi][half], rowMax);
                    const float base = newMax == -INFINITY ? 0.f : newMax;  // a fully masked row stays at zero
                    const float correction = exp2f(m[mi][half] - base);
                    float partial = 0.f;
#pragma unroll
                    for (int nf = 0; nf < kNf; ++nf)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            float& x = s[mi][nf][half * 2 + e];
                            x = exp2f(x - base);
                            partial += x;
                        }
                    sum[mi][half] = sum[mi][half] * correction + partial;
                    m[mi][half] = newMax;
#pragma unroll
                    for (int df = 0; df < kDf; ++df) {
                        acc[mi][df][half * 2] *= correction;
                        acc[mi][df][half * 2 + 1] *= correction;
                    }
                }
            }
            // O += P V: the S accumulators of two n8 tiles form one A fragment of P.
#pragma unroll
            for (int kk = 0; kk < BlockN / kMmaK; ++kk) {
#pragma unroll
                for (int mi = 0; mi < kMi; ++mi) {
                    const std::uint32_t a[4] = {device::packPair<T>(s[mi][2 * kk][0], s[mi][2 * kk][1]),
                                                device::packPair<T>(s[mi][2 * kk][2], s[mi][2 * kk][3]),
                                                device::packPair<T>(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1]),
                                                device::packPair<T>(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3])};
#pragma unroll
                    for (int df = 0; df < kDf; ++df) {
                        if (df * kMmaN >= dvCols) break;
                        std::uint32_t b[2];
                        device::loadBkMajor(b, sV, headDimVPad, dvBase + df * kMmaN, kk * kMmaK, l);
                        device::mma<T>(acc[mi][df], a, b);
                    }
                }
            }
        }
        if (!computes) continue;
#pragma unroll
        for (int mi = 0; mi < kMi; ++mi) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                float total = sum[mi][half];
                total += __shfl_xor_sync(0xffffffffu, total, 1);
                total += __shfl_xor_sync(0xffffffffu, total, 2);
                const int row = row0 + warpRow0 + mi * kMmaM + l.g + half * 8;
                if (row >= p.seqlenQ) continue;
                const float inverse = total > 0.f ? 1.f / total : 0.f;
#pragma unroll
                for (int df = 0; df < kDf; ++df) {
                    for (int e = 0; e < 2; ++e) {
                        const int col = dvBase + df * kMmaN + 2 * l.t + e;
                        if (col < p.headDimV && df * kMmaN < dvCols)
                            o[static_cast<long long>(row) * vPitch + col] = device::fromFloat<T>(acc[mi][df][half * 2 + e] * inverse);
                    }
                }
                if (dvBase == 0 && l.t == 0)
                    p.lse[(batch * p.heads + head) * p.seqlenQ + row] =
                        total > 0.f ? m[mi][half] / kLog2e + logf(total) : INFINITY;
            }
        }
    }
#else
    (void)p;
    __trap();  // the planners refuse attention below sm_80 (unsupported_device)
#endif
}

}  // namespace attention_detail
}  // namespace tilescope


// Every attention kernel: FA2 head-dim buckets and tiles (kernel_traits.h: d, kBlockM, kBlockN,
// warps) and the SM120 search tiles (any head dims, 4 warps, V in 64-column passes).
// FA2(name, d, m, n, warps) / SM120(name, m, n, sheared)
#define TILESCOPE_ATTENTION_KERNELS(FA2, SM120)          \
    FA2(flash_fwd_d32_m128n128w4, 32, 128, 128, 4)      \
    FA2(flash_fwd_d64_m128n128w4, 64, 128, 128, 4)      \
    FA2(flash_fwd_d96_m128n64w4, 96, 128, 64, 4)        \
    FA2(flash_fwd_d128_m128n64w4, 128, 128, 64, 4)      \
    FA2(flash_fwd_d128_m128n32w4, 128, 128, 32, 4)      \
    FA2(flash_fwd_d128_m64n64w4, 128, 64, 64, 4)        \
    FA2(flash_fwd_d192_m128n64w8, 192, 128, 64, 8)      \
    FA2(flash_fwd_d256_m128n64w8, 256, 128, 64, 8)      \
    FA2(flash_fwd_d256_m64n64w4, 256, 64, 64, 4)        \
    SM120(flash_fwd_sm120_m128n128, 128, 128, false)    \
    SM120(flash_fwd_sm120_m128n64, 128, 64, false)      \
    SM120(flash_fwd_sm120_m64n64, 64, 64, false)        \
    SM120(flash_fwd_sm120_m64n64_sheared, 64, 64, true) \
    SM120(flash_fwd_sm120_m64n48_sheared, 64, 48, true) \
    SM120(flash_fwd_sm120_m48n64_sheared, 48, 64, true) \
    SM120(flash_fwd_sm120_m32n64_sheared, 32, 64, true)


// Split-KV FlashAttention forward and its combine (the design of flash-attention v2.8.3's
// flash_fwd_splitkv_kernel / flash_fwd_splitkv_combine_kernel; the code is ours), shared by
// split_kv.cu (fp16) and split_kv_bf16.cu (bf16).
//
// splitKvForward: one CTA = 64 query rows x one split's share of the K/V blocks of one (batch,
// head); 4 warps, one 16-row strip each. Q, K and V tiles are Swizzled in shared memory
// (split_kv_index.h) and read with ldmatrix.x4 (.trans for V); K/V arrive by 16-byte cp.async
// with zero fill: V's copy is issued before Q K^T and the next K's right after it, into the same
// buffers (upstream's order), so a load is always in flight behind the math. Shared memory is
// exactly the planner's claim, (64 + 2 kBlockN) x d x 2 B. Split: fp32 O and LSE per split into
// out_accum / lse_accum; !Split (grid (m, batch, heads)): O and LSE directly.
//
// splitKvCombine: Rows flat rows (batch, head, query) per CTA, 128 threads: log-sum-exp of the
// splits' LSEs, then O = sum_s exp(lse_s - lse) O_s in float4 loads; writes O and the final LSE.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/attention_index.h"
#include "kernels/attention/params.h"
#include "kernels/attention/split_kv_index.h"
#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace split_kv_detail {

using device::Lane;

constexpr int kWarpSize = 32;
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
constexpr int kThreads = attention::kSplitKvThreads;
constexpr int kBlockM = attention::kSplitKvBlockM;
constexpr int kChunk = attention::kChunkElements;
constexpr float kLog2e = 1.4426950408889634f;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ std::uint32_t sharedAddress(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// 16-byte cp.async; valid == false zero-fills the destination without reading global memory.
__device__ __forceinline__ void copyChunk(void* shared, const void* global, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddress(shared)), "l"(global), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commitGroup() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void waitAll() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

__device__ __forceinline__ void ldmatrixX4(std::uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(sharedAddress(p)));
}
__device__ __forceinline__ void ldmatrixX4Trans(std::uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(sharedAddress(p)));
}

// Rows [row0, row0 + Rows) of a [seq, heads, dim] slice (row pitch `pitch`) into a swizzled
// [Rows][D] tile; rows >= rowLimit and columns >= dim are zero-filled. Consecutive threads take
// consecutive chunks of a row: each row is one contiguous 2*D-byte read.
template <typename T, int Rows, int D>
__device__ __forceinline__ void loadTile(T* tile, const T* src, long long pitch, long long row0, long long rowLimit, int dim) {
    constexpr int kChunksPerRow = D / kChunk;
    constexpr int kChunks = Rows * kChunksPerRow;
    static_assert(kChunks % kThreads == 0, "every thread copies the same number of chunks");
    const int tid = static_cast<int>(threadIdx.x);
    // Not unrolled: unrolled, the compiler keeps every copy's 64-bit address live across the K/V loop.
#pragma unroll 1
    for (int i = 0; i < kChunks / kThreads; ++i) {
        const int c = tid + i * kThreads;
        const int r = c / kChunksPerRow, chunk = c % kChunksPerRow;
        const bool valid = row0 + r < rowLimit && chunk * kChunk < dim;
        const T* from = valid ? src + (row0 + r) * pitch + chunk * kChunk : src;
        copyChunk(tile + r * D + attention::splitKvSwizzledChunk(r, chunk, kChunksPerRow) * kChunk, from, valid);
    }
}
#endif

template <typename T, int D, int BlockN, bool Split>
__device__ __forceinline__ void splitKvForward(const AttentionParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    static_assert(D % 32 == 0 && BlockN % 16 == 0, "head-dim bucket and key block");
    constexpr int kChunksPerRow = D / kChunk;
    constexpr int kNf = BlockN / kMmaN;  // n8 tiles of S
    constexpr int kDf = D / kMmaN;       // n8 tiles of O
    extern __shared__ __align__(128) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + kBlockM * D;
    T* sV = sK + BlockN * D;

    const int tid = static_cast<int>(threadIdx.x), warp = tid / kWarpSize, lane = tid % kWarpSize;
    const Lane l = device::laneCoordinates();
    const int mBlock = static_cast<int>(blockIdx.x);
    const int split = Split ? static_cast<int>(blockIdx.y) : 0;
    const int numSplits = Split ? static_cast<int>(gridDim.y) : 1;
    const long long batch = Split ? static_cast<long long>(blockIdx.z) / p.heads : blockIdx.y;
    const long long head = Split ? static_cast<long long>(blockIdx.z) % p.heads : blockIdx.z;
    const long long row0 = static_cast<long long>(mBlock) * kBlockM;
    const bool causal = p.causal != 0;
    const long long kPitch = static_cast<long long>(p.heads) * p.headDim;
    const long long vPitch = static_cast<long long>(p.heads) * p.headDimV;
    const T* q = static_cast<const T*>(p.q) + (batch * p.seqlenQ * p.heads + head) * p.headDim;
    const T* k = static_cast<const T*>(p.k) + (batch * p.seqlenK * p.heads + head) * p.headDim;
    const T* v = static_cast<const T*>(p.v) + (batch * p.seqlenK * p.heads + head) * p.headDimV;

    attention::KeyBlockRange range = attention::splitKeyBlocks(p.seqlenK, BlockN, split, numSplits);
    const long long causalEnd = attention::keyTilesForBlock(row0, kBlockM, BlockN, p.seqlenQ, p.seqlenK, causal);
    if (causalEnd < range.end) range.end = causalEnd;

    // This warp's 16 rows; a strip entirely past seqlen_q does no math (decode: warp 0 only).
    const int warpRow0 = warp * kMmaM;
    const bool computes = row0 + warpRow0 < p.seqlenQ;
    float acc[kDf][4];
    float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.f, 0.f};
#pragma unroll
    for (int df = 0; df < kDf; ++df) acc[df][0] = acc[df][1] = acc[df][2] = acc[df][3] = 0.f;

    const float scaleLog2 = p.softmaxScale * kLog2e;
    if (range.begin < range.end) {
        loadTile<T, kBlockM, D>(sQ, q, kPitch, row0, p.seqlenQ, p.headDim);
        loadTile<T, BlockN, D>(sK, k, kPitch, range.begin * BlockN, p.seqlenK, p.headDim);
        commitGroup();
    }
    // ldmatrix lane addresses: A (Q) rows lane % 16, chunk + lane / 16; B (K) rows lane % 8 (+8 for
    // matrices 2, 3), chunk + matrix % 2; V (.trans) keys lane % 8 (+8 for matrices 1, 3), chunk + matrix / 2.
    // Every row a lane addresses is = lane % 8 (mod 8), and the swizzle reads no other row bits, so a
    // lane's physical chunk depends only on the logical chunk's place in its group: a few offsets per
    // lane, with the rest of each address a compile-time constant.
    const int matrix = lane / 8, inMatrix = lane % 8;
    constexpr int kGroup = kChunksPerRow % 8 == 0 ? 8 : 4;  // chunks one swizzle group permutes
    constexpr int kPairs = kGroup / 2;                      // ldmatrix steps (two chunks each) per group
    auto qOffset = [&](int i) { return attention::splitKvSwizzledChunk(inMatrix, 2 * i + lane / 16, kChunksPerRow) * kChunk; };
    auto kOffset = [&](int i) { return attention::splitKvSwizzledChunk(inMatrix, 2 * i + matrix % 2, kChunksPerRow) * kChunk; };
    auto vOffset = [&](int i) { return attention::splitKvSwizzledChunk(inMatrix, 2 * i + matrix / 2, kChunksPerRow) * kChunk; };
    const T* qLane = sQ + (warpRow0 + lane % 16) * D;
    const T* kLane = sK + (inMatrix + (matrix / 2) * 8) * D;
    const T* vLane = sV + (inMatrix + (matrix % 2) * 8) * D;
    for (long long block = range.begin; block < range.end; ++block) {
        const long long key0 = block * BlockN;
        waitAll();
        __syncthreads();  // K[block] (and Q) landed; every warp is done with V[block - 1]
        loadTile<T, BlockN, D>(sV, v, vPitch, key0, p.seqlenK, p.headDimV);
        commitGroup();

        float s[kNf][4];
#pragma unroll
        for (int nf = 0; nf < kNf; ++nf) s[nf][0] = s[nf][1] = s[nf][2] = s[nf][3] = 0.f;
        if (computes) {
#pragma unroll
            for (int ks = 0; ks < D / kMmaK; ++ks) {
                const int group = (ks / kPairs) * kGroup * kChunk;
                std::uint32_t a[4];
                ldmatrixX4(a, qLane + group + qOffset(ks % kPairs));
#pragma unroll
                for (int nf = 0; nf < kNf; nf += 2) {
                    std::uint32_t b[4];
                    ldmatrixX4(b, kLane + nf * kMmaN * D + group + kOffset(ks % kPairs));
                    const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
                    device::mma<T>(s[nf], a, b0);
                    device::mma<T>(s[nf + 1], a, b1);
                }
            }
        }
        waitAll();
        __syncthreads();  // V[block] landed; every warp is done with K[block]
        if (block + 1 < range.end) {
            loadTile<T, BlockN, D>(sK, k, kPitch, key0 + BlockN, p.seqlenK, p.headDim);
            commitGroup();
        }
        if (!computes) continue;

        // Only blocks that cross seqlen_k or the causal diagonal are masked.
        const bool masked = key0 + BlockN > p.seqlenK || (causal && key0 + BlockN - 1 > row0 + warpRow0 + p.seqlenK - p.seqlenQ);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            // Column nf * 8 + e of this thread (key key0 + nf * 8 + 2t + e) is visible when <= limit.
            int limit = BlockN;
            if (masked) {
                const long long row = row0 + warpRow0 + l.g + half * 8;
                long long last = attention::lastVisibleKey(row, p.seqlenQ, p.seqlenK, causal);
                if (last > p.seqlenK - 1) last = p.seqlenK - 1;
                last -= key0 + 2 * l.t;
                limit = last < -1 ? -1 : (last > BlockN ? BlockN : static_cast<int>(last));
            }
            float tileMax = -INFINITY;
#pragma unroll
            for (int nf = 0; nf < kNf; ++nf)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    float& x = s[nf][half * 2 + e];
                    x = nf * kMmaN + e <= limit ? x * scaleLog2 : -INFINITY;
                    tileMax = fmaxf(tileMax, x);
                }
            tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 1));
            tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 2));
            const float newMax = fmaxf(rowMax[half], tileMax);
            const float base = newMax == -INFINITY ? 0.f : newMax;  // a row with no key yet stays at zero
            const float correction = exp2f(rowMax[half] - base);
            float partial = 0.f;
#pragma unroll
            for (int nf = 0; nf < kNf; ++nf)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    float& x = s[nf][half * 2 + e];
                    x = exp2f(x - base);
                    partial += x;
                }
            rowSum[half] = rowSum[half] * correction + partial;
            rowMax[half] = newMax;
#pragma unroll
            for (int df = 0; df < kDf; ++df) {
                acc[df][half * 2] *= correction;
                acc[df][half * 2 + 1] *= correction;
            }
        }
        // O += P V: two n8 tiles of S form one A fragment of P; V fragments by ldmatrix.trans.
#pragma unroll
        for (int kk = 0; kk < BlockN / kMmaK; ++kk) {
            const std::uint32_t a[4] = {device::packPair<T>(s[2 * kk][0], s[2 * kk][1]), device::packPair<T>(s[2 * kk][2], s[2 * kk][3]),
                                        device::packPair<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                        device::packPair<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int df = 0; df < kDf; df += 2) {
                std::uint32_t b[4];
                ldmatrixX4Trans(b, vLane + kk * kMmaK * D + (df / kGroup) * kGroup * kChunk + vOffset((df % kGroup) / 2));
                const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
                device::mma<T>(acc[df], a, b0);
                device::mma<T>(acc[df + 1], a, b1);
            }
        }
    }
    if (!computes) return;

        // Normalise and write: Split -> out_accum / lse_accum (fp32, d_rounded columns, LSE -inf for
        // no keys); !Split -> O in T (head_dim_v columns) and LSE (+inf for no keys), as upstream.
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        float total = rowSum[half];
        total += __shfl_xor_sync(0xffffffffu, total, 1);
        total += __shfl_xor_sync(0xffffffffu, total, 2);
        const long long query = row0 + warpRow0 + l.g + half * 8;
        if (query >= p.seqlenQ) continue;
        const float inverse = total > 0.f ? 1.f / total : 0.f;
        const float lse = total > 0.f ? rowMax[half] / kLog2e + logf(total) : (Split ? -INFINITY : INFINITY);
        if (Split) {
            const long long accumRow = attention::accumRow(split, batch, head, query, p.batch, p.heads, p.seqlenQ);
            float* out = p.oAccum + accumRow * p.headDimRounded;
#pragma unroll
            for (int df = 0; df < kDf; ++df)
                *reinterpret_cast<float2*>(out + df * kMmaN + 2 * l.t) =
                    make_float2(acc[df][half * 2] * inverse, acc[df][half * 2 + 1] * inverse);
            if (l.t == 0) p.lseAccum[accumRow] = lse;
        } else {
            T* out = static_cast<T*>(p.o) + ((batch * p.seqlenQ + query) * p.heads + head) * p.headDimV;
#pragma unroll
            for (int df = 0; df < kDf; ++df) {
                const int col = df * kMmaN + 2 * l.t;
                if (col < p.headDimV)
                    *reinterpret_cast<std::uint32_t*>(out + col) =
                        device::packPair<T>(acc[df][half * 2] * inverse, acc[df][half * 2 + 1] * inverse);
            }
            if (l.t == 0) p.lse[(batch * p.heads + head) * p.seqlenQ + query] = lse;
        }
    }
#else
    (void)p;
    __trap();  // the planner refuses attention below sm_80 (unsupported_device)
#endif
}

template <typename T, int Rows>
__device__ __forceinline__ void splitKvCombine(const AttentionParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int kThreadsPerRow = kThreads / Rows;  // 32, 16 or 8: a row's threads share one warp
    constexpr int kStride = Rows + 1;                // (kBlockM + 1): fewer bank conflicts
    static_assert(kThreadsPerRow <= kWarpSize && kWarpSize % kThreadsPerRow == 0, "row groups inside a warp");
    extern __shared__ float sLse[];  // [combineMaxSplits(splits)][Rows + 1], the planner's dynamic smem
    const int tid = static_cast<int>(threadIdx.x);
    const int splits = p.numSplits;
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlenQ;
    const long long row0 = static_cast<long long>(blockIdx.x) * Rows;

    for (int i = tid; i < splits * Rows; i += kThreads) {
        const int s = i / Rows, r = i % Rows;
        sLse[s * kStride + r] = row0 + r < rows ? p.lseAccum[s * rows + row0 + r] : -INFINITY;
    }
    __syncthreads();

    const int r = tid / kThreadsPerRow, j = tid % kThreadsPerRow;
    float lseMax = -INFINITY;
    for (int s = j; s < splits; s += kThreadsPerRow) lseMax = fmaxf(lseMax, sLse[s * kStride + r]);
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2) lseMax = fmaxf(lseMax, __shfl_xor_sync(0xffffffffu, lseMax, offset));
    if (lseMax == -INFINITY) lseMax = 0.f;  // every split empty
    float sum = 0.f;
    for (int s = j; s < splits; s += kThreadsPerRow) sum += expf(sLse[s * kStride + r] - lseMax);
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const float lse = (sum == 0.f || sum != sum) ? INFINITY : logf(sum) + lseMax;
    __syncthreads();  // every thread has read the LSEs; each now rewrites only its own entries
    for (int s = j; s < splits; s += kThreadsPerRow) sLse[s * kStride + r] = expf(sLse[s * kStride + r] - lse);
    if (j == 0 && row0 + r < rows) p.lse[row0 + r] = lse;
    __syncthreads();

    const int vectorsPerRow = p.headDimRounded / 4;
    for (int i = tid; i < Rows * vectorsPerRow; i += kThreads) {
        const int rr = i / vectorsPerRow, col = (i % vectorsPerRow) * 4;
        const long long flat = row0 + rr;
        if (flat >= rows || col >= p.headDimV) continue;
        float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int s = 0; s < splits; ++s) {
            const float scale = sLse[s * kStride + rr];
            const float4 x = *reinterpret_cast<const float4*>(p.oAccum + (s * rows + flat) * p.headDimRounded + col);
            o.x += scale * x.x;
            o.y += scale * x.y;
            o.z += scale * x.z;
            o.w += scale * x.w;
        }
        T* out = static_cast<T*>(p.o) + attention::outputRowOfFlatRow(flat, p.heads, p.seqlenQ) * p.headDimV + col;
        const uint2 packed = make_uint2(device::packPair<T>(o.x, o.y), device::packPair<T>(o.z, o.w));
        *reinterpret_cast<uint2*>(out) = packed;
    }
#else
    (void)p;
    __trap();
#endif
}

}  // namespace split_kv_detail
}  // namespace tilescope

// Split-KV kernels per head-dim bucket (run_mha_fwd_splitkv_dispatch: kBlockM 64, kBlockN 256 up
// to d64, 128 up to d128, else 64) and the combine per rows per CTA (4 when d % 128 == 0, 8 when
// d % 64 == 0, else 16). SPLIT(name, d, kBlockN) / COMBINE(name, rows)
#define TILESCOPE_SPLIT_KV_KERNELS(SPLIT, COMBINE)    \
    SPLIT(flash_fwd_splitkv_d32_m64n256w4, 32, 256)   \
    SPLIT(flash_fwd_splitkv_d64_m64n256w4, 64, 256)   \
    SPLIT(flash_fwd_splitkv_d96_m64n128w4, 96, 128)   \
    SPLIT(flash_fwd_splitkv_d128_m64n128w4, 128, 128) \
    SPLIT(flash_fwd_splitkv_d192_m64n64w4, 192, 64)   \
    SPLIT(flash_fwd_splitkv_d256_m64n64w4, 256, 64)   \
    COMBINE(flash_fwd_splitkv_combine_m4, 4)          \
    COMBINE(flash_fwd_splitkv_combine_m8, 8)          \
    COMBINE(flash_fwd_splitkv_combine_m16, 16)

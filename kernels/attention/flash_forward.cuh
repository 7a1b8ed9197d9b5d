// The FlashAttention-2 style forward shared by kernel.cu (fp16) and kernel_bf16.cu (bf16), split so
// that the two instantiation sets compile in parallel.
//
// Design (the technique of flash-attention v2.8.3 flash_fwd_kernel.h / kernel_traits.h; our code):
// - Q (BlockM rows), K and V (BlockN rows each) live in shared memory in the swizzled layout of
//   attention_index.h (column atoms of 16/32/64 elements, the 16-byte chunk XORed by the row), so
//   every ldmatrix 8x8 matrix reads 8 rows from 8 different bank groups.
// - Fragments come from ldmatrix.x4 (Q as A, K as B) and ldmatrix.x4.trans (V as B). Each warp
//   loads each K and V fragment once per K/V tile; Q fragments are re-read per tile (upstream).
// - cp.async (16 B, .cg) with src-size 0 zero-fills rows past seqlen and columns past head_dim.
//   Per K/V tile: wait for K, issue V, S = Q K^T, mask and softmax, wait for V, issue the next K
//   (same buffer), O += P V: the V copy overlaps QK^T and softmax, the next K overlaps PV. (Upstream
//   waits for V before its softmax; softmax first keeps S and the next K's copy state from being
//   live together, which is what keeps the 128-row tiles within 255 registers without spills.)
// - Online softmax in registers: row max on the raw scores, ex2.approx with the scale folded into one
//   FFMA (scale * log2 e; softmax_scale > 0 as upstream assumes), row sums kept per thread and
//   reduced over the 4 lanes of a row once at the end. P goes from the S accumulators straight to
//   fp16/bf16 A fragments (no shared-memory round trip).
// - One CTA of 4 warps per SM at the common geometries (255 registers) leaves one warp per
//   scheduler, so the FA2 loops are written for instruction-level parallelism: QK^T and PV fully
//   unrolled with each ldmatrix issued one fragment ahead of the MMAs it feeds (upstream's gemm
//   double-buffers the fragments of k-step k + 1 the same way), PV with consecutive MMAs on
//   different accumulators, the softmax's row maxima as trees with all rows' shuffles together.
// - Only tiles that cross the causal diagonal or the seqlen_k edge are masked.
// - HeadDimBucket > 0 (FA2): compile-time head dim; DvMax == bucket, one pass. HeadDimBucket == 0
//   (SM120 search): runtime head dims rounded up to 16, S computed once per K/V tile for up to
//   DvMax value columns (the accumulators of the full head_dim_v whenever head_dim_v <= DvMax);
//   wider head_dim_v repeats the whole pass per DvMax columns. Head dims that are not a multiple of
//   8 (SM120 only) are copied element by element (no 16-byte alignment).
// - Output: natural-log lse per row (+inf for a row that sees no key, whose output is 0).
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

using attention::RowChunk;
using attention::swizzledChunk;

[[maybe_unused]] constexpr int kWarpSize = 32;
[[maybe_unused]] constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
[[maybe_unused]] constexpr int kChunkElements = 8;  // fp16/bf16 elements per 16-byte chunk
[[maybe_unused]] constexpr int kChunkBytes = 16;
[[maybe_unused]] constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ std::uint32_t sharedAddress(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// 16-byte global -> shared copy; valid == false writes 16 zero bytes and reads nothing.
__device__ __forceinline__ void copyChunkAsync(std::uint32_t dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
#else
    (void)dst;
    (void)src;
    (void)valid;
#endif
}
__device__ __forceinline__ void commitCopies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void waitCopies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// 2^x in one MUFU.EX2 (ex2.approx.ftz: 2^-inf = +0; what upstream gets from --use_fast_math).
__device__ __forceinline__ float fastExp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// Copies logical rows [rowStart, rowStart + Rows) x chunks [0, chunks) of a [seq, heads, dim]
// slice (row pitch `pitch` elements) into a swizzled tile (atoms of 2^Log chunks); rows >=
// rowLimit and columns >= dim become zero. vector (dim % 8 == 0: 16-byte aligned rows): cp.async,
// thread tid copying chunk tid % 2^Log of rows tid >> Log + multiples of Threads >> Log in each
// atom, its shared address one per-thread base plus a compile-time offset (attention_index.h).
// Otherwise element by element with plain loads and stores (SM120 odd head dims only).
//
// FixedChunks > 0 (FA2: the bucket's chunks, always vector): a compile-time trip count, one source
// pointer advanced per row step and the row bound one compare per step (fewer instructions than
// the runtime loops, which matter at one warp per scheduler). Both loops stay rolled: unrolled,
// their addresses spilled the d128 m128n64 kernel (sm_90: 16 B; the atom loop alone, sm_100: 8 B).
template <typename T, int Rows, int Threads, int Log, int FixedChunks = 0>
__device__ __forceinline__ void loadTile(std::uint32_t tileAddress, T* tile, const T* src, long long pitch, int rowStart, int rowLimit,
                                         int chunks, int dim, bool vector) {
    constexpr int kAtomChunks = 1 << Log, kRowsPerStep = Threads >> Log;
    const int tid = static_cast<int>(threadIdx.x);
    if constexpr (FixedChunks > 0) {
        (void)tile;
        (void)chunks;
        (void)vector;
        constexpr int kRowSteps = (Rows + kRowsPerStep - 1) / kRowsPerStep;
        const RowChunk me = attention::copyLane(tid, Log);
        const std::uint32_t mine = tileAddress + kChunkBytes * swizzledChunk(me.row, me.chunk, Rows, Log);
        const long long stepPitch = kRowsPerStep * pitch;
        const T* from = src + static_cast<long long>(rowStart + me.row) * pitch + me.chunk * kChunkElements;
        const int rowsLeft = rowLimit - rowStart - me.row;  // this thread's rows r < rowsLeft are in range
#pragma unroll 1
        for (int step = 0; step < kRowSteps; ++step, from += stepPitch) {
            const int rowStep = step * kRowsPerStep;
            if (Rows % kRowsPerStep != 0 && rowStep + me.row >= Rows) break;
            const bool rowValid = rowStep < rowsLeft;
#pragma unroll 1
            for (int atomChunk = 0; atomChunk < FixedChunks; atomChunk += kAtomChunks) {
                const bool valid = rowValid && (atomChunk + me.chunk) * kChunkElements < dim;
                copyChunkAsync(mine + kChunkBytes * attention::blockChunkOffset(rowStep, atomChunk, Rows, Log),
                               valid ? from + atomChunk * kChunkElements : src, valid);
            }
        }
        return;
    }
    if (vector) {
        const RowChunk me = attention::copyLane(tid, Log);
        const std::uint32_t mine = tileAddress + kChunkBytes * swizzledChunk(me.row, me.chunk, Rows, Log);
        const long long stepPitch = kRowsPerStep * pitch;
        const T* from = src + static_cast<long long>(rowStart + me.row) * pitch + me.chunk * kChunkElements;
        // Row steps in a rolled loop (one pointer, one shared address), atoms unrolled inside.
#pragma unroll 1
        for (int rowStep = 0; rowStep < Rows; rowStep += kRowsPerStep, from += stepPitch) {
            const int row = rowStep + me.row;
            if (Rows % kRowsPerStep != 0 && row >= Rows) break;
            const bool rowValid = rowStart + row < rowLimit;
            const std::uint32_t to = mine + kChunkBytes * attention::blockChunkOffset(rowStep, 0, Rows, Log);
#pragma unroll 1
            for (int atomChunk = 0; atomChunk < chunks; atomChunk += kAtomChunks) {
                const bool valid = rowValid && (atomChunk + me.chunk) * kChunkElements < dim;
                copyChunkAsync(to + kChunkBytes * attention::blockChunkOffset(0, atomChunk, Rows, Log),
                               valid ? from + atomChunk * kChunkElements : src, valid);
            }
        }
    } else {
        for (int i = tid; i < Rows * chunks * kChunkElements; i += Threads) {
            const RowChunk rc = attention::copyCoordinates(i / kChunkElements, Rows, Log);
            const int row = rowStart + rc.row, col = rc.chunk * kChunkElements + i % kChunkElements;
            tile[swizzledChunk(rc.row, rc.chunk, Rows, Log) * kChunkElements + i % kChunkElements] =
                row < rowLimit && col < dim ? src[static_cast<long long>(row) * pitch + col] : device::fromFloat<T>(0.f);
        }
    }
}

// A lane's ldmatrix offsets in swizzled tiles: one per even in-atom chunk; the address of the
// lane's row in the 16-row x 2-chunk block at (row0, chunk0) of a tile (row0 % 8 == 0, chunk0
// even) is tile + offset + a compile-time offset (attention_index.h blockChunkOffset; equal to
// swizzledChunk, tested on the host). Inside atom 0 the offsets do not depend on the tile's row
// count, so Q and V (same lane mapping) share them.
template <int Log>
struct LaneOffsets {
    static constexpr int kAtomChunks = 1 << Log, kOffsets = kAtomChunks / 2;
    std::uint32_t offset[kOffsets];
    __device__ __forceinline__ explicit LaneOffsets(RowChunk lane) {
#pragma unroll
        for (int i = 0; i < kOffsets; ++i) offset[i] = kChunkBytes * swizzledChunk(lane.row, 2 * i + lane.chunk, 8, Log);
    }
    __device__ __forceinline__ std::uint32_t at(std::uint32_t tile, int rows, int row0, int chunk0) const {
        return tile + offset[(chunk0 & (kAtomChunks - 1)) >> 1] + kChunkBytes * attention::blockChunkOffset(row0, chunk0, rows, Log);
    }
};

template <typename T, int BlockM, int BlockN, int Warps, int HeadDimBucket, int DvMax>
__device__ __forceinline__ void flashForward(const AttentionParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr bool kFa2 = HeadDimBucket > 0;
    constexpr int kThreads = Warps * kWarpSize;
    constexpr int kRowsPerWarp = attention::rowsPerWarp(BlockM, Warps);
    constexpr int kComputeWarps = BlockM / kRowsPerWarp;
    constexpr int kMi = kRowsPerWarp / kMmaM;
    constexpr int kNf = BlockN / kMmaN;
    constexpr int kDf = DvMax / kMmaN;
    static_assert(BlockM % 8 == 0 && BlockN % 16 == 0 && DvMax % 16 == 0, "ldmatrix tiles are 16 rows / 16 columns");
    static_assert(kRowsPerWarp % kMmaM == 0 && BlockM % kRowsPerWarp == 0, "warps own whole m16 tiles");

    // FA2: the widest atom of its bucket (Swizzle<3,3,3> / <2,3,3>: 64 / 128-byte copy runs per
    // row); SM120 and tiles whose S takes 128 registers (two m16 tiles x 128 keys per warp):
    // 16-element atoms, which fit every head dim rounded to 16 and need one lane offset instead of
    // four (no spills). Every choice is conflict-free for ldmatrix (attention_swizzle_test).
    constexpr int kLog = kFa2 && kMi * BlockN < 256 ? attention::logAtomFor(kFa2 ? HeadDimBucket : 16) : 1;
    constexpr int kFixedChunks = kFa2 ? HeadDimBucket / kChunkElements : 0;
    // The pipelined QK^T (FA2) where S leaves room for its extra fragments: not the 128-key tiles
    // of two m16 tiles per warp (S alone is 128 registers there; sm_80 spilled).
    constexpr bool kPipelinedQK = kFa2 && kMi * BlockN < 256;
    constexpr int kAtomChunks = 1 << kLog;
    // Head dims as stored: the FA2 bucket, or the SM120 rounding to 16 (both multiples of 16).
    const int dPad = kFa2 ? HeadDimBucket : attention::roundHeadDim(p.headDim, attention::kSm120HeadDimMultiple);
    const int dvPad = kFa2 ? HeadDimBucket : attention::roundHeadDim(p.headDimV, attention::kSm120HeadDimMultiple);
    const int qkChunks = kFa2 ? kFixedChunks : dPad / kChunkElements;
    const int vChunks = kFa2 ? kFixedChunks : dvPad / kChunkElements;
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = sQ + BlockM * dPad;
    T* sV = sK + BlockN * dPad;
    const std::uint32_t sQAddress = sharedAddress(sQ), sKAddress = sharedAddress(sK), sVAddress = sharedAddress(sV);

    const int tid = static_cast<int>(threadIdx.x), warp = tid / kWarpSize, lane = tid % kWarpSize;
    const int g = lane / 4, t = lane % 4;  // mma C fragment: rows g, g + 8; columns 2t, 2t + 1
    static_assert(attention::ldmatrixA(9).row == attention::ldmatrixBTrans(9).row &&
                      attention::ldmatrixA(17).chunk == attention::ldmatrixBTrans(17).chunk,
                  "Q (A) and V (B, transposed) use the same lane mapping");
    const LaneOffsets<kLog> laneQV(attention::ldmatrixA(lane)), laneK(attention::ldmatrixBFromRows(lane));
    const int row0 = static_cast<int>(blockIdx.x) * BlockM;
    const long long batch = blockIdx.y, head = blockIdx.z;
    const long long qPitch = static_cast<long long>(p.heads) * p.headDim;
    const long long vPitch = kFa2 ? qPitch : static_cast<long long>(p.heads) * p.headDimV;  // FA2: head_dim_v == head_dim
    const T* q = static_cast<const T*>(p.q) + (batch * p.seqlenQ * p.heads + head) * p.headDim;
    const T* k = static_cast<const T*>(p.k) + (batch * p.seqlenK * p.heads + head) * p.headDim;
    const int headDimV = kFa2 ? p.headDim : p.headDimV;
    const T* v = static_cast<const T*>(p.v) + (batch * p.seqlenK * p.heads + head) * headDimV;
    T* o = static_cast<T*>(p.o) + (batch * p.seqlenQ * p.heads + head) * headDimV;
    const bool vectorQK = kFa2 || p.headDim % kChunkElements == 0;
    const bool vectorV = kFa2 || p.headDimV % kChunkElements == 0;
    const bool causal = p.causal != 0;
    const float scaleLog2 = p.softmaxScale * kLog2e;
    const int tiles = static_cast<int>(attention::keyTilesForBlock(row0, BlockM, BlockN, p.seqlenQ, p.seqlenK, causal));
    const int warpRow0 = warp * kRowsPerWarp;
    const bool computes = kComputeWarps == Warps || warp < kComputeWarps;

    for (int dvBase = 0; dvBase < dvPad; dvBase += DvMax) {
        const int dvCols = dvPad - dvBase < DvMax ? dvPad - dvBase : DvMax;  // a multiple of 16
        if (tiles > 0) {
            if (dvBase == 0)
                loadTile<T, BlockM, kThreads, kLog, kFixedChunks>(sQAddress, sQ, q, qPitch, row0, p.seqlenQ, qkChunks, p.headDim, vectorQK);
            loadTile<T, BlockN, kThreads, kLog, kFixedChunks>(sKAddress, sK, k, qPitch, 0, p.seqlenK, qkChunks, p.headDim, vectorQK);
            commitCopies();
        }
        float rowMaxRaw[kMi][2], rowSum[kMi][2], acc[kMi][kDf][4];
#pragma unroll
        for (int mi = 0; mi < kMi; ++mi) {
            rowMaxRaw[mi][0] = rowMaxRaw[mi][1] = -INFINITY;
            rowSum[mi][0] = rowSum[mi][1] = 0.f;
#pragma unroll
            for (int df = 0; df < kDf; ++df) acc[mi][df][0] = acc[mi][df][1] = acc[mi][df][2] = acc[mi][df][3] = 0.f;
        }

        for (int tile = 0; tile < tiles; ++tile) {
            const int key0 = tile * BlockN;
            waitCopies();     // K of this tile (and Q) have landed ...
            __syncthreads();  // ... for every thread, and every warp is done with the previous V
            loadTile<T, BlockN, kThreads, kLog, kFixedChunks>(sVAddress, sV, v, vPitch, key0, p.seqlenK, vChunks, headDimV, vectorV);
            commitCopies();

            // P of this tile as fp16/bf16 pairs: probs[mi][nf][half] = row g + 8 half, columns 2t,
            // 2t + 1 of key tile nf (the C fragment layout, two of which make an A fragment).
            std::uint32_t probs[kMi][kNf][2];
            float s[kMi][kNf][4];
#pragma unroll
            for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
                for (int nf = 0; nf < kNf; ++nf) s[mi][nf][0] = s[mi][nf][1] = s[mi][nf][2] = s[mi][nf][3] = 0.f;
            if (computes) {
                // S = Q K^T: per 16-column step, the A fragments of the warp's rows, then each
                // ldmatrix.x4 of K gives the B fragments of two key tiles.
                if constexpr (kPipelinedQK) {
                    // FA2 (head dim known at compile time): every k-step unrolled and the fragment
                    // loads software-pipelined one ahead (upstream's gemm copies the fragments of
                    // k-step k + 1 before the MMAs of k-step k): the next K fragment is read before
                    // the MMAs of the current one, the next k-step's Q fragments two K fragments
                    // before the step ends, so no MMA waits on the ldmatrix that feeds it while one
                    // warp per scheduler has nothing else to issue.
                    constexpr int kSteps = HeadDimBucket / kMmaK, kPairs = kNf / 2;
                    constexpr int kAAhead = kPairs >= 2 ? kPairs - 2 : 0;  // pair that issues the next A
                    std::uint32_t aCur[kMi][4], aNext[kMi][4], bCur[4], bNext[4];
#pragma unroll
                    for (int mi = 0; mi < kMi; ++mi)
                        device::ldmatrixX4Shared(aCur[mi], laneQV.at(sQAddress, BlockM, warpRow0 + mi * kMmaM, 0));
                    device::ldmatrixX4Shared(bCur, laneK.at(sKAddress, BlockN, 0, 0));
#pragma unroll
                    for (int ks = 0; ks < kSteps; ++ks) {
#pragma unroll
                        for (int pair = 0; pair < kPairs; ++pair) {
                            const bool lastPair = pair + 1 == kPairs;
                            if (!lastPair || ks + 1 < kSteps)
                                device::ldmatrixX4Shared(bNext, laneK.at(sKAddress, BlockN, lastPair ? 0 : (pair + 1) * 2 * kMmaN,
                                                                         2 * (lastPair ? ks + 1 : ks)));
                            if (pair == kAAhead && ks + 1 < kSteps) {
#pragma unroll
                                for (int mi = 0; mi < kMi; ++mi)
                                    device::ldmatrixX4Shared(aNext[mi], laneQV.at(sQAddress, BlockM, warpRow0 + mi * kMmaM, 2 * (ks + 1)));
                            }
                            const std::uint32_t b0[2] = {bCur[0], bCur[1]}, b1[2] = {bCur[2], bCur[3]};
#pragma unroll
                            for (int mi = 0; mi < kMi; ++mi) {
                                device::mma<T>(s[mi][2 * pair], aCur[mi], b0);
                                device::mma<T>(s[mi][2 * pair + 1], aCur[mi], b1);
                            }
                            if (!lastPair || ks + 1 < kSteps) {
#pragma unroll
                                for (int r = 0; r < 4; ++r) bCur[r] = bNext[r];
                            }
                        }
                        if (ks + 1 < kSteps) {
#pragma unroll
                            for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
                                for (int r = 0; r < 4; ++r) aCur[mi][r] = aNext[mi][r];
                        }
                    }
                } else {
#pragma unroll 1
                    for (int atomChunk = 0; atomChunk < qkChunks; atomChunk += kAtomChunks) {
                        const std::uint32_t atomBytes = kChunkBytes * attention::blockChunkOffset(0, atomChunk, 1, kLog);
#pragma unroll
                        for (int a0 = 0; a0 < kAtomChunks; a0 += 2) {
                            std::uint32_t a[kMi][4];
#pragma unroll
                            for (int mi = 0; mi < kMi; ++mi)
                                device::ldmatrixX4Shared(a[mi],
                                                         laneQV.at(sQAddress, BlockM, warpRow0 + mi * kMmaM, a0) + atomBytes * BlockM);
#pragma unroll
                            for (int nf = 0; nf < kNf; nf += 2) {
                                std::uint32_t b[4];
                                device::ldmatrixX4Shared(b, laneK.at(sKAddress, BlockN, nf * kMmaN, a0) + atomBytes * BlockN);
                                const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
                                for (int mi = 0; mi < kMi; ++mi) {
                                    device::mma<T>(s[mi][nf], a[mi], b0);
                                    device::mma<T>(s[mi][nf + 1], a[mi], b1);
                                }
                            }
                        }
                    }
                }  // kPipelinedQK
                if (attention::tileNeedsMask(row0, key0, BlockN, p.seqlenQ, p.seqlenK, causal)) {
#pragma unroll
                    for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
                        for (int half = 0; half < 2; ++half) {
                            const int row = row0 + warpRow0 + mi * kMmaM + g + half * 8;
                            const long long visible = attention::lastVisibleKey(row, p.seqlenQ, p.seqlenK, causal);
                            const int lastKey = visible < p.seqlenK - 1 ? static_cast<int>(visible) : p.seqlenK - 1;
#pragma unroll
                            for (int nf = 0; nf < kNf; ++nf)
#pragma unroll
                                for (int e = 0; e < 2; ++e)
                                    if (key0 + nf * kMmaN + 2 * t + e > lastKey) s[mi][nf][half * 2 + e] = -INFINITY;
                        }
                }
                // Online softmax per row (two rows per m16 tile: g and g + 8), before waiting for V.
                // Written for ILP (one warp per scheduler): the row maxima as trees, the shuffles of
                // all 2 kMi rows issued together, the row sums over two independent chains.
                constexpr int kRows = 2 * kMi;
                float tileMax[kRows];
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    const int mi = r / 2, half = r % 2;
                    float m[kNf];
#pragma unroll
                    for (int nf = 0; nf < kNf; ++nf) m[nf] = fmaxf(s[mi][nf][half * 2], s[mi][nf][half * 2 + 1]);
#pragma unroll
                    for (int stride = 1; stride < kNf; stride *= 2)
#pragma unroll
                        for (int nf = 0; nf + stride < kNf; nf += 2 * stride) m[nf] = fmaxf(m[nf], m[nf + stride]);
                    tileMax[r] = m[0];
                }
#pragma unroll
                for (int lanes = 1; lanes <= 2; lanes *= 2)
#pragma unroll
                    for (int r = 0; r < kRows; ++r) tileMax[r] = fmaxf(tileMax[r], __shfl_xor_sync(0xffffffffu, tileMax[r], lanes));
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    const int mi = r / 2, half = r % 2;
                    const float newMax = fmaxf(rowMaxRaw[mi][half], tileMax[r]);
                    const float maxScaled = newMax == -INFINITY ? 0.f : newMax * scaleLog2;  // a row without keys stays 0
                    const float correction = fastExp2(rowMaxRaw[mi][half] * scaleLog2 - maxScaled);
                    rowMaxRaw[mi][half] = newMax;
                    float partial[2] = {0.f, 0.f};
#pragma unroll
                    for (int nf = 0; nf < kNf; ++nf) {
                        const float x0 = fastExp2(fmaf(s[mi][nf][half * 2], scaleLog2, -maxScaled));
                        const float x1 = fastExp2(fmaf(s[mi][nf][half * 2 + 1], scaleLog2, -maxScaled));
                        partial[nf & 1] += x0 + x1;
                        probs[mi][nf][half] = device::packPair<T>(x0, x1);
                    }
                    rowSum[mi][half] = rowSum[mi][half] * correction + (partial[0] + partial[1]);
#pragma unroll
                    for (int df = 0; df < kDf; ++df) {
                        acc[mi][df][half * 2] *= correction;
                        acc[mi][df][half * 2 + 1] *= correction;
                    }
                }
            }                 // computes: S, mask, softmax
            waitCopies();     // V of this tile has landed ...
            __syncthreads();  // ... for every thread, and every warp is done reading K
            if (tile + 1 < tiles) {
                loadTile<T, BlockN, kThreads, kLog, kFixedChunks>(sKAddress, sK, k, qPitch, key0 + BlockN, p.seqlenK, qkChunks, p.headDim,
                                                                  vectorQK);
                commitCopies();
            }
            if (!computes) continue;
            // O += P V: the C fragments of key tiles 2kk and 2kk + 1 are the A fragment of P for
            // keys [16 kk, 16 kk + 16); each ldmatrix.x4.trans of V gives two value-column tiles.
            if constexpr (kFa2) {
                // FA2: key step outer, value-column pairs inner (consecutive MMAs hit different
                // accumulators), each V fragment read by ldmatrix one pair ahead of its MMAs.
                constexpr int kKeySteps = BlockN / kMmaK, kColPairs = kDf / 2;
                std::uint32_t bCur[4], bNext[4];
                device::ldmatrixX4TransShared(bCur, laneQV.at(sVAddress, BlockN, 0, 0));
#pragma unroll
                for (int kk = 0; kk < kKeySteps; ++kk) {
                    std::uint32_t pa[kMi][4];
#pragma unroll
                    for (int mi = 0; mi < kMi; ++mi) {
                        pa[mi][0] = probs[mi][2 * kk][0];
                        pa[mi][1] = probs[mi][2 * kk][1];
                        pa[mi][2] = probs[mi][2 * kk + 1][0];
                        pa[mi][3] = probs[mi][2 * kk + 1][1];
                    }
#pragma unroll
                    for (int cp = 0; cp < kColPairs; ++cp) {
                        const bool last = cp + 1 == kColPairs;
                        const bool prefetch = !last || kk + 1 < kKeySteps;
                        if (prefetch)
                            device::ldmatrixX4TransShared(
                                bNext, laneQV.at(sVAddress, BlockN, (last ? kk + 1 : kk) * kMmaK, last ? 0 : 2 * (cp + 1)));
                        const std::uint32_t b0[2] = {bCur[0], bCur[1]}, b1[2] = {bCur[2], bCur[3]};
#pragma unroll
                        for (int mi = 0; mi < kMi; ++mi) {
                            device::mma<T>(acc[mi][2 * cp], pa[mi], b0);
                            device::mma<T>(acc[mi][2 * cp + 1], pa[mi], b1);
                        }
                        if (prefetch) {
#pragma unroll
                            for (int r = 0; r < 4; ++r) bCur[r] = bNext[r];
                        }
                    }
                }
            } else {
#pragma unroll
                for (int df = 0; df < kDf; df += 2) {
                    if (df * kMmaN >= dvCols) break;
#pragma unroll
                    for (int kk = 0; kk < BlockN / kMmaK; ++kk) {
                        std::uint32_t b[4];
                        device::ldmatrixX4TransShared(b, laneQV.at(sVAddress, BlockN, kk * kMmaK, dvBase / kChunkElements + df));
                        const std::uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
                        for (int mi = 0; mi < kMi; ++mi) {
                            const std::uint32_t pa[4] = {probs[mi][2 * kk][0], probs[mi][2 * kk][1], probs[mi][2 * kk + 1][0],
                                                         probs[mi][2 * kk + 1][1]};
                            device::mma<T>(acc[mi][df], pa, b0);
                            device::mma<T>(acc[mi][df + 1], pa, b1);
                        }
                    }
                }
            }  // kFa2
        }

        if (computes) {
#pragma unroll
            for (int mi = 0; mi < kMi; ++mi)
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    float total = rowSum[mi][half];
                    total += __shfl_xor_sync(0xffffffffu, total, 1);
                    total += __shfl_xor_sync(0xffffffffu, total, 2);
                    const int row = row0 + warpRow0 + mi * kMmaM + g + half * 8;
                    if (row >= p.seqlenQ) continue;
                    const float inverse = total > 0.f ? 1.f / total : 0.f;
                    T* out = o + static_cast<long long>(row) * vPitch;
#pragma unroll
                    for (int df = 0; df < kDf; ++df) {
                        if (!kFa2 && df * kMmaN >= dvCols) break;
                        const int col = dvBase + df * kMmaN + 2 * t;
                        const float x0 = acc[mi][df][half * 2] * inverse, x1 = acc[mi][df][half * 2 + 1] * inverse;
                        if (headDimV % 2 == 0) {
                            if (col < headDimV)  // col even, head_dim_v even: col + 1 is in range too
                                *reinterpret_cast<std::uint32_t*>(out + col) = device::packPair<T>(x0, x1);
                        } else {
                            if (col < headDimV) out[col] = device::fromFloat<T>(x0);
                            if (col + 1 < headDimV) out[col + 1] = device::fromFloat<T>(x1);
                        }
                    }
                    if (dvBase == 0 && t == 0)
                        p.lse[(batch * p.heads + head) * p.seqlenQ + row] =
                            total > 0.f ? rowMaxRaw[mi][half] * p.softmaxScale + logf(total) : INFINITY;
                }
        }
    }
    waitCopies();  // nothing is left in flight at exit
#else
    (void)p;
    __trap();  // the planners refuse attention below sm_80 (unsupported_device)
#endif
}

}  // namespace attention_detail
}  // namespace tilescope

// Every attention kernel: FA2 head-dim buckets and tiles (kernel_traits.h: d, kBlockM, kBlockN,
// warps) and the SM120 search tiles (any head dims, 4 warps; dvmax: value columns one pass covers,
// from the accumulator registers a warp's rows allow: 32 rows x 128 or 16 rows x 256, and 64 where
// the planner only picks the tile for head dims <= 64).
// FA2(name, d, m, n, warps) / SM120(name, m, n, dvmax)
#define TILESCOPE_ATTENTION_KERNELS(FA2, SM120)        \
    FA2(flash_fwd_d32_m128n128w4, 32, 128, 128, 4)     \
    FA2(flash_fwd_d64_m128n128w4, 64, 128, 128, 4)     \
    FA2(flash_fwd_d96_m128n64w4, 96, 128, 64, 4)       \
    FA2(flash_fwd_d96_m64n64w4, 96, 64, 64, 4)         \
    FA2(flash_fwd_d128_m128n64w4, 128, 128, 64, 4)     \
    FA2(flash_fwd_d128_m128n32w4, 128, 128, 32, 4)     \
    FA2(flash_fwd_d128_m64n64w4, 128, 64, 64, 4)       \
    FA2(flash_fwd_d192_m128n64w8, 192, 128, 64, 8)     \
    FA2(flash_fwd_d256_m128n64w8, 256, 128, 64, 8)     \
    FA2(flash_fwd_d256_m64n64w4, 256, 64, 64, 4)       \
    SM120(flash_fwd_sm120_m128n128, 128, 128, 64)      \
    SM120(flash_fwd_sm120_m128n64, 128, 64, 128)       \
    SM120(flash_fwd_sm120_m64n64, 64, 64, 256)         \
    SM120(flash_fwd_sm120_m64n64_sheared, 64, 64, 256) \
    SM120(flash_fwd_sm120_m64n48_sheared, 64, 48, 256) \
    SM120(flash_fwd_sm120_m48n64_sheared, 48, 64, 256) \
    SM120(flash_fwd_sm120_m32n64_sheared, 32, 64, 256)

// awq_gemm's prefill kernels (AutoAWQ_kernels quantization_new/gemm/gemm_cuda.cu launch design, on the
// gemv_fast packing). Included only by kernel.cu, which instantiates them; kept apart from the
// gemm/legacy kernels because the two share nothing but tile_common.cuh.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/tile_common.cuh"
#include "kernels/awq_common/awq_format.h"
#include "kernels/common/mma.cuh"

namespace tilescope {
namespace {

// ---- prefill: CTA_M x 128 tiles on the gemv_fast packing (AutoAWQ runs this kernel only on
// gemv_fast checkpoints), block (32, warps) ----
// Every K tile goes through a ring of cp.async stages in the planner's dynamic smem, as upstream's:
// A (CTA_M x CTA_K fp16, chunk-swizzled rows), B (the tile's 32 row groups of the [N/4, K] int16 packing,
// 16-byte chunks copied verbatim, halves swapped in odd row groups: gemm_index.h prefillBOffset) and the
// group's 128 scales and 128 scaled zeros (G = 128 >= CTA_K: one group per tile).
// Warps: 4 along N (32 columns, 4 n-fragments each) x Warps/4 slices along the CTA's K, every slice 64
// deep (one gemv_fast K block). Per 32-wide half of its slice a warp reads its B words with one
// ldmatrix.x4 (matrix f = n-fragment f; lane 8f + g addresses column 8f + g's 16 bytes, so lane (g, t)
// receives word t: its own fragment rows of both k16 steps, gemm_index.h prefillWordOf), A with one
// ldmatrix.x4 per M fragment and k16 step, and dequantises in f16x2 without shifts but one per word:
// slot 0 and 2 (mantissa bits 0-3) OR 0x6400 read 1024 + q, slot 1 and 3 (bits 4-7) OR 0x5400 read
// 64 + q; sub.f16x2 of the magic gives q exactly, fma.f16x2 q * s + (-z * s) rounds once.
// Split-k reduces in place as upstream: split 0 stores, split z waits for the tile's semaphore to read z,
// adds its sum and passes it on; the last split resets it to 0. The planner's grid has floor(N / 128)
// N tiles (upstream's); when N % 128 == 64 the block of N tile 0 also computes the last, half tile.
template <int CtaM, int CtaK, int Warps, int Stages>
struct PrefillShape {
    static constexpr int kCtaN = 128;
    static constexpr int kWarpsN = 4, kSlices = Warps / kWarpsN, kSliceK = CtaK / kSlices;
    static constexpr int kFragsM = CtaM / kTileM, kFragsN = kCtaN / kWarpsN / kMmaN;
    static constexpr int kThreads = Warps * kWarpSize;
    static constexpr int kChunksPerRow = CtaK / kHalfPerVector;  // 16-byte chunks per A row / B row group
    static constexpr int kRing = awq::prefillRingStages(CtaK, Stages);
    static constexpr int kABytes = CtaM * CtaK * 2;
    static constexpr int kBBytes = awq::kPrefillRowGroups * CtaK * 2;
    static constexpr int kStageBytes = awq::prefillStageBytes(CtaM, CtaK);
    static constexpr int kACopies = CtaM * kChunksPerRow / kThreads;
    static constexpr int kBCopies = awq::kPrefillRowGroups * kChunksPerRow / kThreads;
    // The smallest dynamic smem the planner gives this instantiation (AwqGemmFamily::prefillBuckets;
    // both 64-deep buckets share one instantiation).
    static constexpr int kSmemFloor = CtaK == 64 ? 50176 : (CtaM == 32 ? 73728 : (Stages == 4 ? 57344 : 41472));
    static_assert(kSliceK == 64, "a slice is one gemv_fast K block");
    static_assert(kFragsN == 4, "one ldmatrix.x4 gives a warp's 4 n-fragments");
    static_assert(kACopies * kThreads == CtaM * kChunksPerRow && kBCopies * kThreads == awq::kPrefillRowGroups * kChunksPerRow,
                  "copies must split evenly");
    static_assert(kThreads % kChunksPerRow == 0, "a thread's chunk column is the same in every copy");
    static_assert(kRing >= 2 && kRing * kStageBytes <= kSmemFloor, "the ring exceeds the planner's smem");
    static_assert(kSlices == 1 || kWarpsN * kFragsM * kFragsN * 4 * kWarpSize * 4 <= kRing * kStageBytes,
                  "the cross-slice sum must fit in the ring");
};

// B register of nibble slot `Slot` of both 16-bit lanes (gemm_index.h prefillSlotMask/Magic; `lanes` is
// prefillSlotLanes(word, Slot)): q exactly, then q * s + (-z * s), rounded once.
template <int Slot>  // only its parity matters: 0 for slots 0 and 2, 1 for 1 and 3
__device__ __forceinline__ std::uint32_t prefillDequant(std::uint32_t lanes, std::uint32_t scale2, std::uint32_t zero2) {
    constexpr std::uint32_t kMagic = awq::prefillSlotMagic(Slot);
    return device::hfma2Bits(device::hsub2Bits(awq::andOr(lanes, awq::prefillSlotMask(Slot), kMagic), kMagic), scale2, zero2);
}

template <int CtaM, int CtaK, int Warps, int Stages>
__device__ __forceinline__ void prefillTile(const AwqGemmParams& p, long long mTile, long long nTile, int split) {
    using S = PrefillShape<CtaM, CtaK, Warps, Stages>;
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = static_cast<int>(threadIdx.x), warp = static_cast<int>(threadIdx.y);
    const int tid = warp * kWarpSize + lane;
    const Lane l = device::laneCoordinates();
    const int warpN = warp % S::kWarpsN, slice = warp / S::kWarpsN;
    const long long row0 = mTile * CtaM, col0 = nTile * S::kCtaN;
    const auto* input = static_cast<const __half*>(p.input);
    const auto* qweight = static_cast<const unsigned short*>(p.qweight);  // int16 [N/4, K]
    const auto* scaledZeros = static_cast<const __half*>(p.qzeros);
    const auto* scales = static_cast<const __half*>(p.scales);
    const std::uint32_t ring = device::sharedAddress(smem);

    const int tiles = p.k / CtaK;
    const int first = static_cast<int>(awq::prefillFirstTile(tiles, split, p.splitK));
    const int mine = static_cast<int>(awq::prefillTilesOfSplit(tiles, split, p.splitK));

    // This thread's copies: A row rA + v * rowsPerCopy, chunk cA; B row group gB + v * groupsPerCopy,
    // chunk cB (the chunk column is the same in every copy: kThreads % kChunksPerRow == 0).
    constexpr int kRowsPerCopy = S::kThreads / S::kChunksPerRow;
    const int rA = tid / S::kChunksPerRow, cA = tid % S::kChunksPerRow;
#pragma unroll
    for (int v = 0; v < S::kACopies; ++v) {  // rows past M stay zero in every stage
        const int r = rA + v * kRowsPerCopy;
        if (row0 + r >= p.m)
            for (int stage = 0; stage < S::kRing; ++stage)
                *reinterpret_cast<uint4*>(smem + stage * S::kStageBytes + r * CtaK * 2 + awq::swizzleChunk(r, cA, S::kChunksPerRow) * 16) =
                    make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    // Sources of tile 0 of this split and byte offsets inside a stage, hoisted out of the K loop with
    // their bounds (rows past M, row groups and columns past N are never read).
    const __half* aSource[S::kACopies];
    std::uint32_t aTarget[S::kACopies];
    bool aCopies[S::kACopies];
#pragma unroll
    for (int v = 0; v < S::kACopies; ++v) {
        const int r = rA + v * kRowsPerCopy;
        aSource[v] = input + (row0 + r) * p.k + static_cast<long long>(first) * CtaK + cA * kHalfPerVector;
        aTarget[v] = r * CtaK * 2 + awq::swizzleChunk(r, cA, S::kChunksPerRow) * 16;
        aCopies[v] = row0 + r < p.m;
    }
    const unsigned short* bSource[S::kBCopies];
    std::uint32_t bTarget[S::kBCopies];
    bool bCopies[S::kBCopies];
#pragma unroll
    for (int v = 0; v < S::kBCopies; ++v) {
        const int g = rA + v * kRowsPerCopy;
        bSource[v] = qweight + (col0 / 4 + g) * p.k + static_cast<long long>(first) * CtaK + cA * kHalfPerVector;
        bTarget[v] = S::kABytes + awq::prefillBOffset(g, cA, CtaK);
        bCopies[v] = col0 + 4 * g < p.n;
    }
    // Scales (threads 0-15) and scaled zeros (16-31) of the tile's 128 columns, 8 per chunk.
    const int szChunk = tid % 16;
    const __half* szSource = (tid < 16 ? scales : scaledZeros) + col0 + szChunk * 8;
    const std::uint32_t szTarget = S::kABytes + S::kBBytes + (tid / 16) * 256 + szChunk * 16;
    const bool szCopies = tid < 32 && col0 + szChunk * 8 < p.n;
    auto issue = [&](int local, int stage) {
        if (local < mine) {
            unsigned char* base = smem + stage * S::kStageBytes;
            const int kOffset = local * CtaK;
#pragma unroll
            for (int v = 0; v < S::kACopies; ++v)
                if (aCopies[v]) device::copy16Async(base + aTarget[v], aSource[v] + kOffset);
#pragma unroll
            for (int v = 0; v < S::kBCopies; ++v)
                if (bCopies[v]) device::copy16Async(base + bTarget[v], bSource[v] + kOffset);
            if (szCopies) {
                const int group = (first + local) * CtaK / p.groupSize;  // G >= CTA_K: one group per tile
                device::copy16Async(base + szTarget, szSource + static_cast<long long>(group) * p.n);
            }
        }
        __pipeline_commit();  // empty groups keep the wait count uniform
    };

    // ldmatrix row addresses (bytes from a stage's start). A: matrix i of M fragment fm, k16 step s of half
    // h is rows fm*16 + (lane % 16), logical chunk slice*8 + h*4 + s*2 + lane/16, swizzled by row % 8.
    std::uint32_t aOffset[2][2];
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int s = 0; s < 2; ++s) {
            const int r = lane % 16, c = slice * 8 + h * 4 + s * 2 + lane / 16;
            aOffset[h][s] = r * CtaK * 2 + awq::swizzleChunk(r, c, S::kChunksPerRow) * 16;
        }
    // B: lane 8f + g addresses column warpN*32 + 8f + g = warpN*32 + lane, row group (that) / 4, column
    // (that) % 4 inside it, half h of K block `slice` of the tile.
    std::uint32_t bOffset[2];
    {
        const int column = warpN * 32 + lane;
#pragma unroll
        for (int h = 0; h < 2; ++h)
            bOffset[h] = S::kABytes + awq::prefillBOffset(column / 4, awq::prefillBChunk(slice, column % 4, h), CtaK);
    }
    const int szColumn = warpN * 32 + l.g;  // + 8f: the lane's column of n-fragment f

    float acc[S::kFragsM][S::kFragsN][4] = {};
    auto compute = [&](int stage) {
        const std::uint32_t base = ring + stage * S::kStageBytes;
        const auto* sz = reinterpret_cast<const unsigned short*>(smem + stage * S::kStageBytes + S::kABytes + S::kBBytes);
        std::uint32_t scale2[S::kFragsN], zero2[S::kFragsN];
#pragma unroll
        for (int f = 0; f < S::kFragsN; ++f) {
            scale2[f] = static_cast<std::uint32_t>(sz[szColumn + f * kMmaN]) * 0x00010001u;
            zero2[f] = static_cast<std::uint32_t>(sz[128 + szColumn + f * kMmaN]) * 0x00010001u;
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            std::uint32_t words[4];  // word t of n-fragment f's column, half h
            device::ldmatrixX4Shared(words, base + bOffset[h]);
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                std::uint32_t a[S::kFragsM][4];
#pragma unroll
                for (int fm = 0; fm < S::kFragsM; ++fm) device::ldmatrixX4Shared(a[fm], base + aOffset[h][s] + fm * kTileM * CtaK * 2);
#pragma unroll
                for (int f = 0; f < S::kFragsN; ++f) {
                    // k16 step s of the half: b[0] rows 2t, 2t+1 (slot 2s), b[1] rows 2t+8, 2t+9 (slot 2s+1).
                    const std::uint32_t lanes = awq::prefillSlotLanes(words[f], 2 * s);
                    const std::uint32_t b[2] = {prefillDequant<0>(lanes, scale2[f], zero2[f]),
                                                prefillDequant<1>(lanes, scale2[f], zero2[f])};
#pragma unroll
                    for (int fm = 0; fm < S::kFragsM; ++fm) device::mmaF16(acc[fm][f], a[fm], b);
                }
            }
        }
    };

#pragma unroll
    for (int s = 0; s < S::kRing - 1; ++s) issue(s, s);
    int readStage = 0, writeStage = S::kRing - 1;
    for (int local = 0; local < mine; ++local) {
        __pipeline_wait_prior(S::kRing - 2);
        __syncthreads();  // tile `local` landed for every thread; the stage it overwrites (local - 1's) is read by all
        issue(local + S::kRing - 1, writeStage);
        compute(readStage);
        readStage = readStage + 1 == S::kRing ? 0 : readStage + 1;
        writeStage = writeStage + 1 == S::kRing ? 0 : writeStage + 1;
    }
    __pipeline_wait_prior(0);
    __syncthreads();

    constexpr int kAccPerLane = S::kFragsM * S::kFragsN * 4;
    if constexpr (S::kSlices > 1) {  // the slices' sums meet in the ring
        auto* sum = reinterpret_cast<float*>(smem) + warpN * kAccPerLane * kWarpSize;
        for (int z = 1; z < S::kSlices; ++z) {
            if (slice == z) {
                int i = 0;
#pragma unroll
                for (int fm = 0; fm < S::kFragsM; ++fm)
#pragma unroll
                    for (int f = 0; f < S::kFragsN; ++f)
#pragma unroll
                        for (int e = 0; e < 4; ++e, ++i) sum[i * kWarpSize + lane] = acc[fm][f][e];
            }
            __syncthreads();
            if (slice == 0) {
                int i = 0;
#pragma unroll
                for (int fm = 0; fm < S::kFragsM; ++fm)
#pragma unroll
                    for (int f = 0; f < S::kFragsN; ++f)
#pragma unroll
                        for (int e = 0; e < 4; ++e, ++i) acc[fm][f][e] += sum[i * kWarpSize + lane];
            }
            __syncthreads();
        }
    }

    int* semaphore = p.semaphores + mTile * ((p.n + S::kCtaN - 1) / S::kCtaN) + nTile;
    if (split > 0) {  // wait for split - 1 of this tile
        if (tid == 0) {
            int state = -1;
            do {
                asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(state) : "l"(semaphore));
            } while (state != split);
        }
        __syncthreads();
    }
    if (slice == 0) {
        auto* out = static_cast<__half*>(p.output);
#pragma unroll
        for (int fm = 0; fm < S::kFragsM; ++fm)
#pragma unroll
            for (int f = 0; f < S::kFragsN; ++f) {
                const long long col = col0 + warpN * (S::kFragsN * kMmaN) + f * kMmaN + 2 * l.t;
                if (col >= p.n) continue;
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    const long long row = row0 + fm * kTileM + l.g + half * 8;
                    if (row >= p.m) continue;
                    auto* at = reinterpret_cast<__half2*>(out + row * p.n + col);
                    __half2 value = __floats2half2_rn(acc[fm][f][2 * half], acc[fm][f][2 * half + 1]);
                    if (split > 0) value = __hadd2(__ldcg(at), value);
                    *at = value;
                }
            }
    }
    if (p.splitK > 1) {
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            const int next = split + 1 == p.splitK ? 0 : split + 1;
            asm volatile("st.global.release.gpu.b32 [%0], %1;\n" : : "l"(semaphore), "r"(next) : "memory");
        }
    }
}

template <int CtaM, int CtaK, int Warps, int Stages>
__device__ __forceinline__ void prefillBody(const AwqGemmParams& p) {
    constexpr long long kCtaN = 128;
    const long long nFloor = p.n / kCtaN, nCeil = (p.n + kCtaN - 1) / kCtaN;  // the grid has nFloor N tiles
    const awq::GemmBlock b = awq::decodeGemmBlock(blockIdx.x, (p.m + CtaM - 1) / CtaM, nFloor);
    for (long long nTile = b.nTile; nTile < nCeil; nTile += nFloor) {
        if (nTile != b.nTile) __syncthreads();  // the ring is reused
        prefillTile<CtaM, CtaK, Warps, Stages>(p, b.mTile, nTile, b.split);
    }
}

}  // namespace
}  // namespace tilescope

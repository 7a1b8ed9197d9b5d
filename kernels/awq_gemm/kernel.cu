// awq_gemm device code, written from KERNELS.md section 2 and the pinned upstream: the m16n{128,64}k32
// split-k kernel (launch design of AutoAWQ_kernels gemm_cuda_gen.cu / vLLM gemm_kernels.cu, its static
// smem claim), the llm-awq grid-y launch, and the M-bucketed prefill kernel (AutoAWQ_kernels
// quantization_new/gemm/gemm_cuda.cu launch design, gemv_fast packing). The code is ours: packed weights
// go from global memory straight into mma.sync B fragments, dequantised in registers (lop3 magic number,
// f16x2 sub/mul or fma); activations through cp.async rings and ldmatrix.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemm/dequantize_index.h"
#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/prefill.cuh"
#include "kernels/awq_gemm/tile_common.cuh"
#include "kernels/awq_common/awq_format.h"
#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace {

// ---- gemm / legacy_grid_y: 16 x TileN tiles, 64 threads, split-k over interleaved 32-wide chunks ----
// No dequantised tile in shared memory: lane (g, t) loads the 4 packed words of its B fragment rows
// straight into registers (gemm_index.h: n-fragment j is column j of every word), dequantises them
// without shifts (gemm_index.h gemmMagicPair: one prmt per byte pair, one lop3 per register with the
// 1024 or 64 magic, sub.f16x2 of the zero through the same path, mul.f16x2 by the scale) and feeds
// mma.sync. Zero and scale of its 8 columns stay in registers per chunk; the packed words, scales and
// zeros of the next GemmShape::kBDepth chunks are in flight in a register ring. A goes through a
// per-warp cp.async ring and ldmatrix. TileN 128: each warp owns 64 columns and both 16-deep halves of
// a chunk; TileN 64: both warps own the 64 columns and split the chunk's K, their sums added through
// shared memory at the end.
template <int TileN>
struct GemmShape {
    static constexpr int kWarpsN = TileN / kWarpColumns;     // 2 or 1
    static constexpr int kWarpsK = 2 / kWarpsN;              // 1 or 2
    static constexpr int kSteps = kTileK / kMmaK / kWarpsK;  // k16 steps per warp and chunk: 2 or 1
    static constexpr int kWarpK = kSteps * kMmaK;            // A columns a warp stages per chunk
    static constexpr int kChunksPerRow = kWarpK / kHalfPerVector;
    static constexpr int kSlotHalves = kTileM * kWarpK;  // one warp's A slice of one chunk
    // The planner's static smem (vLLM's layout, 10,496 / 6,144 B); this kernel uses it for the A rings
    // (and, TileN 64, the cross-warp sum).
    static constexpr int kSmemBytes = TileN == 128 ? 10496 : 6144;
    // B register ring depth: chunks whose packed words, scales and zeros are in flight per warp (13 or 9
    // registers a chunk). TileN 128 runs at 4 CTAs/SM at any count up to 255 registers, so it goes 8 deep
    // (1 KB of weights a warp in flight); TileN 64 stays 4 deep to keep <= 128 registers (8 CTAs/SM). The A
    // ring (shared memory) stays kGemmStages deep: A is small and mostly L2-resident.
    static constexpr int kBDepth = TileN == 128 ? 8 : 4;
    static_assert(kBDepth % kGemmStages == 0, "the unrolled loop names A slots statically");
    static_assert(2 * kGemmStages * kSlotHalves * 2 <= kSmemBytes, "A rings exceed the planner's smem");
    static_assert(kWarpsK == 1 || kWarpColumns * kTileM * 4 <= kSmemBytes, "the cross-warp sum exceeds smem");
};

template <int Steps>
struct GemmStage {
    std::uint32_t b[Steps][4];  // packed words of rows kb + gemmBRowOfRegister(t, r)
    uint4 scales;               // fp16 scales of the lane's 8 columns
    std::uint32_t zeros;        // the packed zero word of those columns
};

template <int TileN>
__device__ __forceinline__ void gemmTile(const AwqGemmParams& p, long long mTile, long long nTile, int split) {
    using S = GemmShape<TileN>;
    __shared__ __align__(16) unsigned char smem[S::kSmemBytes];

    const int warp = static_cast<int>(threadIdx.y);
    const int lane = static_cast<int>(threadIdx.x);
    const Lane l = device::laneCoordinates();
    const int warpN = warp % S::kWarpsN, warpK = warp / S::kWarpsN;
    const long long row0 = mTile * kTileM;
    const long long wordsPerRow = p.n / awq::kNibblesPerWord;
    const long long wordColumn = (nTile * TileN + warpN * kWarpColumns) / awq::kNibblesPerWord + l.g;
    const auto* input = static_cast<const __half*>(p.input);
    const auto* qweight = static_cast<const std::uint32_t*>(p.qweight);
    const auto* qzeros = static_cast<const std::uint32_t*>(p.qzeros);
    const auto* scales = static_cast<const __half*>(p.scales);
    auto* ring = reinterpret_cast<__half*>(smem) + warp * kGemmStages * S::kSlotHalves;

    // K <= 2^20: at most 32,768 chunks, int is enough for chunk counters.
    const int chunks = static_cast<int>(p.k / kTileK);
    const int mine = static_cast<int>(awq::chunksOfSplit(chunks, split, p.splitK));

    // Rows past M stay zero in every slot: written once, never copied over.
    constexpr int kCopies = S::kSlotHalves / kHalfPerVector / kWarpSize;
#pragma unroll
    for (int v = 0; v < kCopies; ++v) {
        const int idx = v * kWarpSize + lane, r = idx / S::kChunksPerRow, c = idx % S::kChunksPerRow;
        if (row0 + r >= p.m)
            for (int slot = 0; slot < kGemmStages; ++slot)
                *reinterpret_cast<uint4*>(ring + slot * S::kSlotHalves + r * S::kWarpK +
                                          awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector) = make_uint4(0, 0, 0, 0);
    }
    // A: lane copies vector v of each chunk, row r, column c; its source advances splitK chunks a step.
    const __half* aSource[kCopies];
    int aDest[kCopies];
    bool aValid[kCopies];
#pragma unroll
    for (int v = 0; v < kCopies; ++v) {
        const int idx = v * kWarpSize + lane, r = idx / S::kChunksPerRow, c = idx % S::kChunksPerRow;
        aValid[v] = row0 + r < p.m;
        aSource[v] =
            input + (aValid[v] ? row0 + r : 0) * p.k + static_cast<long long>(split) * kTileK + warpK * S::kWarpK + c * kHalfPerVector;
        aDest[v] = r * S::kWarpK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector;
    }
    const long long aStride = static_cast<long long>(p.splitK) * kTileK;
    auto issueA = [&](int local, int slotIndex) {  // local = 0, 1, 2, ... in order; slotIndex = local % kGemmStages
        if (local < mine) {
            __half* slot = ring + slotIndex * S::kSlotHalves;
#pragma unroll
            for (int v = 0; v < kCopies; ++v) {
                if (aValid[v]) device::copy16Async(slot + aDest[v], aSource[v]);
                aSource[v] += aStride;
            }
        }
        __pipeline_commit();  // empty groups keep the wait count uniform
    };

    // B: the cursor of the load stream (chunk split + local * splitK, local = 0, 1, 2, ... in order).
    const int chunksPerGroup = p.groupSize / kTileK;  // G % 32 == 0: one group per chunk
    const int words = static_cast<int>(wordsPerRow);
    int rowOffset[S::kSteps][4];  // < 32 rows x N/8 words
#pragma unroll
    for (int step = 0; step < S::kSteps; ++step)
#pragma unroll
        for (int r = 0; r < 4; ++r) rowOffset[step][r] = (step * kMmaK + awq::gemmBRowOfRegister(l.t, r)) * words;
    const std::uint32_t* bNext = qweight + wordColumn + (static_cast<long long>(split) * kTileK + warpK * S::kWarpK) * wordsPerRow;
    const long long bStride = static_cast<long long>(p.splitK) * kTileK * wordsPerRow;
    long long group = split / chunksPerGroup;
    int remainder = split % chunksPerGroup;
    int loaded = 0;
    auto loadNext = [&](GemmStage<S::kSteps>& st) {
        if (loaded < mine) {
#pragma unroll
            for (int step = 0; step < S::kSteps; ++step)
#pragma unroll
                for (int r = 0; r < 4; ++r) st.b[step][r] = __ldg(bNext + rowOffset[step][r]);
            st.scales = __ldg(reinterpret_cast<const uint4*>(scales + group * p.n + wordColumn * awq::kNibblesPerWord));
            st.zeros = __ldg(qzeros + group * wordsPerRow + wordColumn);
            bNext += bStride;
            remainder = awq::gemmAdvanceGroup(remainder, p.splitK, chunksPerGroup, &group);
        }
        ++loaded;
    };

    float acc[awq::kNibblesPerWord][4] = {};
    // Nibble n of a word is output column j = gemmColumnOfNibble(n) of its 8 (fragment j).
    auto compute = [&](const GemmStage<S::kSteps>& st, int slotIndex) {
        std::uint32_t zero2[awq::kNibblesPerWord], scale2[awq::kNibblesPerWord];
        const std::uint32_t scaleWords[4] = {st.scales.x, st.scales.y, st.scales.z, st.scales.w};
#pragma unroll
        for (int n = 0; n < awq::kNibblesPerWord; ++n) {
            const int j = awq::gemmColumnOfNibble(n);
            zero2[n] = awq::gemmMagicPair(st.zeros, st.zeros, n);
            scale2[n] = __byte_perm(scaleWords[j / 2], 0, j % 2 ? 0x3232 : 0x1010);
        }
        const __half* slot = ring + slotIndex * S::kSlotHalves;
#pragma unroll
        for (int step = 0; step < S::kSteps; ++step) {
            std::uint32_t a[4];
            const int r = lane % 16, c = step * 2 + lane / 16;
            device::ldmatrixX4(a, slot + r * S::kWarpK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector);
#pragma unroll
            for (int n = 0; n < awq::kNibblesPerWord; ++n) {
                std::uint32_t b[2];  // rows 2t, 2t+1 (words 0, 1) and 2t+8, 2t+9 (words 2, 3)
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    b[i] = device::hmul2Bits(device::hsub2Bits(awq::gemmMagicPair(st.b[step][2 * i], st.b[step][2 * i + 1], n), zero2[n]),
                                             scale2[n]);
                device::mmaF16(acc[awq::gemmColumnOfNibble(n)], a, b);
            }
        }
    };

    GemmStage<S::kSteps> stages[S::kBDepth];
#pragma unroll
    for (int s = 0; s < S::kBDepth; ++s) loadNext(stages[s]);
#pragma unroll
    for (int s = 0; s < kGemmStages - 1; ++s) issueA(s, s);
    for (int base = 0; base < mine; base += S::kBDepth) {
#pragma unroll
        for (int s = 0; s < S::kBDepth; ++s) {
            const int local = base + s;
            if (local < mine) {
                __syncwarp();  // every lane is done reading the slot the next copy overwrites
                issueA(local + kGemmStages - 1, (s + kGemmStages - 1) % kGemmStages);
                __pipeline_wait_prior(kGemmStages - 1);
                __syncwarp();
                compute(stages[s], s % kGemmStages);  // base % kGemmStages == 0
                loadNext(stages[s]);                  // chunk local + S::kBDepth
            }
        }
    }
    __pipeline_wait_prior(0);

    if constexpr (S::kWarpsK > 1) {  // warp 1's sums join warp 0's through shared memory
        auto* sum = reinterpret_cast<float*>(smem);
        __syncthreads();
        if (warpK == 1)
#pragma unroll
            for (int j = 0; j < awq::kNibblesPerWord; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) sum[(j * 4 + e) * kWarpSize + lane] = acc[j][e];
        __syncthreads();
        if (warpK != 0) return;
#pragma unroll
        for (int j = 0; j < awq::kNibblesPerWord; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[j][e] += sum[(j * 4 + e) * kWarpSize + lane];
    }
    // Lane (g, t) holds 16 consecutive columns of rows g and g + 8: two 16-byte stores per row.
    auto* out = static_cast<__half*>(p.output) + static_cast<long long>(split) * p.m * p.n;
    const long long column = nTile * TileN + warpN * kWarpColumns + awq::gemmOutputColumn(l.t, 0, 0);
#pragma unroll
    for (int rowHalf = 0; rowHalf < 2; ++rowHalf) {
        const long long row = row0 + awq::gemmOutputRow(l.g, 2 * rowHalf);
        if (row >= p.m) continue;
        uint4 lo, hi;  // columns 16t..16t+7 (mma column 2t) and 16t+8..16t+15 (2t+1)
        const int e = 2 * rowHalf;
        lo = make_uint4(packHalf2(acc[0][e], acc[1][e]), packHalf2(acc[2][e], acc[3][e]), packHalf2(acc[4][e], acc[5][e]),
                        packHalf2(acc[6][e], acc[7][e]));
        hi = make_uint4(packHalf2(acc[0][e + 1], acc[1][e + 1]), packHalf2(acc[2][e + 1], acc[3][e + 1]),
                        packHalf2(acc[4][e + 1], acc[5][e + 1]), packHalf2(acc[6][e + 1], acc[7][e + 1]));
        *reinterpret_cast<uint4*>(out + row * p.n + column) = lo;
        *reinterpret_cast<uint4*>(out + row * p.n + column + kMmaN) = hi;
    }
}

template <int TileN>
__device__ __forceinline__ void gemmFlatGrid(const AwqGemmParams& p) {
    const awq::GemmBlock b = awq::decodeGemmBlock(blockIdx.x, (p.m + kTileM - 1) / kTileM, p.n / TileN);
    gemmTile<TileN>(p, b.mTile, b.nTile, b.split);
}

// llm-awq's launch: grid (1, M tiles x N tiles, split_k).
__device__ __forceinline__ void gemmLegacyGrid(const AwqGemmParams& p) {
    constexpr int kTileN = 128;
    const long long nTiles = p.n / kTileN;
    gemmTile<kTileN>(p, blockIdx.y / nTiles, blockIdx.y % nTiles, static_cast<int>(blockIdx.z));
}

}  // namespace
}  // namespace tilescope

namespace tilescope {
namespace {

// ---- autoawq / vllm from their M threshold: the dequantize launch before cuBLAS's fp16 GEMM ----
// Upstream's geometry (block (8, 8), grid (N/64, K/8), no shared memory; dequantize_index.h): one thread
// per packed word. Ours reads the word, its zero word and 8 scales (one 16-byte load), dequantises the 4
// column pairs exactly in fp16x2 (dequantizePairMagic, sub, one rounding mul) and writes the 8 values as
// one 16-byte store (upstream: through a local array, 8 two-byte stores).
__device__ __forceinline__ void dequantizeWeights(const AwqGemmParams& p) {
    const awq::DequantizeWord w = awq::dequantizeWordOf(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y);
    const long long n = p.n;
    const unsigned word = __ldg(static_cast<const unsigned*>(p.qweight) + awq::dequantizeQweightOffset(w, n));
    const unsigned zeros = __ldg(static_cast<const unsigned*>(p.qzeros) + awq::dequantizeZerosOffset(w, n, p.groupSize));
    const uint4 scales =
        __ldg(reinterpret_cast<const uint4*>(static_cast<const __half*>(p.scales) + awq::dequantizeScalesOffset(w, n, p.groupSize)));
    const unsigned scalePairs[4] = {scales.x, scales.y, scales.z, scales.w};
    unsigned out[4];
#pragma unroll
    for (int pair = 0; pair < 4; ++pair) {
        const unsigned q = awq::dequantizePairMagic(word, pair), z = awq::dequantizePairMagic(zeros, pair);
        const __half2 diff = __hsub2(*reinterpret_cast<const __half2*>(&q), *reinterpret_cast<const __half2*>(&z));
        const __half2 value = __hmul2(diff, *reinterpret_cast<const __half2*>(&scalePairs[pair]));
        out[pair] = *reinterpret_cast<const unsigned*>(&value);
    }
    *reinterpret_cast<uint4*>(static_cast<__half*>(p.dequantized) + awq::dequantizeOutputOffset(w, n)) =
        make_uint4(out[0], out[1], out[2], out[3]);
}

}  // namespace
}  // namespace tilescope

using tilescope::AwqGemmParams;

extern "C" __global__ void __launch_bounds__(64) awq_dequantize_weights(AwqGemmParams p) { tilescope::dequantizeWeights(p); }

extern "C" __global__ void __launch_bounds__(64) awq_gemm_m16n128k32(AwqGemmParams p) { tilescope::gemmFlatGrid<128>(p); }
extern "C" __global__ void __launch_bounds__(64) awq_gemm_m16n64k32(AwqGemmParams p) { tilescope::gemmFlatGrid<64>(p); }
extern "C" __global__ void __launch_bounds__(64) awq_gemm_legacy_m16n128k32(AwqGemmParams p) { tilescope::gemmLegacyGrid(p); }
// Prefill buckets (AwqGemmFamily::prefillBuckets): CTA M, K, warps, stages; block (32, warps).
extern "C" __global__ void __launch_bounds__(256, 1) awq_gemm_prefill_m16n128k128s4(AwqGemmParams p) {
    tilescope::prefillBody<16, 128, 8, 4>(p);
}
extern "C" __global__ void __launch_bounds__(256, 1) awq_gemm_prefill_m16n128k128s3(AwqGemmParams p) {
    tilescope::prefillBody<16, 128, 8, 3>(p);
}
extern "C" __global__ void __launch_bounds__(256, 1) awq_gemm_prefill_m32n128k128s4(AwqGemmParams p) {
    tilescope::prefillBody<32, 128, 8, 4>(p);
}
extern "C" __global__ void __launch_bounds__(128) awq_gemm_prefill_m64n128k64s4(AwqGemmParams p) {
    tilescope::prefillBody<64, 64, 4, 4>(p);
}
extern "C" __global__ void __launch_bounds__(128) awq_gemm_prefill_m64n128k64s4_large(AwqGemmParams p) {
    tilescope::prefillBody<64, 64, 4, 4>(p);
}

namespace tilescope {

DeviceKernelList awqGemmDeviceKernels() {
    static const DeviceKernel list[] = {
        {"awq_gemm_m16n128k32", reinterpret_cast<const void*>(&awq_gemm_m16n128k32)},
        {"awq_gemm_m16n64k32", reinterpret_cast<const void*>(&awq_gemm_m16n64k32)},
        {"awq_gemm_legacy_m16n128k32", reinterpret_cast<const void*>(&awq_gemm_legacy_m16n128k32)},
        {"awq_dequantize_weights", reinterpret_cast<const void*>(&awq_dequantize_weights)},
        {"awq_gemm_prefill_m16n128k128s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m16n128k128s4)},
        {"awq_gemm_prefill_m16n128k128s3", reinterpret_cast<const void*>(&awq_gemm_prefill_m16n128k128s3)},
        {"awq_gemm_prefill_m32n128k128s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m32n128k128s4)},
        {"awq_gemm_prefill_m64n128k64s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m64n128k64s4)},
        {"awq_gemm_prefill_m64n128k64s4_large", reinterpret_cast<const void*>(&awq_gemm_prefill_m64n128k64s4_large)},
    };
    return {list, sizeof list / sizeof list[0]};
}

}  // namespace tilescope

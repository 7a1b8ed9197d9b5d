// awq_gemm device code, written from KERNELS.md section 2 and the pinned upstream: the m16n{128,64}k32
// split-k kernel (launch design of AutoAWQ_kernels gemm_cuda_gen.cu / vLLM gemm_kernels.cu, its static
// smem claim), the llm-awq grid-y launch, and the M-bucketed prefill kernel (AutoAWQ_kernels
// quantization_new/gemm/gemm_cuda.cu launch design, gemv_fast packing). The code is ours: packed weights
// go from global memory straight into mma.sync B fragments, dequantised in registers (lop3 magic number,
// f16x2 sub/mul or fma); activations through cp.async rings and ldmatrix.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/prefill.cuh"
#include "kernels/awq_gemm/tile_common.cuh"
#include "kernels/common/awq_format.h"
#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace {

// ---- gemm / legacy_grid_y: 16 x TileN tiles, 64 threads, split-k over interleaved 32-wide chunks ----
// No dequantised tile in shared memory: lane (g, t) loads the 4 packed words of its B fragment rows
// straight into registers (gemm_index.h: n-fragment j is column j of every word), dequantises them with
// the magic-number trick (awq_format.h) and feeds mma.sync. Zero and scale of its 8 columns stay in
// registers per chunk. A goes through a per-warp cp.async ring and ldmatrix. TileN 128: each warp owns
// 64 columns and both 16-deep halves of a chunk; TileN 64: both warps own the 64 columns and split the
// chunk's K, their sums added through shared memory at the end.
template <int TileN>
struct GemmShape {
    static constexpr int kWarpsN = TileN / kWarpColumns;      // 2 or 1
    static constexpr int kWarpsK = 2 / kWarpsN;               // 1 or 2
    static constexpr int kSteps = kTileK / kMmaK / kWarpsK;   // k16 steps per warp and chunk: 2 or 1
    static constexpr int kWarpK = kSteps * kMmaK;             // A columns a warp stages per chunk
    static constexpr int kChunksPerRow = kWarpK / kHalfPerVector;
    static constexpr int kSlotHalves = kTileM * kWarpK;       // one warp's A slice of one chunk
    // The planner's static smem (vLLM's layout, 10,496 / 6,144 B); this kernel uses it for the A rings
    // (and, TileN 64, the cross-warp sum).
    static constexpr int kSmemBytes = TileN == 128 ? 10496 : 6144;
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

    const long long chunks = p.k / kTileK;
    const long long mine = awq::chunksOfSplit(chunks, split, p.splitK);
    auto chunkOf = [&](long long local) { return split + local * p.splitK; };

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
    auto issueA = [&](long long local) {
        if (local < mine) {
            const long long k0 = chunkOf(local) * kTileK + warpK * S::kWarpK;
            __half* slot = ring + (local % kGemmStages) * S::kSlotHalves;
#pragma unroll
            for (int v = 0; v < kCopies; ++v) {
                const int idx = v * kWarpSize + lane, r = idx / S::kChunksPerRow, c = idx % S::kChunksPerRow;
                if (row0 + r < p.m)
                    device::copy16Async(slot + r * S::kWarpK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector,
                                        input + (row0 + r) * p.k + k0 + c * kHalfPerVector);
            }
        }
        __pipeline_commit();  // empty groups keep the wait count uniform
    };
    // 32-bit offsets inside one chunk (< 32 rows x N/8 words); 64-bit only for the chunk's base.
    const int chunksPerGroup = p.groupSize / kTileK;  // G % 32 == 0: one group per chunk
    const std::uint32_t* bColumn = qweight + wordColumn + static_cast<long long>(warpK * S::kWarpK) * wordsPerRow;
    const int words = static_cast<int>(wordsPerRow);
    auto loadB = [&](GemmStage<S::kSteps>& st, long long local) {
        if (local >= mine) return;
        const int chunk = static_cast<int>(chunkOf(local));
        const std::uint32_t* b = bColumn + static_cast<long long>(chunk) * kTileK * wordsPerRow;
#pragma unroll
        for (int step = 0; step < S::kSteps; ++step)
#pragma unroll
            for (int r = 0; r < 4; ++r) st.b[step][r] = __ldg(b + (step * kMmaK + awq::gemmBRowOfRegister(l.t, r)) * words);
        const long long group = chunk / chunksPerGroup;
        st.scales = __ldg(reinterpret_cast<const uint4*>(scales + group * p.n + wordColumn * awq::kNibblesPerWord));
        st.zeros = __ldg(qzeros + group * wordsPerRow + wordColumn);
    };

    float acc[awq::kNibblesPerWord][4] = {};
    auto compute = [&](const GemmStage<S::kSteps>& st, long long local) {
        // Zero (1024 + z) and scale of column j, both lanes.
        std::uint32_t zero2[awq::kNibblesPerWord], scale2[awq::kNibblesPerWord];
        const std::uint32_t scaleWords[4] = {st.scales.x, st.scales.y, st.scales.z, st.scales.w};
#pragma unroll
        for (int j = 0; j < awq::kNibblesPerWord; ++j) {
            zero2[j] = awq::magicZero(awq::nibbleAt(st.zeros, awq::gemmNibbleOfColumn(j)));
            scale2[j] = __byte_perm(scaleWords[j / 2], 0, j % 2 ? 0x3232 : 0x1010);
        }
        const __half* slot = ring + (local % kGemmStages) * S::kSlotHalves;
#pragma unroll
        for (int step = 0; step < S::kSteps; ++step) {
            std::uint32_t a[4];
            const int r = lane % 16, c = step * 2 + lane / 16;
            device::ldmatrixX4(a, slot + r * S::kWarpK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector);
            const std::uint32_t lanes[2][2] = {
                {awq::pairLowNibbles(st.b[step][0], st.b[step][1]), awq::pairHighNibbles(st.b[step][0], st.b[step][1])},
                {awq::pairLowNibbles(st.b[step][2], st.b[step][3]), awq::pairHighNibbles(st.b[step][2], st.b[step][3])}};
#pragma unroll
            for (int j = 0; j < awq::kNibblesPerWord; ++j) {
                const int nibble = awq::gemmNibbleOfColumn(j), half = nibble / 4, slotInLane = nibble % 4;
                std::uint32_t b[2];
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    b[i] = device::hmul2Bits(device::hsub2Bits(awq::magicHalves(lanes[i][half], slotInLane), zero2[j]), scale2[j]);
                device::mmaF16(acc[j], a, b);
            }
        }
    };

    GemmStage<S::kSteps> stages[kGemmStages];
#pragma unroll
    for (int s = 0; s < kGemmStages; ++s) loadB(stages[s], s);
#pragma unroll
    for (int s = 0; s < kGemmStages - 1; ++s) issueA(s);
    for (long long base = 0; base < mine; base += kGemmStages) {
#pragma unroll
        for (int s = 0; s < kGemmStages; ++s) {
            const long long local = base + s;
            if (local >= mine) break;
            __syncwarp();  // every lane is done reading the slot the next copy overwrites
            issueA(local + kGemmStages - 1);
            __pipeline_wait_prior(kGemmStages - 1);
            __syncwarp();
            const GemmStage<S::kSteps> current = stages[s];
            loadB(stages[s], local + kGemmStages);
            compute(current, local);
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

using tilescope::AwqGemmParams;

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
        {"awq_gemm_prefill_m16n128k128s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m16n128k128s4)},
        {"awq_gemm_prefill_m16n128k128s3", reinterpret_cast<const void*>(&awq_gemm_prefill_m16n128k128s3)},
        {"awq_gemm_prefill_m32n128k128s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m32n128k128s4)},
        {"awq_gemm_prefill_m64n128k64s4", reinterpret_cast<const void*>(&awq_gemm_prefill_m64n128k64s4)},
        {"awq_gemm_prefill_m64n128k64s4_large", reinterpret_cast<const void*>(&awq_gemm_prefill_m64n128k64s4_large)},
    };
    return {list, sizeof list / sizeof list[0]};
}

}  // namespace tilescope

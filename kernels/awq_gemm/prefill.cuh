// awq_gemm's prefill kernels (AutoAWQ_kernels quantization_new/gemm/gemm_cuda.cu launch design, on the
// gemv_fast packing). Included only by kernel.cu, which instantiates them; kept apart from the
// gemm/legacy kernels because the two share nothing but tile_common.cuh.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/tile_common.cuh"
#include "kernels/common/awq_format.h"
#include "kernels/common/mma.cuh"

namespace tilescope {
namespace {

// ---- prefill: CTA_M x 128 tiles on the gemv_fast packing (AutoAWQ runs this kernel only on
// gemv_fast checkpoints), block (32, warps) ----
// Warps: 4 along N (32 columns, 4 n-fragments each) x Warps/4 slices along the CTA's K, every slice 64
// deep (one gemv_fast K block). A: a ring of cp.async stages in the planner's dynamic smem, read with
// ldmatrix. B: lane (g, t) loads its fragment words straight from global into a register ring
// (gemm_index.h prefillWordOf) and dequantises them with the magic-number trick: q * s + (-z * s).
// Split-k reduces in place as upstream: split 0 stores, split z waits for the tile's semaphore to read z,
// adds its sum and passes it on; the last split resets it to 0. The planner's grid has floor(N / 128)
// N tiles (upstream's); when N % 128 == 64 the block of N tile 0 also computes the last, half tile.
template <int CtaM, int CtaK, int Warps, int Stages>
struct PrefillShape {
    static constexpr int kCtaN = 128;
    static constexpr int kWarpsN = 4, kSlices = Warps / kWarpsN, kSliceK = CtaK / kSlices;
    static constexpr int kFragsM = CtaM / kTileM, kFragsN = kCtaN / kWarpsN / kMmaN;
    static constexpr int kHalves = kSliceK / kTileK;  // 32-wide halves of the slice's 64-wide K block
    static constexpr int kChunksPerRow = CtaK / kHalfPerVector;
    static constexpr int kStageHalves = CtaM * CtaK;
    // K tiles of B in flight in registers (fewer than the A stages: registers are the limit).
    static constexpr int kBDepth = kFragsM >= 4 ? 1 : 2;
    static_assert(kSliceK == 64, "a slice is one gemv_fast K block");
    static_assert(kSlices == 1 || kWarpsN * kFragsM * kFragsN * 4 * kWarpSize * 4 <= Stages * kStageHalves * 2,
                  "the cross-slice sum must fit in the A ring");
};

template <int FragsN>
struct PrefillStage {
    std::uint32_t b[2][FragsN];       // [half][n-fragment]: lane t's word of its column
    std::uint32_t scale2[FragsN];     // fp16 scale of the lane's column, both lanes
    std::uint32_t zero2[FragsN];      // fp16 -z * s, both lanes
};

template <int CtaM, int CtaK, int Warps, int Stages>
__device__ __forceinline__ void prefillTile(const AwqGemmParams& p, long long mTile, long long nTile, int split) {
    using S = PrefillShape<CtaM, CtaK, Warps, Stages>;
    extern __shared__ __align__(16) unsigned char smem[];
    auto* ring = reinterpret_cast<__half*>(smem);
    constexpr int kThreads = Warps * kWarpSize;
    const int lane = static_cast<int>(threadIdx.x), warp = static_cast<int>(threadIdx.y);
    const int tid = warp * kWarpSize + lane;
    const Lane l = device::laneCoordinates();
    const int warpN = warp % S::kWarpsN, slice = warp / S::kWarpsN;
    const long long row0 = mTile * CtaM, col0 = nTile * S::kCtaN;
    const auto* input = static_cast<const __half*>(p.input);
    const auto* qweight = static_cast<const std::uint32_t*>(p.qweight);
    const auto* scaledZeros = static_cast<const unsigned short*>(p.qzeros);
    const auto* scales = static_cast<const unsigned short*>(p.scales);

    const long long tiles = p.k / CtaK;
    const long long first = awq::prefillFirstTile(tiles, split, p.splitK);
    const long long mine = awq::prefillTilesOfSplit(tiles, split, p.splitK);

    constexpr int kCopies = S::kStageHalves / kHalfPerVector / kThreads;
    static_assert(kCopies * kThreads * kHalfPerVector == S::kStageHalves, "A copies must split evenly");
#pragma unroll
    for (int v = 0; v < kCopies; ++v) {  // rows past M stay zero in every stage
        const int idx = v * kThreads + tid, r = idx / S::kChunksPerRow, c = idx % S::kChunksPerRow;
        if (row0 + r >= p.m)
            for (int stage = 0; stage < Stages; ++stage)
                *reinterpret_cast<uint4*>(ring + stage * S::kStageHalves + r * CtaK +
                                          awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector) = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    auto issueA = [&](long long local) {
        if (local < mine) {
            const long long k0 = (first + local) * CtaK;
            __half* stage = ring + (local % Stages) * S::kStageHalves;
#pragma unroll
            for (int v = 0; v < kCopies; ++v) {
                const int idx = v * kThreads + tid, r = idx / S::kChunksPerRow, c = idx % S::kChunksPerRow;
                if (row0 + r < p.m)
                    device::copy16Async(stage + r * CtaK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector,
                                        input + (row0 + r) * p.k + k0 + c * kHalfPerVector);
            }
        }
        __pipeline_commit();  // empty groups keep the wait count uniform
    };
    auto columnOf = [&](int f) { return col0 + warpN * (S::kFragsN * kMmaN) + f * kMmaN + l.g; };
    auto loadB = [&](PrefillStage<S::kFragsN>& st, long long local) {
        if (local >= mine) return;
        const long long kBlock = (first + local) * CtaK + slice * S::kSliceK;
        const long long group = kBlock / p.groupSize;
#pragma unroll
        for (int f = 0; f < S::kFragsN; ++f) {
            const long long n = columnOf(f);
            if (n < p.n) {
#pragma unroll
                for (int h = 0; h < S::kHalves; ++h) st.b[h][f] = __ldg(qweight + awq::prefillWordOf(n, kBlock, h, l.t, p.k));
                st.scale2[f] = __ldg(scales + group * p.n + n) * 0x00010001u;
                st.zero2[f] = __ldg(scaledZeros + group * p.n + n) * 0x00010001u;
            } else {
#pragma unroll
                for (int h = 0; h < S::kHalves; ++h) st.b[h][f] = 0;
                st.scale2[f] = st.zero2[f] = 0;
            }
        }
    };

    float acc[S::kFragsM][S::kFragsN][4] = {};
    auto compute = [&](const PrefillStage<S::kFragsN>& st, long long local) {
        const __half* stage = ring + (local % Stages) * S::kStageHalves;
        // Not unrolled over the halves: unrolled, ptxas hoists every ldmatrix of the tile and spills.
#pragma unroll 1
        for (int h = 0; h < S::kHalves; ++h)
#pragma unroll
            for (int step = 0; step < 2; ++step) {
                std::uint32_t a[S::kFragsM][4];
#pragma unroll
                for (int fm = 0; fm < S::kFragsM; ++fm) {
                    const int r = fm * kTileM + lane % 16;
                    const int c = (slice * S::kSliceK + h * kTileK + step * kMmaK) / kHalfPerVector + lane / 16;
                    device::ldmatrixX4(a[fm], stage + r * CtaK + awq::swizzleChunk(r, c, S::kChunksPerRow) * kHalfPerVector);
                }
#pragma unroll
                for (int f = 0; f < S::kFragsN; ++f) {
                    std::uint32_t b[2];
#pragma unroll
                    for (int i = 0; i < 2; ++i) {
                        const std::uint32_t word = h == 0 ? st.b[0][f] : st.b[1][f];
                        const std::uint32_t q = device::hsub2Bits(awq::magicHalves(word, 2 * step + i), awq::kHalf2Magic);
                        b[i] = device::hfma2Bits(q, st.scale2[f], st.zero2[f]);
                    }
#pragma unroll
                    for (int fm = 0; fm < S::kFragsM; ++fm) device::mmaF16(acc[fm][f], a[fm], b);
                }
            }
    };

    PrefillStage<S::kFragsN> stages[S::kBDepth];
#pragma unroll
    for (int s = 0; s < S::kBDepth; ++s) loadB(stages[s], s);
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) issueA(s);
    for (long long base = 0; base < mine; base += S::kBDepth) {
#pragma unroll
        for (int s = 0; s < S::kBDepth; ++s) {
            const long long local = base + s;
            if (local >= mine) break;
            __pipeline_wait_prior(Stages - 2);
            __syncthreads();  // stage `local` landed for every thread; stage local - 1 is read by all
            issueA(local + Stages - 1);
            const PrefillStage<S::kFragsN> current = stages[s];
            loadB(stages[s], local + S::kBDepth);
            compute(current, local);
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();

    constexpr int kAccPerLane = S::kFragsM * S::kFragsN * 4;
    if constexpr (S::kSlices > 1) {  // the slices' sums meet in the A ring
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

// awq_gemm device code, written from KERNELS.md section 2: the m16n{128,64}k32 split-k kernel
// (launch design of AutoAWQ_kernels gemm_cuda_gen.cu / vLLM gemm_kernels.cu, smem layout of
// vLLM's), the llm-awq grid-y launch, and the M-bucketed prefill kernel (AutoAWQ_kernels
// quantization_new/gemm/gemm_cuda.cu launch design). The code is ours: tensor cores through
// mma.sync on a dequantised fp16 tile in shared memory.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/common/awq_format.h"
#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace {

using device::Lane;

constexpr int kWarpSize = 32;
constexpr int kTileM = 16;
constexpr int kTileK = 32;
constexpr int kPadA = 8;  // vLLM's A tile 16 x (32 + 8)
constexpr int kPadB = 8;  // vLLM's B tile 32 x (N + 8)
constexpr int kGemmThreads = 64;
constexpr int kMmaK = 16;
constexpr int kMmaN = 8;
constexpr int kHalfPerVector = 8;  // 16-byte vectors

__device__ __forceinline__ uint4 loadRowVector(const __half* input, long long row, int rows, long long ld, long long col) {
    if (row >= rows) return make_uint4(0, 0, 0, 0);
    return *reinterpret_cast<const uint4*>(input + row * ld + col);
}

// Writes one C fragment (16 x 8 floats) as fp16 pairs, rows bounded by M.
__device__ __forceinline__ void storeFragment(__half* out, long long ldOut, long long row0, long long col0, int rows,
                                              const float (&c)[4], Lane l) {
    const long long r0 = row0 + l.g, col = col0 + 2 * l.t;
    if (col >= ldOut) return;  // the prefill tile (N 128) may overhang an N that is a multiple of 64 only
    if (r0 < rows) *reinterpret_cast<__half2*>(out + r0 * ldOut + col) = __floats2half2_rn(c[0], c[1]);
    if (r0 + 8 < rows) *reinterpret_cast<__half2*>(out + (r0 + 8) * ldOut + col) = __floats2half2_rn(c[2], c[3]);
}

// One 16 x TileN output tile over the K chunks of one split. Static smem: vLLM's layout,
// 10,496 B (TileN 128) or 6,144 B (TileN 64), which the planner claims.
template <int TileN>
__device__ __forceinline__ void gemmTile(const AwqGemmParams& p, long long mTile, long long nTile, int split) {
    __shared__ __align__(16) __half sA[kTileM][kTileK + kPadA];
    __shared__ __align__(16) __half sB[kTileK][TileN + kPadB];
    __shared__ __half sScales[TileN];
    __shared__ __half sZeros[TileN];

    const int tid = static_cast<int>(threadIdx.y) * kWarpSize + static_cast<int>(threadIdx.x);
    const int warp = static_cast<int>(threadIdx.y);
    const Lane l = device::laneCoordinates();
    const long long row0 = mTile * kTileM, col0 = nTile * TileN;
    const long long wordsPerRow = p.n / awq::kNibblesPerWord;
    const auto* input = static_cast<const __half*>(p.input);
    const auto* qweight = static_cast<const std::uint32_t*>(p.qweight);
    const auto* qzeros = static_cast<const std::uint32_t*>(p.qzeros);
    const auto* scales = static_cast<const __half*>(p.scales);

    constexpr int kWarpCols = TileN / 2;  // two warps split the tile's columns
    constexpr int kFragments = kWarpCols / kMmaN;
    float acc[kFragments][4] = {};

    const long long chunks = p.k / kTileK;
    for (long long chunk = split; chunk < chunks; chunk += p.splitK) {
        const long long k0 = chunk * kTileK;
        const long long group = k0 / p.groupSize;  // G % 32 == 0: one group per chunk
        {  // A: 16 x 32 fp16, one 16-byte vector per thread
            const int r = tid / (kTileK / kHalfPerVector), c = (tid % (kTileK / kHalfPerVector)) * kHalfPerVector;
            *reinterpret_cast<uint4*>(&sA[r][c]) = loadRowVector(input, row0 + r, p.m, p.k, k0 + c);
        }
        for (int c = tid; c < TileN; c += kGemmThreads) {
            const long long column = col0 + c;
            sScales[c] = scales[group * p.n + column];
            const unsigned zword = qzeros[group * wordsPerRow + column / awq::kNibblesPerWord];
            sZeros[c] = __int2half_rn(awq::nibbleAt(zword, awq::gemmNibbleOfColumn(static_cast<int>(column % awq::kNibblesPerWord))));
        }
        __syncthreads();
        constexpr int kWordsPerRow = TileN / awq::kNibblesPerWord;
        for (int idx = tid; idx < kTileK * kWordsPerRow; idx += kGemmThreads) {
            const int kk = idx / kWordsPerRow, wc = idx % kWordsPerRow;
            const unsigned word = qweight[(k0 + kk) * wordsPerRow + col0 / awq::kNibblesPerWord + wc];
#pragma unroll
            for (int i = 0; i < awq::kNibblesPerWord; ++i) {
                const int c = wc * awq::kNibblesPerWord + awq::gemmColumnOfNibble(i);
                const float w = awq::dequantize(awq::nibbleAt(word, i), __half2int_rn(sZeros[c]), __half2float(sScales[c]));
                sB[kk][c] = __float2half_rn(w);
            }
        }
        __syncthreads();
#pragma unroll
        for (int ks = 0; ks < kTileK; ks += kMmaK) {
            std::uint32_t a[4];
            device::loadA(a, &sA[0][0], kTileK + kPadA, 0, ks, l);
#pragma unroll
            for (int f = 0; f < kFragments; ++f) {
                std::uint32_t b[2];
                device::loadBkMajor(b, &sB[0][0], TileN + kPadB, warp * kWarpCols + f * kMmaN, ks, l);
                device::mmaF16(acc[f], a, b);
            }
        }
        __syncthreads();
    }
    auto* out = static_cast<__half*>(p.output) + static_cast<long long>(split) * p.m * p.n;
#pragma unroll
    for (int f = 0; f < kFragments; ++f) storeFragment(out, p.n, row0, col0 + warp * kWarpCols + f * kMmaN, p.m, acc[f], l);
}

template <int TileN>
__device__ __forceinline__ void gemmFlatGrid(const AwqGemmParams& p) {
    const awq::GemmBlock b = awq::decodeGemmBlock(blockIdx.x, p.n / TileN, p.splitK);
    gemmTile<TileN>(p, b.mTile, b.nTile, b.split);
}

// llm-awq's launch: grid (1, M tiles x N tiles, split_k).
__device__ __forceinline__ void gemmLegacyGrid(const AwqGemmParams& p) {
    constexpr int kTileN = 128;
    const long long nTiles = p.n / kTileN;
    gemmTile<kTileN>(p, blockIdx.y / nTiles, blockIdx.y % nTiles, static_cast<int>(blockIdx.z));
}

// ---- prefill: CTA_M x CTA_N x CTA_K tiles, a ring of cp.async stages in dynamic smem ----
// Layout: stages x [A: CtaM x CtaK fp16 | packed B: CtaK x CtaN/8 int32], then one 16-row
// dequantised fp16 slice of B (16 x CtaN) that the tensor cores read.
template <int CtaM, int CtaN, int CtaK, int Warps, int Stages>
__device__ __forceinline__ void prefillBody(const AwqGemmParams& p) {
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int kThreads = Warps * kWarpSize;
    constexpr int kABytes = CtaM * CtaK * 2;
    constexpr int kBWordsPerRow = CtaN / awq::kNibblesPerWord;
    constexpr int kBBytes = CtaK * kBWordsPerRow * 4;
    constexpr int kStageBytes = kABytes + kBBytes;
    constexpr int kSliceBytes = kMmaK * CtaN * 2;
    constexpr int kFragmentsM = CtaM / kTileM, kFragmentsN = CtaN / kMmaN;
    constexpr int kFragmentsPerWarp = kFragmentsM * kFragmentsN / Warps;
    static_assert(kFragmentsM * kFragmentsN % Warps == 0, "fragments must split evenly over warps");
    const int stages = awq::prefillStagesThatFit(p.dynamicSmemBytes, kStageBytes, kSliceBytes, Stages);
    __half* slice = reinterpret_cast<__half*>(smem + static_cast<long long>(stages) * kStageBytes);

    const int tid = static_cast<int>(threadIdx.x), warp = tid / kWarpSize;
    const Lane l = device::laneCoordinates();
    const long long nTiles = (p.n + CtaN - 1) / CtaN;
    const awq::GemmBlock blk = awq::decodeGemmBlock(blockIdx.x, nTiles, p.splitK);
    const long long row0 = blk.mTile * CtaM, col0 = blk.nTile * CtaN;
    const long long wordsPerRow = p.n / awq::kNibblesPerWord;
    const auto* input = static_cast<const __half*>(p.input);
    const auto* qweight = static_cast<const std::uint32_t*>(p.qweight);
    const auto* qzeros = static_cast<const std::uint32_t*>(p.qzeros);
    const auto* scales = static_cast<const __half*>(p.scales);
    const long long chunks = p.k / CtaK;
    const long long mine = awq::chunksOfSplit(chunks, blk.split, p.splitK);

    auto issue = [&](long long local) {
        if (local < mine) {
            const long long k0 = (blk.split + local * p.splitK) * CtaK;
            unsigned char* stage = smem + (local % stages) * kStageBytes;
            auto* a = reinterpret_cast<__half*>(stage);
            for (int v = tid; v < CtaM * CtaK / kHalfPerVector; v += kThreads) {
                const int r = v / (CtaK / kHalfPerVector), c = (v % (CtaK / kHalfPerVector)) * kHalfPerVector;
                if (row0 + r < p.m)
                    device::copy16Async(a + r * CtaK + c, input + (row0 + r) * p.k + k0 + c);
                else
                    *reinterpret_cast<uint4*>(a + r * CtaK + c) = make_uint4(0, 0, 0, 0);
            }
            auto* b = reinterpret_cast<std::uint32_t*>(stage + kABytes);
            constexpr int kVectorsPerRow = kBWordsPerRow / 4;
            for (int v = tid; v < CtaK * kVectorsPerRow; v += kThreads) {
                const int r = v / kVectorsPerRow, c = (v % kVectorsPerRow) * 4;
                if (col0 + c * awq::kNibblesPerWord < p.n)
                    device::copy16Async(b + r * kBWordsPerRow + c, qweight + (k0 + r) * wordsPerRow + col0 / awq::kNibblesPerWord + c);
                else
                    *reinterpret_cast<uint4*>(b + r * kBWordsPerRow + c) = make_uint4(0, 0, 0, 0);
            }
        }
        __pipeline_commit();  // empty groups keep the wait count uniform
    };

    float acc[kFragmentsPerWarp][4] = {};
    for (int s = 0; s < stages - 1; ++s) issue(s);
    for (long long local = 0; local < mine; ++local) {
        issue(local + stages - 1);
        __pipeline_wait_prior(stages - 1);
        __syncthreads();
        const long long k0 = (blk.split + local * p.splitK) * CtaK;
        const long long group = k0 / p.groupSize;  // G = 128 >= CtaK: one group per chunk
        const unsigned char* stage = smem + (local % stages) * kStageBytes;
        const auto* a = reinterpret_cast<const __half*>(stage);
        const auto* b = reinterpret_cast<const std::uint32_t*>(stage + kABytes);
        for (int ks = 0; ks < CtaK; ks += kMmaK) {
            for (int idx = tid; idx < kMmaK * kBWordsPerRow; idx += kThreads) {
                const int kk = idx / kBWordsPerRow, wc = idx % kBWordsPerRow;
                const unsigned word = b[(ks + kk) * kBWordsPerRow + wc];
                const long long colBase = col0 + wc * awq::kNibblesPerWord;
                if (colBase >= p.n) {
                    for (int i = 0; i < awq::kNibblesPerWord; ++i) slice[kk * CtaN + wc * awq::kNibblesPerWord + i] = __float2half_rn(0.f);
                    continue;
                }
                const unsigned zword = qzeros[group * wordsPerRow + colBase / awq::kNibblesPerWord];
#pragma unroll
                for (int i = 0; i < awq::kNibblesPerWord; ++i) {
                    const int c = awq::gemmColumnOfNibble(i);
                    const float s = __half2float(scales[group * p.n + colBase + c]);
                    slice[kk * CtaN + wc * awq::kNibblesPerWord + c] =
                        __float2half_rn(awq::dequantize(awq::nibbleAt(word, i), awq::nibbleAt(zword, i), s));
                }
            }
            __syncthreads();
#pragma unroll
            for (int f = 0; f < kFragmentsPerWarp; ++f) {
                const int fragment = warp * kFragmentsPerWarp + f;
                const int fm = fragment / kFragmentsN, fn = fragment % kFragmentsN;
                std::uint32_t af[4], bf[2];
                device::loadA(af, a, CtaK, fm * kTileM, ks, l);
                device::loadBkMajor(bf, slice, CtaN, fn * kMmaN, 0, l);
                device::mmaF16(acc[f], af, bf);
            }
            __syncthreads();
        }
    }
    __pipeline_wait_prior(0);
    auto* out = static_cast<__half*>(p.output) + static_cast<long long>(blk.split) * p.m * p.n;
#pragma unroll
    for (int f = 0; f < kFragmentsPerWarp; ++f) {
        const int fragment = warp * kFragmentsPerWarp + f;
        storeFragment(out, p.n, row0 + (fragment / kFragmentsN) * kTileM, col0 + (fragment % kFragmentsN) * kMmaN, p.m, acc[f], l);
    }
}

}  // namespace
}  // namespace tilescope

using tilescope::AwqGemmParams;

extern "C" __global__ void __launch_bounds__(64) awq_gemm_m16n128k32(AwqGemmParams p) { tilescope::gemmFlatGrid<128>(p); }
extern "C" __global__ void __launch_bounds__(64) awq_gemm_m16n64k32(AwqGemmParams p) { tilescope::gemmFlatGrid<64>(p); }
extern "C" __global__ void __launch_bounds__(64) awq_gemm_legacy_m16n128k32(AwqGemmParams p) { tilescope::gemmLegacyGrid(p); }
// Prefill buckets (AwqGemmFamily::prefillBuckets): CTA M, N, K, warps, stages.
extern "C" __global__ void __launch_bounds__(256) awq_gemm_prefill_m16n128k128s4(AwqGemmParams p) {
    tilescope::prefillBody<16, 128, 128, 8, 4>(p);
}
extern "C" __global__ void __launch_bounds__(256) awq_gemm_prefill_m16n128k128s3(AwqGemmParams p) {
    tilescope::prefillBody<16, 128, 128, 8, 3>(p);
}
extern "C" __global__ void __launch_bounds__(256) awq_gemm_prefill_m32n128k128s4(AwqGemmParams p) {
    tilescope::prefillBody<32, 128, 128, 8, 4>(p);
}
extern "C" __global__ void __launch_bounds__(128) awq_gemm_prefill_m64n128k64s4(AwqGemmParams p) {
    tilescope::prefillBody<64, 128, 64, 4, 4>(p);
}
extern "C" __global__ void __launch_bounds__(128) awq_gemm_prefill_m64n128k64s4_large(AwqGemmParams p) {
    tilescope::prefillBody<64, 128, 64, 4, 4>(p);
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

// gemm_bucket device code, written from KERNELS.md section 4: out[cell, N] = x[M, K] @ W[N, K]^T
// in bf16 with the launch of sglang's o_proj gemm_ar (single-GPU form). The code is ours:
// persistent blocks over N tiles, a cp.async ring of K stages sized from the planner's dynamic
// shared memory, bf16 tensor cores through mma.sync m16n8k16 (sm_80+).
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"
#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/gemm_bucket/params.h"

namespace tilescope {
namespace {

using device::Lane;
using bf16 = __nv_bfloat16;

[[maybe_unused]] constexpr int kWarpSize = 32;
[[maybe_unused]] constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
[[maybe_unused]] constexpr int kVector = 8;  // bf16 per 16-byte copy

// Rows: activation rows per pass (the cell up to 128); StageRows: rows one stage reserves.
template <int Rows, int StageRows, int BlockN, int Warps>
__device__ __forceinline__ void bucketGemm(const GemmBucketParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int kThreads = Warps * kWarpSize;
    constexpr int kFragmentsM = Rows / kMmaM, kFragmentsN = BlockN / kMmaN;
    constexpr int kFragments = kFragmentsM * kFragmentsN;
    constexpr int kPerWarp = (kFragments + Warps - 1) / Warps;
    constexpr int kStageElements = (StageRows + BlockN) * bucket::kBlockK;
    const int stages = bucket::stagesThatFit(p.dynamicSmemBytes, bucket::stageBytes(StageRows, BlockN));
    auto* ring = reinterpret_cast<bf16*>(smem);

    const int tid = static_cast<int>(threadIdx.x), warp = tid / kWarpSize;
    const Lane l = device::laneCoordinates();
    const auto* x = static_cast<const bf16*>(p.x);
    const auto* w = static_cast<const bf16*>(p.w);
    auto* out = static_cast<bf16*>(p.out);
    const long long nTiles = bucket::tilesAlongN(p.n, BlockN);
    const int chunks = p.k / bucket::kBlockK;
    const int passes = (p.cell + Rows - 1) / Rows;
    constexpr int kVectorsPerRow = bucket::kBlockK / kVector;

    for (long long work = blockIdx.x; work < nTiles * passes; work += gridDim.x) {
        const long long col0 = (work / passes) * BlockN;
        const int rowBase = static_cast<int>(work % passes) * Rows;
        auto issue = [&](int chunk) {
            if (chunk < chunks) {
                bf16* a = ring + (chunk % stages) * kStageElements;
                bf16* b = a + StageRows * bucket::kBlockK;
                const long long k0 = static_cast<long long>(chunk) * bucket::kBlockK;
                for (int v = tid; v < (Rows + BlockN) * kVectorsPerRow; v += kThreads) {
                    const int r = v / kVectorsPerRow, c = (v % kVectorsPerRow) * kVector;
                    if (r < Rows) {
                        const int row = rowBase + r;
                        if (row < p.m)
                            device::copy16Async(a + r * bucket::kBlockK + c, x + row * static_cast<long long>(p.k) + k0 + c);
                        else
                            *reinterpret_cast<uint4*>(a + r * bucket::kBlockK + c) = make_uint4(0, 0, 0, 0);
                    } else {
                        const long long n = col0 + (r - Rows);
                        bf16* to = b + (r - Rows) * bucket::kBlockK + c;
                        if (n < p.n)
                            device::copy16Async(to, w + n * p.k + k0 + c);
                        else
                            *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
                    }
                }
            }
            __pipeline_commit();
        };

        float acc[kPerWarp][4] = {};
        __syncthreads();  // the previous work item's stages are consumed
        for (int s = 0; s < stages - 1; ++s) issue(s);
        for (int chunk = 0; chunk < chunks; ++chunk) {
            issue(chunk + stages - 1);
            __pipeline_wait_prior(stages - 1);
            __syncthreads();
            const bf16* a = ring + (chunk % stages) * kStageElements;
            const bf16* b = a + StageRows * bucket::kBlockK;
#pragma unroll
            for (int ks = 0; ks < bucket::kBlockK; ks += kMmaK) {
#pragma unroll
                for (int f = 0; f < kPerWarp; ++f) {
                    const int fragment = warp + f * Warps;
                    if (fragment >= kFragments) break;
                    std::uint32_t af[4], bf[2];
                    device::loadA(af, a, bucket::kBlockK, (fragment / kFragmentsN) * kMmaM, ks, l);
                    device::loadBnMajor(bf, b, bucket::kBlockK, (fragment % kFragmentsN) * kMmaN, ks, l);
                    device::mmaBf16(acc[f], af, bf);
                }
            }
            __syncthreads();  // this stage is refilled by a later issue()
        }
        __pipeline_wait_prior(0);
#pragma unroll
        for (int f = 0; f < kPerWarp; ++f) {
            const int fragment = warp + f * Warps;
            if (fragment >= kFragments) break;
            const int row = rowBase + (fragment / kFragmentsN) * kMmaM + l.g;
            const long long col = col0 + (fragment % kFragmentsN) * kMmaN + 2 * l.t;
            if (col >= p.n) continue;
            if (row < p.cell)
                *reinterpret_cast<__nv_bfloat162*>(out + row * static_cast<long long>(p.n) + col) =
                    __floats2bfloat162_rn(acc[f][0], acc[f][1]);
            if (row + 8 < p.cell)
                *reinterpret_cast<__nv_bfloat162*>(out + (row + 8) * static_cast<long long>(p.n) + col) =
                    __floats2bfloat162_rn(acc[f][2], acc[f][3]);
        }
    }
#else
    (void)p;
    __trap();  // no bf16 tensor cores below sm_80; every cell's smem is over sm_75's opt-in limit anyway
#endif
}

}  // namespace
}  // namespace tilescope

using tilescope::GemmBucketParams;
namespace bucket = tilescope::bucket;

// Cells 8 and 16: grid 152 x 224 threads (7 warps), one 16-row tile, N tiles of 7 x 8 columns.
extern "C" __global__ void __launch_bounds__(224) gemm_bucket_small(GemmBucketParams p) {
    tilescope::bucketGemm<bucket::kSmallCellRows, bucket::kSmallCellRows, bucket::kSmallCellBlockN, bucket::kSmallCellWarps>(p);
}
// Cells 32..512: 256 threads, BN 16..256, stages of 128 activation rows + BN weight rows.
extern "C" __global__ void __launch_bounds__(256) gemm_bucket_bn16(GemmBucketParams p) {
    tilescope::bucketGemm<32, bucket::kRowsPerPass, 16, 8>(p);
}
extern "C" __global__ void __launch_bounds__(256) gemm_bucket_bn32(GemmBucketParams p) {
    tilescope::bucketGemm<64, bucket::kRowsPerPass, 32, 8>(p);
}
extern "C" __global__ void __launch_bounds__(256) gemm_bucket_bn64(GemmBucketParams p) {
    tilescope::bucketGemm<128, bucket::kRowsPerPass, 64, 8>(p);
}
extern "C" __global__ void __launch_bounds__(256) gemm_bucket_bn128(GemmBucketParams p) {
    tilescope::bucketGemm<128, bucket::kRowsPerPass, 128, 8>(p);
}
extern "C" __global__ void __launch_bounds__(256) gemm_bucket_bn256(GemmBucketParams p) {
    tilescope::bucketGemm<128, bucket::kRowsPerPass, 256, 8>(p);
}

namespace tilescope {

DeviceKernelList gemmBucketDeviceKernels() {
    static const DeviceKernel list[] = {
        {"gemm_bucket_small", reinterpret_cast<const void*>(&gemm_bucket_small)},
        {"gemm_bucket_bn16", reinterpret_cast<const void*>(&gemm_bucket_bn16)},
        {"gemm_bucket_bn32", reinterpret_cast<const void*>(&gemm_bucket_bn32)},
        {"gemm_bucket_bn64", reinterpret_cast<const void*>(&gemm_bucket_bn64)},
        {"gemm_bucket_bn128", reinterpret_cast<const void*>(&gemm_bucket_bn128)},
        {"gemm_bucket_bn256", reinterpret_cast<const void*>(&gemm_bucket_bn256)},
    };
    return {list, sizeof list / sizeof list[0]};
}

}  // namespace tilescope

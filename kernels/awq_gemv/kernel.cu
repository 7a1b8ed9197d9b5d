// awq_gemv device code, written from KERNELS.md section 1 (launch design of AutoAWQ_kernels
// gemv_cuda.cu and quantization_new/gemv/gemv_cuda.cu; the code is ours).
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemv/params.h"
#include "kernels/common/awq_format.h"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace {

constexpr int kWarpSize = 32;
constexpr int kGemvWarps = 4;            // block (32, 4): one warp per output channel
constexpr int kGemvWordsPerLoad = 4;     // 16-byte loads: 32 weights per lane and step
constexpr int kFastThreads = 256;
constexpr int kFastRowsPerBlock = 8;     // two interleaved groups of 4 rows
constexpr int kFastThreadsPerGroup = kFastThreads / 2;
constexpr int kFastElementsPerLoad = 8;  // 8 int16 = 32 weights of one row
constexpr int kFastSlotsPerWarp = 16;    // static smem: [batch][8 warps][16] floats = 512 B per batch row

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Batch-1 GEMV: grid (1, N/4, B), block (32, 4), no shared memory.
__device__ __forceinline__ void gemvBody(const AwqGemvParams& p) {
    const int n = static_cast<int>(blockIdx.y) * kGemvWarps + static_cast<int>(threadIdx.y);
    const int row = static_cast<int>(blockIdx.z);
    if (n >= p.n || row >= p.m) return;
    const int wordsPerRow = p.k / awq::kNibblesPerWord;
    const long long zw = awq::gemvZerosWidth(p.k, p.groupSize);
    const auto* qweight = static_cast<const std::uint32_t*>(p.qweight) + static_cast<long long>(n) * wordsPerRow;
    const auto* qzeros = static_cast<const std::uint32_t*>(p.qzeros) + n * zw;
    const auto* scales = static_cast<const __half*>(p.scales) + n * zw * awq::kNibblesPerWord;
    const auto* input = static_cast<const __half*>(p.input) + static_cast<long long>(row) * p.k;

    float sum = 0.f;
    for (int word0 = static_cast<int>(threadIdx.x) * kGemvWordsPerLoad; word0 < wordsPerRow;
         word0 += kWarpSize * kGemvWordsPerLoad) {
        const uint4 packed = *reinterpret_cast<const uint4*>(qweight + word0);
        const unsigned words[kGemvWordsPerLoad] = {packed.x, packed.y, packed.z, packed.w};
        // 32 weights inside one 32-aligned k range: one group (G is 64 or 128).
        const int k0 = word0 * awq::kNibblesPerWord;
        const int group = k0 / p.groupSize;
        const int zero = awq::nibbleAt(__ldg(qzeros + group / awq::kNibblesPerWord), group % awq::kNibblesPerWord);
        const float scale = __half2float(scales[group]);
#pragma unroll
        for (int w = 0; w < kGemvWordsPerLoad; ++w) {
#pragma unroll
            for (int i = 0; i < awq::kNibblesPerWord; ++i) {
                const int k = k0 + w * awq::kNibblesPerWord + i;
                sum += awq::dequantize(awq::nibbleAt(words[w], i), zero, scale) * __half2float(input[k]);
            }
        }
    }
    sum = warpSum(sum);
    if (threadIdx.x == 0) static_cast<__half*>(p.output)[static_cast<long long>(row) * p.n + n] = __float2half_rn(sum);
}

// gemv_fast: grid N/8, block 256, static smem 512 * B bytes for the cross-warp reduction.
// Threads 0..127 read row group 2*blockIdx.x, 128..255 the next; a thread's 8 int16 always
// belong to row (lane % 8) / 2 of its group, as the k-stride-64 interleave puts 16 int16 per row.
template <int Batch>
__device__ __forceinline__ void gemvFastBody(const AwqGemvParams& p) {
    __shared__ float partial[Batch][kFastThreads / kWarpSize][kFastSlotsPerWarp];
    const int tid = static_cast<int>(threadIdx.x);
    const int groupInBlock = tid / kFastThreadsPerGroup;
    const int local = tid % kFastThreadsPerGroup;
    const long long rowGroup = static_cast<long long>(blockIdx.x) * 2 + groupInBlock;
    const auto* qweight = static_cast<const std::int16_t*>(p.qweight) + rowGroup * p.k;
    const auto* scales = static_cast<const __half*>(p.scales);
    const auto* scaledZeros = static_cast<const __half*>(p.qzeros);
    const auto* input = static_cast<const __half*>(p.input);

    float acc[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) acc[b] = 0.f;

    const int rowInGroup = (local % 8) / 2;
    const long long n = rowGroup * awq::kFastInterleave + rowInGroup;
    for (int pos = local * kFastElementsPerLoad; pos < p.k; pos += kFastThreadsPerGroup * kFastElementsPerLoad) {
        const uint4 packed = *reinterpret_cast<const uint4*>(qweight + pos);
        const unsigned pairs[4] = {packed.x, packed.y, packed.z, packed.w};
        const int group = (pos / awq::kFastKStride * awq::kFastKStride) / p.groupSize;
        const float scale = __half2float(scales[static_cast<long long>(group) * p.n + n]);
        const float zeroTerm = __half2float(scaledZeros[static_cast<long long>(group) * p.n + n]);
#pragma unroll
        for (int e = 0; e < kFastElementsPerLoad; ++e) {
            const unsigned element = (pairs[e / 2] >> (16 * (e % 2))) & 0xffffu;
#pragma unroll
            for (int s = 0; s < awq::kFastInterleave; ++s) {
                const awq::FastWeight where = awq::fastWeightAt(pos + e, s);
                const float w = static_cast<float>(awq::nibbleAt(element, s)) * scale + zeroTerm;
#pragma unroll
                for (int b = 0; b < Batch; ++b) acc[b] += w * __half2float(input[static_cast<long long>(b) * p.k + where.k]);
            }
        }
    }
    // Lanes l and l^16 hold the same row: fold, then lanes 0..15 publish one slot each.
    const int warp = tid / kWarpSize, lane = tid % kWarpSize;
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
        const float v = acc[b] + __shfl_xor_sync(0xffffffffu, acc[b], 16);
        if (lane < kFastSlotsPerWarp) partial[b][warp][lane] = v;
    }
    __syncthreads();
    const int warpsPerGroup = kFastThreadsPerGroup / kWarpSize;
    if (tid < Batch * kFastRowsPerBlock) {
        const int b = tid / kFastRowsPerBlock, outRow = tid % kFastRowsPerBlock;
        const int g = outRow / awq::kFastInterleave, r = outRow % awq::kFastInterleave;
        float sum = 0.f;
        for (int w = 0; w < warpsPerGroup; ++w)
            for (int slot = 0; slot < kFastSlotsPerWarp; ++slot)
                if ((slot % 8) / 2 == r) sum += partial[b][g * warpsPerGroup + w][slot];
        const long long outN = static_cast<long long>(blockIdx.x) * kFastRowsPerBlock + outRow;
        static_cast<__half*>(p.output)[static_cast<long long>(b) * p.n + outN] = __float2half_rn(sum);
    }
}

}  // namespace
}  // namespace tilescope

using tilescope::AwqGemvParams;

extern "C" __global__ void __launch_bounds__(128) awq_gemv_kernel(AwqGemvParams p) { tilescope::gemvBody(p); }
#define TILESCOPE_FAST(B) \
    extern "C" __global__ void __launch_bounds__(256) awq_gemv_fast_b##B(AwqGemvParams p) { tilescope::gemvFastBody<B>(p); }
TILESCOPE_FAST(1)
TILESCOPE_FAST(2)
TILESCOPE_FAST(3)
TILESCOPE_FAST(4)
TILESCOPE_FAST(5)
TILESCOPE_FAST(6)
TILESCOPE_FAST(7)
#undef TILESCOPE_FAST

namespace tilescope {

DeviceKernelList awqGemvDeviceKernels() {
    static const DeviceKernel list[] = {
        {"awq_gemv_kernel", reinterpret_cast<const void*>(&awq_gemv_kernel)},
        {"awq_gemv_fast_b1", reinterpret_cast<const void*>(&awq_gemv_fast_b1)},
        {"awq_gemv_fast_b2", reinterpret_cast<const void*>(&awq_gemv_fast_b2)},
        {"awq_gemv_fast_b3", reinterpret_cast<const void*>(&awq_gemv_fast_b3)},
        {"awq_gemv_fast_b4", reinterpret_cast<const void*>(&awq_gemv_fast_b4)},
        {"awq_gemv_fast_b5", reinterpret_cast<const void*>(&awq_gemv_fast_b5)},
        {"awq_gemv_fast_b6", reinterpret_cast<const void*>(&awq_gemv_fast_b6)},
        {"awq_gemv_fast_b7", reinterpret_cast<const void*>(&awq_gemv_fast_b7)},
    };
    return {list, sizeof list / sizeof list[0]};
}

}  // namespace tilescope

// awq_gemv device code, written from KERNELS.md section 1 (launch design of AutoAWQ_kernels
// gemv_cuda.cu and quantization_new/gemv/gemv_cuda.cu; the code is ours). Both kernels stream the
// weights once from DRAM: several independent loads in flight per thread, activations in 16-byte
// loads, nibbles dequantised in registers with the fp16 magic-number trick (prmt/lop3 + fma.f16x2),
// products in fp16x2 flushed to fp32 every few words (well inside reference_check's 1e-2 bound).
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/awq_gemv/params.h"
#include "kernels/awq_common/awq_format.h"
#include "kernels/device_kernels.h"

namespace tilescope {
namespace {

constexpr int kWarpSize = 32;
constexpr int kGemvWarps = 4;                               // block (32, 4): one warp per output channel
constexpr int kGemvSpanSteps = 4;                           // words per lane per span
constexpr int kGemvSpanWords = kGemvSpanSteps * kWarpSize;  // 128 words = 1,024 k per warp and span
constexpr int kGemvPrefetchWords = 2048;                    // 8 KB of a row asked of L2 ahead of the loads
constexpr int kFastThreads = 256;
constexpr int kFastWarps = kFastThreads / kWarpSize;
constexpr int kFastRowGroups = 2;    // grid N/8: two interleaved groups of 4 rows per block
constexpr int kFastGroupSize = 128;  // the only one gemv_fast takes (upstream's template argument)
constexpr int kFastOutputs = kFastRowGroups * awq::kFastInterleave;
constexpr int kFastStepK = kFastThreads * awq::kFastChunk / awq::kFastInterleave;  // 2,048 k per step
constexpr int kFastPrefetchK = 4 * kFastStepK;                                     // int16 of each row group asked of L2 ahead of the loads

// ---- fp16x2 arithmetic on raw 32-bit registers (what the dequant helpers produce) ----
__device__ __forceinline__ unsigned hfma2(unsigned a, unsigned b, unsigned c) {
    unsigned d;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ __forceinline__ unsigned hmul2(unsigned a, unsigned b) {
    unsigned d;
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ float pairSum(unsigned h2) {
    const __half2 v = *reinterpret_cast<const __half2*>(&h2);
    return __low2float(v) + __high2float(v);
}
__device__ __forceinline__ uint4 ldg4(const void* p) { return __ldg(static_cast<const uint4*>(p)); }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 900
__device__ __forceinline__ void prefetchL2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }
#endif
// One instruction asks L2 for `bytes` (a multiple of 16, 16-byte aligned) of global memory (sm_90 bulk
// prefetch; older architectures go without): the stream is in flight long before the loads reach it.
__device__ __forceinline__ void bulkPrefetchL2(const void* p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(bytes) : "memory");
#else
    (void)p;
    (void)bytes;
#endif
}

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// ---- gemv: grid (1, N/4, B), block (32, 4), no shared memory ----
// The row is walked in spans of 128 words (1,024 k). In step j (0..3) of a span, lane l takes word
// span + 32 j + l: every weight load is 128 contiguous bytes per warp and every activation load (the
// word's 8 fp16, one 16-byte load) 512 contiguous bytes, so no sector is fetched twice per request.
// A span covers exactly 8 (G=128) or 16 (G=64) groups: its scales are one or two 16-byte loads and its
// zeros one or two qzeros words, in bounds for every started span (zw rounds the groups up to whole
// words, and to pairs of words for G=64). In step j the lane's group inside the span is
// j * (32 / wordsPerGroup) + laneGroup, laneGroup = l / wordsPerGroup: its scale is half laneGroup % 2
// of scale pair j (G=128) or 2 j + laneGroup / 2 (G=64); its zero is nibble 2 j (G=128) or 4 (j % 2) (G=64,
// word j / 2) of the zero word shifted right by 4 laneGroup, i.e. the low nibble of byte j or 2 (j % 2).
// The next span's weights are loaded before this span's arithmetic (two spans in flight per warp).
template <int GroupSize>
struct GemvLane {
    static constexpr int kWordsPerGroup = GroupSize / awq::kNibblesPerWord;  // 16 (G=128) or 8 (G=64)
    static constexpr int kGroupsPerStep = kWarpSize / kWordsPerGroup;        // 2 or 4
    static constexpr int kSpanGroups = kGemvSpanSteps * kGroupsPerStep;      // 8 or 16
    static constexpr int kScaleVectors = kSpanGroups / 8;                    // 16-byte scale loads per span
    static constexpr int kZeroWords = kSpanGroups / awq::kNibblesPerWord;    // qzeros words per span

    const uint4* input;      // this lane's activations of step 0 of the current span
    const uint4* scales;     // the current span's scales
    const unsigned* qzeros;  // the current span's zero words
    unsigned halfSelect;     // prmt selector of the lane's half of a scale pair
    bool upperPair;          // G=64: scale pair 2 j + 1
    int zeroShift;           // 4 * laneGroup

    // One span: `packed` holds the lane's 4 words; Tail: only words with 32 j < left exist (their
    // weights are zero words, their activations zeros, so they add exactly 0).
    template <bool Tail>
    __device__ __forceinline__ float span(const unsigned (&packed)[kGemvSpanSteps], int left) {
        uint4 x[kGemvSpanSteps];
#pragma unroll
        for (int j = 0; j < kGemvSpanSteps; ++j)
            x[j] = !Tail || kWarpSize * j < left ? __ldg(input + kWarpSize * j) : make_uint4(0, 0, 0, 0);
        input += kGemvSpanWords;
        unsigned scalePairs[4 * kScaleVectors];
#pragma unroll
        for (int v = 0; v < kScaleVectors; ++v) {
            const uint4 s = __ldg(scales + v);
            scalePairs[4 * v + 0] = s.x;
            scalePairs[4 * v + 1] = s.y;
            scalePairs[4 * v + 2] = s.z;
            scalePairs[4 * v + 3] = s.w;
        }
        scales += kScaleVectors;
        unsigned zeroBytes[kZeroWords];  // the lane's zeros as the low nibbles of bytes
#pragma unroll
        for (int v = 0; v < kZeroWords; ++v) zeroBytes[v] = (__ldg(qzeros + v) >> zeroShift) & 0x0f0f0f0fu;
        qzeros += kZeroWords;

        unsigned sum2 = 0u;  // fp16x2 partial of this span (4 words), flushed to fp32 below
#pragma unroll
        for (int j = 0; j < kGemvSpanSteps; ++j) {
            const unsigned zeroSource = zeroBytes[kZeroWords == 1 ? 0 : j / 2];
            const unsigned zeroByte = kZeroWords == 1 ? j : 2 * (j % 2);
            const unsigned z = __byte_perm(zeroSource, 0u, 0x4440u + zeroByte);  // byte zeroByte, others 0
            const unsigned bias = awq::gemvZeroBias(z);
            const unsigned pair = kGroupsPerStep == 2 ? scalePairs[j] : (upperPair ? scalePairs[2 * j + 1] : scalePairs[2 * j]);
            const unsigned scale2 = __byte_perm(pair, 0u, halfSelect);
            const unsigned xs[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
            unsigned dot = 0u;
#pragma unroll
            for (int pr = 0; pr < 4; ++pr) {
                const unsigned d = hfma2(awq::gemvPairMagic(packed[j], pr), awq::kGemvPairUnit, bias);  // q - z, exact
                dot = pr == 0 ? hmul2(d, xs[pr]) : hfma2(d, xs[pr], dot);
            }
            sum2 = hfma2(dot, scale2, sum2);
        }
        return pairSum(sum2);
    }
};

template <int GroupSize>
__device__ __forceinline__ void gemvRow(const AwqGemvParams& p, int n, int row) {
    using Lane = GemvLane<GroupSize>;
    const int lane = static_cast<int>(threadIdx.x);
    const int words = p.k / awq::kNibblesPerWord;
    const long long zw = awq::gemvZerosWidth(p.k, GroupSize);
    const unsigned* qweight = static_cast<const unsigned*>(p.qweight) + static_cast<long long>(n) * words + lane;
    const int laneGroup = lane / Lane::kWordsPerGroup;  // 0..kGroupsPerStep-1
    Lane state{reinterpret_cast<const uint4*>(static_cast<const __half*>(p.input) + static_cast<long long>(row) * p.k) + lane,
               reinterpret_cast<const uint4*>(static_cast<const __half*>(p.scales) + n * zw * awq::kNibblesPerWord),
               static_cast<const unsigned*>(p.qzeros) + n * zw,
               laneGroup % 2 != 0 ? 0x3232u : 0x1010u,
               laneGroup >= 2,
               awq::kNibbleBits * laneGroup};

    // Spans [0, fullEnd) have all 128 words; a last partial span follows when words % 128 != 0.
    const int fullEnd = words - words % kGemvSpanWords;
    // Lane 0 asks L2 for the row's first kGemvPrefetchWords words at once, then for one span that far
    // ahead per span (rows are 16-byte aligned and whole multiples of 16 bytes: K % 32 == 0).
    if (lane == 0) bulkPrefetchL2(qweight, 4u * static_cast<unsigned>(min(words, kGemvPrefetchWords)));
    float acc = 0.f;
    unsigned next[kGemvSpanSteps];
#pragma unroll
    for (int j = 0; j < kGemvSpanSteps; ++j) next[j] = lane + kWarpSize * j < words ? __ldg(qweight + kWarpSize * j) : 0u;
#pragma unroll 1
    for (int span = 0; span < fullEnd; span += kGemvSpanWords) {
        unsigned packed[kGemvSpanSteps];
#pragma unroll
        for (int j = 0; j < kGemvSpanSteps; ++j) packed[j] = next[j];
        qweight += kGemvSpanWords;
        // The next span's weights go out before this span's arithmetic: two spans in flight per warp.
        if (span + 2 * kGemvSpanWords <= words) {
#pragma unroll
            for (int j = 0; j < kGemvSpanSteps; ++j) next[j] = __ldg(qweight + kWarpSize * j);
        } else {
            const int left = words - span - kGemvSpanWords - lane;
#pragma unroll
            for (int j = 0; j < kGemvSpanSteps; ++j) next[j] = kWarpSize * j < left ? __ldg(qweight + kWarpSize * j) : 0u;
        }
        // For lane 0 qweight is now row + span + 128: the prefetch starts at row + span + kGemvPrefetchWords.
        if (lane == 0 && span + kGemvPrefetchWords < words)
            bulkPrefetchL2(qweight + (kGemvPrefetchWords - kGemvSpanWords),
                           4u * static_cast<unsigned>(min(kGemvSpanWords, words - span - kGemvPrefetchWords)));
        acc += state.template span<false>(packed, 0);
    }
    if (fullEnd < words) acc += state.template span<true>(next, words - fullEnd - lane);
    acc = warpSum(acc);
    if (lane == 0) static_cast<__half*>(p.output)[static_cast<long long>(row) * p.n + n] = __float2half_rn(acc);
}

__device__ __forceinline__ void gemvBody(const AwqGemvParams& p) {
    const int n = static_cast<int>(blockIdx.y) * kGemvWarps + static_cast<int>(threadIdx.y);
    const int row = static_cast<int>(blockIdx.z);
    if (n >= p.n || row >= p.m) return;  // whole warps: the shuffles below stay full
    if (p.groupSize == 64) gemvRow<64>(p, n, row);
    else gemvRow<128>(p, n, row);
}

// ---- gemv_fast: grid N/8, block 256, static smem 512 * B bytes ----
// Upstream's thread map: thread t reads int16 [8t, 8t + 8) of every 2,048-wide k step in both row groups
// of the block, i.e. row (t / 2) % 4 of the group, k chunk 64 (t / 8) + 32 (t % 2); its 32 activations
// per batch row are loaded once (four 16-byte loads) and serve both row groups. The step is consumed
// one activation vector v at a time: vector v (pairs 4v..4v+3) meets pair b = v of each of the 4 words,
// so only 8 dequantised pairs and one activation vector are live at once.
template <int Batch>
__device__ __forceinline__ void gemvFastBody(const AwqGemvParams& p) {
    // llm-awq quantization_new/gemv/gemv_cuda.cu: float out_smem[BlockSize / WARP_SIZE * 2][Num * kInterleave],
    // Num = 2 * Batch: 512 * Batch bytes (the planner's figure); the reduction uses its first kFastWarps rows.
    __shared__ float partial[2 * kFastWarps][Batch * kFastOutputs];
    const int tid = static_cast<int>(threadIdx.x);
    const int row = (tid / 2) % awq::kFastInterleave;
    const int chunkK = (tid / 8) * awq::kFastKStride + (tid % 2) * awq::kFastChunk;  // k of the chunk in step 0
    const int k = p.k;
    // Row group g of the block is 4 rows below row group 0 in scales / scaled zeros and k int16 further in qweight.
    const long long n0 = static_cast<long long>(blockIdx.x) * kFastOutputs + row;
    const long long scaleStep = static_cast<long long>(kFastStepK / kFastGroupSize) * p.n;
    long long metaAt = static_cast<long long>(chunkK / kFastGroupSize) * p.n + n0;
    const std::int16_t* weights = static_cast<const std::int16_t*>(p.qweight) + static_cast<long long>(blockIdx.x) * kFastRowGroups * k +
                                  tid * (awq::kFastChunk / awq::kFastInterleave);
    const __half* input = static_cast<const __half*>(p.input);  // + b * k + kc: row b, this thread's chunk
    const auto* scales = static_cast<const unsigned short*>(p.scales);
    const auto* scaledZeros = static_cast<const unsigned short*>(p.qzeros);

    // Thread 0 asks L2 for the first kFastPrefetchK int16 of both row groups at once (16-byte aligned
    // multiples of 128 bytes: K % 64 == 0); the loop keeps that window moving for longer K.
    if (tid == 0) {
#pragma unroll
        for (int g = 0; g < kFastRowGroups; ++g)
            bulkPrefetchL2(weights + static_cast<long long>(g) * k, 2u * static_cast<unsigned>(min(k, kFastPrefetchK)));
    }
    float acc[kFastRowGroups][Batch];
#pragma unroll
    for (int g = 0; g < kFastRowGroups; ++g)
#pragma unroll
        for (int b = 0; b < Batch; ++b) acc[g][b] = 0.f;

#pragma unroll 1
    for (int kc = chunkK; kc < k; kc += kFastStepK) {
        unsigned words[kFastRowGroups][4], scale2[kFastRowGroups], zero2[kFastRowGroups];
#pragma unroll
        for (int g = 0; g < kFastRowGroups; ++g) {
            const uint4 w = ldg4(weights + static_cast<long long>(g) * k);
            words[g][0] = w.x;
            words[g][1] = w.y;
            words[g][2] = w.z;
            words[g][3] = w.w;
            scale2[g] = __ldg(scales + metaAt + g * awq::kFastInterleave) * 0x00010001u;
            zero2[g] = __ldg(scaledZeros + metaAt + g * awq::kFastInterleave) * 0x00010001u;
        }
        weights += kFastStepK;
        metaAt += scaleStep;
        // Later weights head for L2 now, at no register cost (a register double buffer took B = 4 from
        // 80 to 127 registers, two blocks per SM instead of three): DRAM stays busy meanwhile.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        // Thread 0 (chunkK = 0, kc = 2,048 s) keeps the bulk prefetch kFastPrefetchK ahead of its step:
        // weights is now row group 0 + kc + 2,048, so the window's next step starts kFastPrefetchK - 2,048 further.
        if (tid == 0 && kc + kFastPrefetchK < k) {
            const unsigned bytes = 2u * static_cast<unsigned>(min(kFastStepK, k - kc - kFastPrefetchK));
#pragma unroll
            for (int g = 0; g < kFastRowGroups; ++g)
                bulkPrefetchL2(weights + (kFastPrefetchK - kFastStepK) + static_cast<long long>(g) * k, bytes);
        }
#else
        if (kc + kFastStepK < k) {
#pragma unroll
            for (int g = 0; g < kFastRowGroups; ++g) prefetchL2(weights + static_cast<long long>(g) * k);
        }
#endif
        unsigned dot[kFastRowGroups][Batch];
#pragma unroll
        for (int v = 0; v < 4; ++v) {
            // Pair b = v of word j is activation pair 4v + j (awq::fastPairActivation): q * s + (-z * s).
            unsigned wq[kFastRowGroups][4];
#pragma unroll
            for (int g = 0; g < kFastRowGroups; ++g)
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const unsigned magic = awq::fastPairMagic(words[g][j], v);
                    const unsigned q = v % 2 == 0 ? hfma2(magic, awq::kHalf2One, awq::kHalf2Minus1024)
                                                  : hfma2(magic, awq::kHalf2Sixteenth, awq::kHalf2Minus64);
                    wq[g][j] = hfma2(q, scale2[g], zero2[g]);
                }
#pragma unroll
            for (int b = 0; b < Batch; ++b) {
                const uint4 x4 = ldg4(input + static_cast<long long>(b) * k + kc + 8 * v);
                const unsigned xs[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
                for (int g = 0; g < kFastRowGroups; ++g)
#pragma unroll
                    for (int j = 0; j < 4; ++j) dot[g][b] = v == 0 && j == 0 ? hmul2(wq[g][j], xs[j]) : hfma2(wq[g][j], xs[j], dot[g][b]);
            }
        }
#pragma unroll
        for (int g = 0; g < kFastRowGroups; ++g)
#pragma unroll
            for (int b = 0; b < Batch; ++b) acc[g][b] += pairSum(dot[g][b]);  // 32 products per fp16 partial
    }
    // Lanes 2r, 2r+1, +8, +16 hold row r's partials of this warp: fold them, lanes 0,2,4,6 publish.
    const int warp = tid / kWarpSize, lane = tid % kWarpSize;
#pragma unroll
    for (int g = 0; g < kFastRowGroups; ++g)
#pragma unroll
        for (int b = 0; b < Batch; ++b) {
            float v = acc[g][b];
            v += __shfl_xor_sync(0xffffffffu, v, 1);
            v += __shfl_xor_sync(0xffffffffu, v, 8);
            v += __shfl_xor_sync(0xffffffffu, v, 16);
            if ((lane & 0x19) == 0) partial[warp][b * kFastOutputs + g * awq::kFastInterleave + lane / 2] = v;
        }
    __syncthreads();
    if (tid < Batch * kFastOutputs) {
        float sum = 0.f;
#pragma unroll
        for (int w = 0; w < kFastWarps; ++w) sum += partial[w][tid];
        const int b = tid / kFastOutputs, out = tid % kFastOutputs;
        const long long outN = static_cast<long long>(blockIdx.x) * kFastOutputs + out;
        static_cast<__half*>(p.output)[static_cast<long long>(b) * p.n + outN] = __float2half_rn(sum);
    }
}

}  // namespace

}  // namespace tilescope

using tilescope::AwqGemvParams;

extern "C" __global__ void __launch_bounds__(128) awq_gemv_kernel(AwqGemvParams p) { tilescope::gemvBody(p); }
#define TILESCOPE_FAST(B) \
    extern "C" __global__ void __launch_bounds__(256) awq_gemv_fast_b##B(AwqGemvParams p) { tilescope::gemvFastBody<B>(p); }
// Batch 1 keeps 40 registers (six blocks per SM; Turing holds 1,024 threads, four) with its prefetch
// code; an explicit minimum for the others made ptxas spill or take far more registers.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TILESCOPE_FAST1_BLOCKS 4
#else
#define TILESCOPE_FAST1_BLOCKS 6
#endif
extern "C" __global__ void __launch_bounds__(256, TILESCOPE_FAST1_BLOCKS) awq_gemv_fast_b1(AwqGemvParams p) {
    tilescope::gemvFastBody<1>(p);
}
TILESCOPE_FAST(2)
TILESCOPE_FAST(3)
TILESCOPE_FAST(4)
TILESCOPE_FAST(5)
TILESCOPE_FAST(6)
TILESCOPE_FAST(7)
#undef TILESCOPE_FAST
#undef TILESCOPE_FAST1_BLOCKS

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

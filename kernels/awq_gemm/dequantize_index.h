// The stacks' dequantize launch (variants autoawq, vllm) as index maths shared by our kernel and the
// CPU tests: which packed word each thread of upstream's geometry owns (block (8, 8), grid (N/64, K/8):
// one qweight word = 8 columns of one K row per thread), where its zero word, scales and 8 outputs are,
// and the exact fp16 pair dequantisation. Upstream's launch: AutoAWQ_kernels v0.0.9
// awq_ext/quantization/gemm_cuda_gen.cu lines 1135-1162, vLLM v0.4.0 csrc/quantization/awq/gemm_kernels.cu
// lines 356-378 (cited in kernels/awq_gemm/plan.cpp).
#pragma once

#include "kernels/awq_common/awq_format.h"
#include "kernels/common/host_device.h"

namespace tilescope::awq {

inline constexpr int kDequantizeThreadsX = 8;  // packed words (64 columns) per block along N
inline constexpr int kDequantizeThreadsY = 8;  // K rows per block

// The packed word (K row, word along N/8) a thread dequantises.
struct DequantizeWord {
    long long row = 0;
    long long word = 0;
};
TILESCOPE_HD DequantizeWord dequantizeWordOf(int blockX, int blockY, int threadX, int threadY) {
    return {static_cast<long long>(blockY) * kDequantizeThreadsY + threadY, static_cast<long long>(blockX) * kDequantizeThreadsX + threadX};
}
// Element offsets into the GEMM packing's tensors and the fp16 W[K, N] the kernel writes.
TILESCOPE_HD long long dequantizeQweightOffset(DequantizeWord w, long long n) { return w.row * (n / kNibblesPerWord) + w.word; }
TILESCOPE_HD long long dequantizeZerosOffset(DequantizeWord w, long long n, long long groupSize) {
    return (w.row / groupSize) * (n / kNibblesPerWord) + w.word;
}
TILESCOPE_HD long long dequantizeScalesOffset(DequantizeWord w, long long n, long long groupSize) {
    return (w.row / groupSize) * n + w.word * kNibblesPerWord;
}
TILESCOPE_HD long long dequantizeOutputOffset(DequantizeWord w, long long n) { return w.row * n + w.word * kNibblesPerWord; }

// Output columns 2p and 2p+1 of a word are its nibbles p and p+4 (gemmNibbleOfColumn): bits 4p.. and
// 16+4p.., so one shift and mask give both as the low bits of an fp16x2's lanes. magicHalves ORs in
// 1024 (fp16 0x6400, mantissa step 1): lanes 1024 + q exactly; the same for the zero word, and
// (1024 + q) - (1024 + z) = q - z is exact in fp16, so one multiply by the scales rounds once.
TILESCOPE_HD unsigned dequantizePairMagic(unsigned word, int pair) { return magicHalves(word, pair); }

}  // namespace tilescope::awq

// The stacks' dequantize launch (awq_gemm autoawq / vllm from their threshold) on the CPU: upstream's
// geometry as the planner gives it covers every packed word once (dequantize_index.h), and the kernel's
// per-thread work, run here through the same index and fp16 pair maths, reproduces the quantiser's
// weights bit for bit. Geometry: AutoAWQ_kernels v0.0.9 gemm_cuda_gen.cu lines 1135-1162 and vLLM v0.4.0
// gemm_kernels.cu lines 356-378 (grid (N/64, K/8), block (8, 8), one qweight word per thread).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "kernels/awq_common/awq_quant.h"
#include "kernels/awq_gemm/dequantize_index.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/common/float16.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

float halfOf(unsigned bits) { return halfBitsToFloat(static_cast<std::uint16_t>(bits)); }

// What one thread of our kernel computes, in CPU arithmetic: the pair's lanes as fp16 1024 + q and
// 1024 + z, their exact difference, one rounding multiply by the scale (fp16 __hmul2 rounds the exact
// product once; q - z is a small integer, so the float product is exact before that rounding).
std::vector<std::uint16_t> dequantizeWord(const awq::GemmPacked& packed, awq::DequantizeWord w, long long n, long long g) {
    const auto word = static_cast<unsigned>(packed.qweight[static_cast<std::size_t>(awq::dequantizeQweightOffset(w, n))]);
    const auto zeros = static_cast<unsigned>(packed.qzeros[static_cast<std::size_t>(awq::dequantizeZerosOffset(w, n, g))]);
    const long long scales = awq::dequantizeScalesOffset(w, n, g);
    std::vector<std::uint16_t> out(8);
    for (int pair = 0; pair < 4; ++pair) {
        const unsigned q = awq::dequantizePairMagic(word, pair), z = awq::dequantizePairMagic(zeros, pair);
        for (int lane = 0; lane < 2; ++lane) {
            const float diff = halfOf(q >> (16 * lane)) - halfOf(z >> (16 * lane));
            const float scale = halfBitsToFloat(packed.scales[static_cast<std::size_t>(scales + 2 * pair + lane)]);
            out[static_cast<std::size_t>(2 * pair + lane)] = floatToHalfBits(diff * scale);
        }
    }
    return out;
}

TEST(AwqDequantizeIndex, PlannedGridCoversEveryPackedWordOnce) {
    const long long n = 192, k = 64;
    const LaunchPlan p = test::plan("awq_gemm", "vllm", "M=256,N=192,K=64,group_size=32", "h200");
    ASSERT_EQ(p.verdict, Verdict::Ok) << p.message;
    ASSERT_EQ(p.block, (Dim3{awq::kDequantizeThreadsX, awq::kDequantizeThreadsY, 1}));
    std::set<std::pair<long long, long long>> seen;
    for (int bx = 0; bx < p.grid.x; ++bx)
        for (int by = 0; by < p.grid.y; ++by)
            for (int tx = 0; tx < p.block.x; ++tx)
                for (int ty = 0; ty < p.block.y; ++ty) {
                    const awq::DequantizeWord w = awq::dequantizeWordOf(bx, by, tx, ty);
                    EXPECT_LT(w.row, k);
                    EXPECT_LT(w.word, n / 8);
                    EXPECT_TRUE(seen.insert({w.row, w.word}).second);
                    // Scales are read 16 bytes at a time: 8 fp16 = one aligned uint4.
                    EXPECT_EQ(awq::dequantizeScalesOffset(w, n, 32) % 8, 0);
                    EXPECT_EQ(awq::dequantizeOutputOffset(w, n) % 8, 0);
                }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(k * n / 8));
}

TEST(AwqDequantizeIndex, ThreadWorkReproducesTheQuantisedWeightsExactly) {
    const long long n = 128, k = 64, g = 32;
    const std::vector<float> weights = awq::randomHalfValues(static_cast<std::size_t>(n * k), 7, 1.0f);
    const awq::Quantized q = awq::quantize(weights, n, k, g);
    const awq::GemmPacked packed = awq::packGemm(q);
    for (int bx = 0; bx < n / 64; ++bx)
        for (int by = 0; by < k / 8; ++by)
            for (int tx = 0; tx < 8; ++tx)
                for (int ty = 0; ty < 8; ++ty) {
                    const awq::DequantizeWord w = awq::dequantizeWordOf(bx, by, tx, ty);
                    const std::vector<std::uint16_t> out = dequantizeWord(packed, w, n, g);
                    for (int c = 0; c < 8; ++c) {
                        const long long column = w.word * 8 + c;  // W[K, N]: row w.row, this column
                        const auto expected = floatToHalfBits(static_cast<float>(q.weight(column, w.row)));
                        ASSERT_EQ(out[static_cast<std::size_t>(c)], expected) << "K row " << w.row << ", column " << column;
                    }
                }
}

TEST(AwqDequantizeIndex, PairLanesAreColumnsTwoPAndTwoPPlusOne) {
    // Column 2p is nibble p, column 2p+1 nibble p+4 (upstream's unpack order [0,4,1,5,2,6,3,7]).
    for (int pair = 0; pair < 4; ++pair) {
        EXPECT_EQ(awq::gemmNibbleOfColumn(2 * pair), pair);
        EXPECT_EQ(awq::gemmNibbleOfColumn(2 * pair + 1), pair + 4);
        const unsigned word = 0xfu << (4 * (pair + 4)) | 0x3u << (4 * pair);
        const unsigned lanes = awq::dequantizePairMagic(word, pair);
        EXPECT_EQ(halfOf(lanes), 1024.0f + 3.0f);
        EXPECT_EQ(halfOf(lanes >> 16), 1024.0f + 15.0f);
    }
}

}  // namespace
}  // namespace tilescope

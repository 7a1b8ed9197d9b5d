#include <gtest/gtest.h>

#include <set>

#include "kernels/awq_common/awq_format.h"
#include "kernels/common/float16.h"

namespace tilescope::awq {
namespace {

TEST(AwqFormat, GemmNibbleOrderIsUpstreamsOrderAndItsInverse) {
    const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};   // KERNELS.md: nibble i holds column ORDER[i]
    const int unpack[8] = {0, 4, 1, 5, 2, 6, 3, 7};  // and is unpacked with this
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(gemmColumnOfNibble(i), order[i]) << i;
        EXPECT_EQ(gemmNibbleOfColumn(i), unpack[i]) << i;
        EXPECT_EQ(gemmNibbleOfColumn(gemmColumnOfNibble(i)), i);
    }
}

TEST(AwqFormat, NibbleExtraction) {
    EXPECT_EQ(nibbleAt(0x76543210u, 0), 0);
    EXPECT_EQ(nibbleAt(0x76543210u, 5), 5);
    EXPECT_EQ(nibbleAt(0xf0000000u, 7), 15);
    EXPECT_DOUBLE_EQ(dequantize(12, 8, 0.5f), 2.0);
    EXPECT_DOUBLE_EQ(dequantize(0, 15, 0.25f), -3.75);
}

TEST(AwqFormat, GemvZerosWidthPadsPerGroupSize) {
    EXPECT_EQ(gemvZerosWidth(4096, 128), 4);    // 32 groups -> 4 words
    EXPECT_EQ(gemvZerosWidth(4096, 64), 8);     // 64 groups -> 8 words (multiple of 2)
    EXPECT_EQ(gemvZerosWidth(4160, 64), 10);    // 65 groups -> 9 words -> padded to 10
    EXPECT_EQ(gemvZerosWidth(4096, 32), 16);    // 128 groups -> 16 words (multiple of 4)
    EXPECT_EQ(gemvZerosWidth(96, 32), 4);       // 3 groups -> 1 word -> padded to 4
    EXPECT_EQ(gemvZerosWidth(11008, 128), 11);  // 86 groups -> 11 words
}

TEST(AwqFormat, FastOffsetsArePermutationsOfA32Chunk) {
    std::set<int> seen;
    for (int pp = 0; pp < kFastChunk; ++pp) {
        const int original = fastOriginalOffset(pp);
        EXPECT_EQ(fastPackedOffset(original), pp);
        seen.insert(original);
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(kFastChunk));
    // Worked by hand from pack_intweight: original 1 lands at 4, original 8 at 1, original 2 at 8.
    EXPECT_EQ(fastPackedOffset(1), 4);
    EXPECT_EQ(fastPackedOffset(8), 1);
    EXPECT_EQ(fastPackedOffset(2), 8);
}

TEST(AwqFormat, FastLocationAndInverseAgreeOnEveryWeight) {
    const long long n = 8, k = 192;
    std::set<std::pair<long long, int>> used;
    for (long long row = 0; row < n; ++row)
        for (long long col = 0; col < k; ++col) {
            const FastLocation at = fastLocation(row, col, k);
            EXPECT_TRUE(used.insert({at.element, at.nibble}).second) << "two weights share a nibble";
            const FastWeight back = fastWeightAt(at.element % k, at.nibble);
            EXPECT_EQ((at.element / k) * kFastInterleave + back.row, row);
            EXPECT_EQ(back.k, col);
        }
    EXPECT_EQ(used.size(), static_cast<std::size_t>(n * k));
    // The k-stride-64 interleave: row 1's first weight follows row 0's 64 weights (16 int16).
    EXPECT_EQ(fastLocation(1, 0, k).element, 16);
    EXPECT_EQ(fastLocation(0, 1, k).element, 1);
    EXPECT_EQ(fastLocation(4, 0, k).element, k);
}

// The gemv_fast kernel (upstream's thread map) gives each of the block's 256 threads 8 consecutive
// int16 of both row groups per step (stride 2,048) and assumes they hold weights of row (thread / 2) % 4,
// k chunk 64 (thread / 8) + 32 (thread % 2) of the step: one 32-k chunk, hence one group of 128.
TEST(AwqFormat, GemvFastThreadReadsOneRowPerLoad) {
    const long long k = 4096;
    for (int thread = 0; thread < 256; ++thread)
        for (long long pos = thread * 8; pos < k; pos += 256 * 8)
            for (int e = 0; e < 8; ++e)
                for (int s = 0; s < kFastInterleave; ++s) {
                    const FastWeight w = fastWeightAt(pos + e, s);
                    ASSERT_EQ(w.row, (thread / 2) % 4) << thread << " " << pos;
                    const long long chunk = (pos / 2048) * 2048 + (thread / 8) * kFastKStride + (thread % 2) * kFastChunk;
                    ASSERT_GE(w.k, chunk) << thread << " " << pos;
                    ASSERT_LT(w.k, chunk + kFastChunk) << thread << " " << pos;
                }
}

TEST(Float16, HalfRoundTripsEveryFiniteValue) {
    for (unsigned bits = 0; bits < 0x10000u; ++bits) {
        const auto h = static_cast<std::uint16_t>(bits);
        if ((h & 0x7c00u) == 0x7c00u) continue;  // inf / nan
        EXPECT_EQ(floatToHalfBits(halfBitsToFloat(h)), h) << bits;
    }
    EXPECT_EQ(floatToHalfBits(1.0f), 0x3c00u);
    EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bffu);
    EXPECT_EQ(floatToHalfBits(1e6f), 0x7c00u);                   // overflow -> inf
    EXPECT_EQ(floatToHalfBits(1.0f + 1.0f / 4096.0f), 0x3c00u);  // ties to even
    EXPECT_FLOAT_EQ(halfBitsToFloat(0x0001u), 5.9604645e-8f);    // smallest subnormal
}

TEST(Float16, Bf16RoundsToNearestEven) {
    EXPECT_EQ(floatToBf16Bits(1.0f), 0x3f80u);
    EXPECT_FLOAT_EQ(bf16BitsToFloat(0x3f80u), 1.0f);
    EXPECT_EQ(floatToBf16Bits(1.0f + 1.0f / 256.0f), 0x3f80u);  // halfway: even stays
    EXPECT_EQ(floatToBf16Bits(1.0f + 3.0f / 256.0f), 0x3f82u);  // halfway: odd rounds up
    for (unsigned bits = 0; bits < 0x7f80u; bits += 7) EXPECT_EQ(floatToBf16Bits(bf16BitsToFloat(static_cast<std::uint16_t>(bits))), bits);
}

}  // namespace
}  // namespace tilescope::awq

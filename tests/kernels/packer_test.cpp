#include <gtest/gtest.h>

#include <cmath>

#include "kernels/awq_common/awq_format.h"
#include "kernels/awq_common/awq_quant.h"
#include "kernels/common/float16.h"

namespace tilescope::awq {
namespace {

Quantized randomWeights(std::int64_t n, std::int64_t k, std::int64_t g, std::uint64_t seed) {
    return quantize(randomHalfValues(static_cast<std::size_t>(n * k), seed, 0.1f), n, k, g);
}

class PackerRoundTrip : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(PackerRoundTrip, GemvPackingUnpacksToTheSameWeights) {
    const std::int64_t g = GetParam();
    const Quantized w = randomWeights(16, 512, g, 7);
    const GemvPacked packed = packGemv(w);
    EXPECT_EQ(packed.zerosWidth, gemvZerosWidth(512, g));
    EXPECT_EQ(unpackGemv(packed, 16, 512, g), w);
}

TEST_P(PackerRoundTrip, GemmPackingUnpacksToTheSameWeights) {
    const std::int64_t g = GetParam();
    const Quantized w = randomWeights(64, 256, g, 11);
    EXPECT_EQ(unpackGemm(packGemm(w), 64, 256, g), w);
}

INSTANTIATE_TEST_SUITE_P(GroupSizes, PackerRoundTrip, ::testing::Values(32, 64, 128));

TEST(Packer, GemvFastPackingUnpacksToTheSameWeights) {
    const Quantized w = randomWeights(16, 384, 128, 13);
    EXPECT_EQ(unpackGemvFast(packGemvFast(w), 16, 384, 128), w);
}

TEST(Packer, QuantisationErrorIsAtMostHalfAStep) {
    const std::int64_t n = 8, k = 256, g = 64;
    const std::vector<float> original = randomHalfValues(static_cast<std::size_t>(n * k), 3, 0.1f);
    const Quantized w = quantize(original, n, k, g);
    for (std::int64_t row = 0; row < n; ++row)
        for (std::int64_t c = 0; c < k; ++c) {
            const double scale = halfBitsToFloat(w.scales[static_cast<std::size_t>(row * w.groups() + c / g)]);
            EXPECT_LE(std::abs(w.weight(row, c) - original[static_cast<std::size_t>(row * k + c)]), 0.5 * scale + 1e-6) << row << "," << c;
        }
}

// Known layouts, worked by hand from the format descriptions (not from the packers).
TEST(Packer, GemmWordHoldsColumnsInAwqOrder) {
    Quantized w;
    w.n = 8;
    w.k = 32;
    w.groupSize = 32;
    w.q.resize(8 * 32);
    for (int row = 0; row < 8; ++row) w.q[static_cast<std::size_t>(row * 32)] = static_cast<std::uint8_t>(row);  // k = 0
    w.zeros.assign(8, 0);
    w.scales.assign(8, floatToHalfBits(1.f));
    const GemmPacked p = packGemm(w);
    // Nibble i holds column ORDER[i] = [0,2,4,6,1,3,5,7], whose value is its column index.
    EXPECT_EQ(static_cast<std::uint32_t>(p.qweight[0]), 0x75316420u);
}

TEST(Packer, GemvWordHoldsKInNaturalOrder) {
    Quantized w;
    w.n = 4;
    w.k = 32;
    w.groupSize = 32;
    w.q.resize(4 * 32);
    for (int c = 0; c < 8; ++c) w.q[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c);
    w.zeros.assign(4, 9);
    w.scales.assign(4, floatToHalfBits(0.5f));
    const GemvPacked p = packGemv(w);
    EXPECT_EQ(static_cast<std::uint32_t>(p.qweight[0]), 0x76543210u);
    EXPECT_EQ(static_cast<std::uint32_t>(p.qzeros[0]), 9u);  // group 0 in nibble 0
    EXPECT_EQ(p.scales[0], floatToHalfBits(0.5f));
}

TEST(Packer, GemvFastScaledZerosAreMinusZeroTimesScale) {
    const Quantized w = randomWeights(8, 128, 128, 5);
    const GemvFastPacked p = packGemvFast(w);
    for (std::int64_t row = 0; row < 8; ++row) {
        const float s = halfBitsToFloat(w.scales[static_cast<std::size_t>(row)]);
        EXPECT_FLOAT_EQ(halfBitsToFloat(p.scaledZeros[static_cast<std::size_t>(row)]),
                        halfBitsToFloat(floatToHalfBits(-static_cast<float>(w.zeros[static_cast<std::size_t>(row)]) * s)));
    }
}

}  // namespace
}  // namespace tilescope::awq

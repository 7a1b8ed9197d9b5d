#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/attention/reference.h"
#include "kernels/awq_gemm/reference.h"
#include "kernels/awq_gemv/reference.h"
#include "kernels/common/float16.h"
#include "kernels/common/reference_check.h"
#include "kernels/gemm_bucket/reference.h"

namespace tilescope {
namespace {

TEST(AwqReference, MatchesAHandComputedProduct) {
    awq::Quantized w;
    w.n = 2;
    w.k = 2;
    w.groupSize = 2;
    w.q = {3, 5, 0, 15};  // row 0: (3, 5), row 1: (0, 15)
    w.zeros = {1, 8};
    w.scales = {floatToHalfBits(0.5f), floatToHalfBits(2.f)};
    // W = [[1, 2], [-16, 14]]; x = [[1, 1], [2, -1]]
    const std::vector<double> out = awq::linearReference({1.f, 1.f, 2.f, -1.f}, 2, w);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_DOUBLE_EQ(out[0], 3.0);
    EXPECT_DOUBLE_EQ(out[1], -2.0);
    EXPECT_DOUBLE_EQ(out[2], 0.0);
    EXPECT_DOUBLE_EQ(out[3], -46.0);
}

TEST(AwqReference, SplitKPartialsAreSummed) {
    const std::vector<std::uint16_t> partials = {floatToHalfBits(1.f), floatToHalfBits(2.f), floatToHalfBits(0.5f), floatToHalfBits(-4.f)};
    const std::vector<float> out = awq::sumSplitK(partials, 2, 1, 2);
    EXPECT_FLOAT_EQ(out[0], 1.5f);
    EXPECT_FLOAT_EQ(out[1], -2.f);
}

TEST(AttentionReference, UniformScoresAverageTheValues) {
    attention::Problem p;
    p.seqlenQ = 1;
    p.seqlenK = 3;
    p.headDim = 1;
    p.headDimV = 1;
    p.softmaxScale = 1.f;
    p.q = {0.f};  // every score 0
    p.k = {1.f, 2.f, 3.f};
    p.v = {3.f, 6.f, 9.f};
    const attention::Result r = attention::reference(p);
    EXPECT_NEAR(r.o[0], 6.0, 1e-12);
    EXPECT_NEAR(r.lse[0], std::log(3.0), 1e-12);
}

TEST(AttentionReference, CausalMaskAlignsTheLastQueryWithTheLastKey) {
    attention::Problem p = attention::randomProblem(1, 2, 4, 1, 8, 8, true, false, 3);
    const attention::Result r = attention::reference(p);
    // Query 0 sees keys 0..2 (2 + 4 - 2 = last visible key 2), query 1 all four; compare with
    // the same problem cut to 3 keys, where query 0 sees every key.
    attention::Problem cut = p;
    cut.seqlenK = 3;
    cut.seqlenQ = 1;
    cut.causal = false;
    cut.q.resize(8);
    cut.k.resize(3 * 8);
    cut.v.resize(3 * 8);
    const attention::Result rc = attention::reference(cut);
    for (int d = 0; d < 8; ++d) EXPECT_NEAR(r.o[static_cast<std::size_t>(d)], rc.o[static_cast<std::size_t>(d)], 1e-12);
}

TEST(AttentionReference, RowsWithNoVisibleKeyAreZero) {
    attention::Problem p = attention::randomProblem(1, 4, 2, 1, 8, 8, true, true, 9);
    const attention::Result r = attention::reference(p);
    // seqlen_q 4 > seqlen_k 2: queries 0 and 1 see no key (last visible key -2, -1).
    for (int d = 0; d < 8; ++d) EXPECT_EQ(r.o[static_cast<std::size_t>(d)], 0.0);
    EXPECT_TRUE(std::isinf(r.lse[0]));
    EXPECT_FALSE(std::isinf(r.lse[2]));
}

TEST(AttentionReference, RandomInputsAreRepresentableInTheirDtype) {
    const attention::Problem p = attention::randomProblem(1, 4, 4, 2, 16, 16, false, true, 1);
    for (float v : p.q) EXPECT_EQ(bf16BitsToFloat(floatToBf16Bits(v)), v);
    EXPECT_FLOAT_EQ(p.softmaxScale, 0.25f);
}

TEST(GemmBucketReference, PaddingRowsAreZero) {
    bucket::Problem p{1, 2, 2, 8, {1.f, 2.f}, {1.f, 0.f, 3.f, -1.f}};
    const std::vector<double> out = bucket::reference(p);
    ASSERT_EQ(out.size(), 16u);
    EXPECT_DOUBLE_EQ(out[0], 1.0);
    EXPECT_DOUBLE_EQ(out[1], 1.0);
    for (std::size_t i = 2; i < out.size(); ++i) EXPECT_EQ(out[i], 0.0);
}

TEST(ReferenceCheck, PassesWithinTheBoundFailsBeyondAndOnNan) {
    const std::vector<double> ref = {1.0, -2.0, 4.0};
    EXPECT_TRUE(compareWithReference(ref, {1.f, -2.f, 4.01f}, kFp16RelativeErrorBound).passed);
    const ReferenceCheck bad = compareWithReference(ref, {1.f, -2.f, 4.2f}, kFp16RelativeErrorBound);
    EXPECT_FALSE(bad.passed);
    EXPECT_NEAR(bad.maxRelativeError, 0.05, 1e-6);
    EXPECT_FALSE(compareWithReference(ref, {1.f, std::numeric_limits<float>::quiet_NaN(), 4.f}, kBf16RelativeErrorBound).passed);
    EXPECT_FALSE(compareWithReference(ref, {1.f, -2.f}, kBf16RelativeErrorBound).passed);
}

}  // namespace
}  // namespace tilescope

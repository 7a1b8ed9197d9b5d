// The CPU reference code the families share: AWQ dequantisation and the product (awq_common, used by
// awq_gemv and awq_gemm) and the relative-error check every GPU run is judged by. Each family's own
// reference is tested in kernels/<family>/tests/.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "kernels/awq_common/awq_quant.h"
#include "kernels/common/float16.h"
#include "kernels/common/reference_check.h"

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

// awq_gemm's CPU reference (reference.h): the split-K partials summed as the caller does upstream.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/awq_gemm/reference.h"
#include "kernels/common/float16.h"

namespace tilescope {
namespace {

TEST(AwqReference, SplitKPartialsAreSummed) {
    const std::vector<std::uint16_t> partials = {floatToHalfBits(1.f), floatToHalfBits(2.f), floatToHalfBits(0.5f), floatToHalfBits(-4.f)};
    const std::vector<float> out = awq::sumSplitK(partials, 2, 1, 2);
    EXPECT_FLOAT_EQ(out[0], 1.5f);
    EXPECT_FLOAT_EQ(out[1], -2.f);
}

}  // namespace
}  // namespace tilescope

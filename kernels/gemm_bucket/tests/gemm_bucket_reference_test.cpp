// gemm_bucket's float64 CPU reference (reference.h): the cell's padding rows.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/gemm_bucket/reference.h"

namespace tilescope {
namespace {

TEST(GemmBucketReference, PaddingRowsAreZero) {
    bucket::Problem p{1, 2, 2, 8, {1.f, 2.f}, {1.f, 0.f, 3.f, -1.f}};
    const std::vector<double> out = bucket::reference(p);
    ASSERT_EQ(out.size(), 16u);
    EXPECT_DOUBLE_EQ(out[0], 1.0);
    EXPECT_DOUBLE_EQ(out[1], 1.0);
    for (std::size_t i = 2; i < out.size(); ++i) EXPECT_EQ(out[i], 0.0);
}

}  // namespace
}  // namespace tilescope

// attention's index maths (attention_index.h) on the CPU: causal key tiles, rows per warp, head-dim rounding.
#include <gtest/gtest.h>

#include "kernels/attention/attention_index.h"

namespace tilescope {
namespace {

TEST(AttentionIndex, CausalKeyTiles) {
    using attention::keyTilesForBlock;
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, false), 16);
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, true), 2);  // rows 0..127 see keys 0..127
    EXPECT_EQ(keyTilesForBlock(896, 128, 64, 1024, 1024, true), 16);
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 100, 1000, true), 16);  // bottom-right: row 63 sees keys 0..963
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 1000, 100, true), 0);   // rows 0..63 see no key
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 50, 50, false), 1);
    EXPECT_EQ(attention::lastVisibleKey(5, 10, 10, true), 5);
    EXPECT_EQ(attention::lastVisibleKey(5, 10, 10, false), 9);
}

TEST(AttentionIndex, RowsPerWarpAndHeadDimRounding) {
    EXPECT_EQ(attention::rowsPerWarp(128, 4), 32);
    EXPECT_EQ(attention::rowsPerWarp(128, 8), 16);
    EXPECT_EQ(attention::rowsPerWarp(48, 4), 16);  // 3 warps compute, one loads only
    EXPECT_EQ(attention::rowsPerWarp(32, 4), 16);
    EXPECT_EQ(attention::roundHeadDim(80, 16), 80);
    EXPECT_EQ(attention::roundHeadDim(72, 16), 80);
}

}  // namespace
}  // namespace tilescope

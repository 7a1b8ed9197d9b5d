#include "core/series/tile_series.h"

#include <gtest/gtest.h>

#include "core/model/device_spec.h"
#include "kernels/builtin_kernels.h"

using namespace tilescope;

TEST(TileSeries, GemmBucketCellsFormAStaircaseWithPaddingWaste) {
    auto kernel = resolveKernel(builtinKernels(), "gemm_bucket", "");
    ASSERT_TRUE(kernel);
    const auto& p = kernel->family->parameters();
    SweepAxis axis{parameterIndex(p, "M"), {}, AxisScale::Linear, {}};
    for (std::int64_t m = 1; m <= 600; ++m) axis.values.push_back(m);
    const TileSeries series = tileSeries(*kernel, *DeviceDatabase::embedded().find("h100-sxm"), Shape::defaults(p), axis);
    ASSERT_EQ(series.points.size(), 600u);
    const std::vector<std::string> expected{"cell 8", "cell 16", "cell 32", "cell 64", "cell 128", "cell 256", "cell 512"};
    EXPECT_EQ(series.tileNames, expected);
    int previous = 0;
    for (const TilePoint& point : series.points) {
        if (point.value > 512) {
            EXPECT_EQ(point.verdict, Verdict::BucketOverflow) << point.value;
            EXPECT_EQ(point.tileId, -1);
            continue;
        }
        EXPECT_GE(point.tileId, previous) << point.value;
        previous = point.tileId;
    }
    const TilePoint& m9 = series.points[8];
    ASSERT_EQ(m9.value, 9);
    EXPECT_EQ(series.tileNames[static_cast<std::size_t>(m9.tileId)], "cell 16");
    EXPECT_EQ(m9.bucketCell, 16);
    EXPECT_NEAR(m9.paddingWaste, 7.0 / 16.0, 1e-12);
}

TEST(TileSeries, AttentionTileFollowsHeadDim) {
    auto kernel = resolveKernel(builtinKernels(), "attention", "sm120_tile_search");
    ASSERT_TRUE(kernel);
    const auto& p = kernel->family->parameters();
    const int hd = parameterIndex(p, "head_dim");
    SweepAxis axis{hd, {64, 128, 256}, AxisScale::Linear, {}};
    Shape base = Shape::defaults(p);
    const TileSeries series = tileSeries(*kernel, *DeviceDatabase::embedded().find("rtx-5090"), base, axis);
    ASSERT_EQ(series.points.size(), 3u);
    for (const TilePoint& point : series.points)
        EXPECT_EQ(point.value, axis.values[static_cast<std::size_t>(&point - series.points.data())]);
    EXPECT_FALSE(series.tileNames.empty());
}

// The per-cell figures the Tiles & buckets page lists: upstream's tile count, the swap, and the
// CTAs against the SM count (a fixed cap of 152, so 112 CTAs for every cell >= 32 at N = 7168).
TEST(TileSeries, GemmBucketFiguresPerCell) {
    auto kernel = resolveKernel(builtinKernels(), "gemm_bucket", "");
    ASSERT_TRUE(kernel);
    const auto& p = kernel->family->parameters();
    SweepAxis axis;
    axis.parameter = parameterIndex(p, "M");
    for (std::int64_t m = 1; m <= 512; ++m) axis.values.push_back(m);
    Shape base = Shape::defaults(p);
    base[parameterIndex(p, "N")] = 7168;
    const TileSeries series = tileSeries(*kernel, *DeviceDatabase::embedded().find("h200"), base, axis);
    EXPECT_EQ(series.smCount, 132);
    ASSERT_EQ(series.figures.size(), 7u);
    const std::int64_t tiles[] = {896, 896, 112, 112, 112, 112, 112};
    const std::int64_t ctas[] = {152, 152, 112, 112, 112, 112, 112};
    const bool swapped[] = {false, false, true, true, false, false, false};
    for (std::size_t i = 0; i < 7; ++i) {
        EXPECT_EQ(series.figures[i].workTiles, tiles[i]) << i;
        EXPECT_EQ(series.figures[i].ctas, ctas[i]) << i;
        EXPECT_EQ(series.figures[i].operandsSwapped, swapped[i]) << i;
    }
    EXPECT_EQ(series.figures[0].text, "cell 8: 896 tiles, 152 CTAs on 132 SMs (1.15 per SM)");
    EXPECT_EQ(series.figures[2].text, "cell 32: 112 tiles, operands swapped, 112 CTAs on 132 SMs (0.85 per SM)");
    EXPECT_EQ(series.figures[6].text, "cell 512: 112 tiles, 112 CTAs on 132 SMs (0.85 per SM)");
    EXPECT_EQ(series.points[16].ctas, 112);  // M = 17
    EXPECT_TRUE(series.points[16].operandsSwapped);
}

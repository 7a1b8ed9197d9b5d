#include "core/explorer_axis.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tilescope;

namespace {

ParameterSpec log2Parameter() { return {"M", "rows", 0, 1 << 24, 16, AxisScale::Log2, false}; }
ParameterSpec linearParameter() { return {"head_dim", "hd", 1, 1024, 128, AxisScale::Linear, false}; }

}  // namespace

TEST(ExplorerAxis, DoublingAxisWithOneCellPerOctaveHoldsPowersOfTwo) {
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, 17);
    ASSERT_EQ(axis.values.size(), 17u);
    for (std::size_t i = 0; i < axis.values.size(); ++i) EXPECT_EQ(axis.values[i], std::int64_t{1} << i);
    EXPECT_EQ(axis.scale, AxisScale::Log2);
}

TEST(ExplorerAxis, DoublingAxisIsStrictlyIncreasingAndKeepsItsEnds) {
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 3, 50000, 256);
    ASSERT_GE(axis.values.size(), 2u);
    EXPECT_EQ(axis.values.front(), 3);
    EXPECT_EQ(axis.values.back(), 50000);
    EXPECT_LE(axis.values.size(), 257u);
    for (std::size_t i = 1; i < axis.values.size(); ++i) EXPECT_LT(axis.values[i - 1], axis.values[i]);
}

TEST(ExplorerAxis, DoublingAxisValuesHaveFewSignificantBits) {
    // 8 cells per octave: every value is m * 2^e with m < 32, so N stays a multiple of 64 above 2048.
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 2048, 65536, 41);
    for (const auto v : axis.values) EXPECT_EQ(v % 64, 0) << v;
}

TEST(ExplorerAxis, LinearAxisNeverRepeatsAndCoversTheRange) {
    const SweepAxis all = makeExplorerAxis(linearParameter(), 4, 1, 1024, 2000);
    EXPECT_EQ(all.values.size(), 1024u);
    const SweepAxis some = makeExplorerAxis(linearParameter(), 4, 8, 512, 64);
    ASSERT_EQ(some.values.size(), 64u);
    EXPECT_EQ(some.values.front(), 8);
    EXPECT_EQ(some.values.back(), 512);
    for (std::size_t i = 1; i < some.values.size(); ++i) EXPECT_LT(some.values[i - 1], some.values[i]);
}

TEST(ExplorerAxis, RangeIsClampedToTheParameter) {
    const SweepAxis axis = makeExplorerAxis(linearParameter(), 4, -50, 5000, 8);
    EXPECT_EQ(axis.values.front(), 1);
    EXPECT_EQ(axis.values.back(), 1024);
}

TEST(ExplorerAxis, PositionInterpolatesInLog2OnDoublingAxes) {
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 4, 3);  // 1, 2, 4
    EXPECT_DOUBLE_EQ(axisPosition(axis, 2), 1.0);
    EXPECT_NEAR(axisPosition(axis, 3), 1.0 + std::log2(1.5), 1e-12);
    EXPECT_DOUBLE_EQ(axisPosition(axis, 100), 2.5);
    EXPECT_EQ(nearestAxisIndex(axis, 3), 2);  // log distance: 3 is nearer 4 than 2
    const SweepAxis linear = makeExplorerAxis(linearParameter(), 4, 10, 30, 3);  // 10, 20, 30
    EXPECT_DOUBLE_EQ(axisPosition(linear, 25), 1.5);
}

TEST(ExplorerAxis, TicksPreferPowersOfTwo) {
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, 129);
    const auto ticks = axisTickIndices(axis, 9);
    ASSERT_FALSE(ticks.empty());
    EXPECT_LE(ticks.size(), 9u);
    for (int i : ticks) {
        const auto v = axis.values[static_cast<std::size_t>(i)];
        EXPECT_EQ(v & (v - 1), 0) << v;
    }
}

TEST(ExplorerAxis, TicksKeepTheirDistance) {
    // 1 .. 65,536 in 128 cells: 1, 2, 4, 8 sit in the first few cells and cannot all be labelled.
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, 128);
    const auto ticks = axisTickIndices(axis, 9);
    const int spacing = static_cast<int>(axis.values.size()) / 18;
    for (std::size_t i = 1; i < ticks.size(); ++i) EXPECT_GE(ticks[i] - ticks[i - 1], spacing);
    EXPECT_EQ(ticks.front(), 0);
}

TEST(ExplorerAxis, DefaultRangeCapsDoublingParameters) {
    EXPECT_EQ(defaultExplorerRange(log2Parameter()), std::make_pair(std::int64_t{1}, kExplorerLog2Ceiling));
    EXPECT_EQ(defaultExplorerRange(linearParameter()), std::make_pair(std::int64_t{1}, std::int64_t{1024}));
}

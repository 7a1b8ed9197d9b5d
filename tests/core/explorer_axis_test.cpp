#include "core/series/explorer_axis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

using namespace tilescope;

namespace {

ParameterSpec log2Parameter() { return {"M", "rows", 0, 1 << 24, 16, AxisScale::Log2, false}; }
ParameterSpec linearParameter() { return {"head_dim", "hd", 1, 1024, 128, AxisScale::Linear, false}; }
ParameterSpec alignedParameter() { return {"head_dim", "hd", 1, 1024, 128, AxisScale::Linear, false, 8}; }

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
    EXPECT_EQ(nearestAxisIndex(axis, 3), 2);                                     // log distance: 3 is nearer 4 than 2
    const SweepAxis linear = makeExplorerAxis(linearParameter(), 4, 10, 30, 3);  // 10, 20, 30
    EXPECT_DOUBLE_EQ(axisPosition(linear, 25), 1.5);
}

TEST(ExplorerAxis, TicksPreferPowersOfTwo) {
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, 129);
    const auto ticks = axisTicks(axis, 9);
    ASSERT_FALSE(ticks.empty());
    EXPECT_LE(ticks.size(), 9u);
    for (const AxisTick& t : ticks) {
        EXPECT_EQ(t.value & (t.value - 1), 0) << t.value;
        EXPECT_DOUBLE_EQ(t.position, axisPosition(axis, t.value));
    }
}

TEST(ExplorerAxis, TicksKeepTheirDistance) {
    // 1 .. 65,536 in 128 cells: 1, 2, 4, 8 sit in the first few cells and cannot all be labelled.
    const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, 128);
    const auto ticks = axisTicks(axis, 9);
    const double spacing = static_cast<double>(axis.values.size()) / 18;
    for (std::size_t i = 1; i < ticks.size(); ++i) EXPECT_GE(ticks[i].position - ticks[i - 1].position, spacing - 1e-9);
    EXPECT_EQ(ticks.front().value, 1);
    EXPECT_EQ(ticks.front().position, 0.0);
}

// Issue #15 item 9: a 1 .. 1,024 axis was labelled 1, 170, 339 ... 1,016 (every 21st cell).
TEST(ExplorerAxis, LinearTicksSitOnRoundValues) {
    const SweepAxis plain = makeExplorerAxis(linearParameter(), 4, 1, 1024, 128);
    std::vector<std::int64_t> values;
    for (const AxisTick& t : axisTicks(plain, 9)) values.push_back(t.value);
    EXPECT_EQ(values, (std::vector<std::int64_t>{1, 128, 256, 384, 512, 640, 768, 896, 1024}));
    const SweepAxis aligned = makeExplorerAxis(alignedParameter(), 4, 1, 1024, 128);  // 8, 16 .. 1,024
    const auto ticks = axisTicks(aligned, 9);
    values.clear();
    for (const AxisTick& t : ticks) values.push_back(t.value);
    EXPECT_EQ(values, (std::vector<std::int64_t>{8, 128, 256, 384, 512, 640, 768, 896, 1024}));
    EXPECT_DOUBLE_EQ(ticks[1].position, 15.0);  // 128 is the 16th multiple of 8
    EXPECT_DOUBLE_EQ(ticks.back().position, 127.0);
    // A 0/1 flag and a short range label every value; a doubling axis without two powers of two
    // falls back to round multiples.
    const ParameterSpec flag{"causal", "", 0, 1, 0, AxisScale::Linear, true};
    EXPECT_EQ(axisTicks(makeExplorerAxis(flag, 6, 0, 1, 128), 9), (std::vector<AxisTick>{{0.0, 0}, {1.0, 1}}));
    for (const AxisTick& t : axisTicks(makeExplorerAxis(log2Parameter(), 0, 100, 120, 21), 9))
        EXPECT_TRUE(t.value == 100 || t.value % 4 == 0) << t.value;
}

TEST(ExplorerAxis, DoublingTicksThinToEverySecondPower) {
    // 1 .. 2^24 holds 25 powers of two; 9 labels take every third: 1, 8, 64 ... 2^24.
    const ParameterSpec wide{"M", "rows", 0, 1 << 24, 16, AxisScale::Log2, false};
    const auto ticks = axisTicks(makeExplorerAxis(wide, 0, 1, 1 << 24, 1024), 9);
    ASSERT_GE(ticks.size(), 5u);
    EXPECT_LE(ticks.size(), 9u);
    for (const AxisTick& t : ticks) EXPECT_EQ(t.value & (t.value - 1), 0) << t.value;
    EXPECT_EQ(ticks.back().value, 1 << 24);
}

// Issue #31 item 12: 1 .. 65,536 in 999 cells was labelled "log2 scale", but 999 cells want 62 per
// octave and the low octaves hold fewer values: the axis takes every value there (1 .. 151, one cell
// each) and is log2 only above; its labels went 1, 64, 256, 1,024 ...: 64 in the 63rd cell, then x4
// every 194 cells.
TEST(ExplorerAxis, DoublingAxisSaysWhereItHoldsEveryValue) {
    const ParameterSpec m = log2Parameter();
    for (const int cells : {128, 999}) {
        const SweepAxis axis = makeExplorerAxis(m, 0, 1, 65536, cells);
        const std::int64_t end = everyValueUpTo(m, axis);
        ASSERT_GT(end, 2) << cells;
        for (std::int64_t v = 1; v <= end; ++v) EXPECT_EQ(axis.values[static_cast<std::size_t>(v - 1)], v);
        EXPECT_NE(axis.values[static_cast<std::size_t>(end)], end + 1);
        // The axis's first value, the start's end, then powers of two at one ratio and about one distance.
        const auto ticks = axisTicks(axis, 9, end);
        ASSERT_GE(ticks.size(), 5u) << cells;
        EXPECT_EQ(ticks[0].value, 1);
        EXPECT_EQ(ticks[1].value, end);
        EXPECT_DOUBLE_EQ(ticks[1].position, static_cast<double>(end - 1));
        for (std::size_t i = 2; i + 1 < ticks.size(); ++i) {
            EXPECT_GT(ticks[i].value, end);
            EXPECT_EQ(ticks[i].value & (ticks[i].value - 1), 0) << ticks[i].value;
            EXPECT_EQ(ticks[i + 1].value / ticks[i].value, ticks[3].value / ticks[2].value) << cells;
            EXPECT_NEAR(ticks[i + 1].position - ticks[i].position, ticks[3].position - ticks[2].position, 0.01 * cells) << cells;
        }
    }
    EXPECT_EQ(everyValueUpTo(m, makeExplorerAxis(m, 0, 1, 65536, 128)), 18);
    EXPECT_EQ(everyValueUpTo(m, makeExplorerAxis(m, 0, 1, 65536, 999)), 151);
    // A range that holds fewer values than cells is every value, with no log2 part (awq_gemv's M 1 .. 8).
    EXPECT_EQ(everyValueUpTo(m, makeExplorerAxis(m, 0, 1, 8, 128)), 8);
    // One cell per octave (1, 2, 4 ...) and linear axes have no such start.
    EXPECT_EQ(everyValueUpTo(m, makeExplorerAxis(m, 0, 1, 65536, 17)), 0);
    EXPECT_EQ(everyValueUpTo(linearParameter(), makeExplorerAxis(linearParameter(), 4, 1, 1024, 128)), 0);
}

// The map axis's title (it was worded in the Boundaries page): where the axis is log2, from the same
// everyValueUpTo as its ticks.
TEST(ExplorerAxis, MapAxisTitleSaysWhereTheAxisIsLog2) {
    const ParameterList log2{log2Parameter()};
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 65536, 999), log2), "M (every value to 151, log2 scale above)");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 8, 128), log2), "M (every value, one cell each)");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 65536, 17), log2), "M (log2 scale)");
    const ParameterList linear{linearParameter()};
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(linear[0], 0, 1, 1024, 128), linear), "head_dim");
    // The short forms an axis too short for the long title shows; the same facts, fewer words.
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 65536, 999), log2, AxisTitleLength::Compact), "M (log2 above 151)");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 8, 128), log2, AxisTitleLength::Compact), "M (every value)");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 65536, 17), log2, AxisTitleLength::Compact), "M (log2)");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(log2[0], 0, 1, 65536, 17), log2, AxisTitleLength::LabelOnly), "M");
    EXPECT_EQ(mapAxisTitle(makeExplorerAxis(linear[0], 0, 1, 1024, 128), linear, AxisTitleLength::Compact), "head_dim");
}

// Issue 31: M's box on the Boundaries page said "0 … 16,777,216" and a doubling axis starts at 1.
TEST(ExplorerAxis, AxisLimitsStartADoublingAxisAtOne) {
    EXPECT_EQ(explorerAxisLimits(log2Parameter()), std::make_pair(std::int64_t{1}, std::int64_t{1} << 24));
    EXPECT_EQ(makeExplorerAxis(log2Parameter(), 0, 0, 64, 8).values.front(), 1);  // what a 0 typed there drew
    EXPECT_EQ(explorerAxisLimits(linearParameter()), std::make_pair(std::int64_t{1}, std::int64_t{1024}));
}

TEST(ExplorerAxis, DefaultRangeCapsDoublingParameters) {
    EXPECT_EQ(defaultExplorerRange(log2Parameter()), std::make_pair(std::int64_t{1}, kExplorerLog2Ceiling));
    EXPECT_EQ(defaultExplorerRange(linearParameter()), std::make_pair(std::int64_t{1}, std::int64_t{1024}));
}

// Issue #15 item 1: head_dim 1 .. 1,024 in 128 cells sampled 1, 9, 17 ... and never a multiple of 8,
// so fa2's default map was refused everywhere while the banner said ok.
TEST(ExplorerAxis, LinearAxisLandsOnTheParametersAlignment) {
    const SweepAxis all = makeExplorerAxis(alignedParameter(), 4, 1, 1024, 128);
    ASSERT_EQ(all.values.size(), 128u);
    for (std::size_t i = 0; i < all.values.size(); ++i) EXPECT_EQ(all.values[i], static_cast<std::int64_t>(8 * (i + 1)));
    const SweepAxis some = makeExplorerAxis(alignedParameter(), 4, 30, 700, 40);
    ASSERT_EQ(some.values.size(), 40u);
    EXPECT_EQ(some.values.front(), 32);
    EXPECT_EQ(some.values.back(), 696);
    for (const auto v : some.values) EXPECT_EQ(v % 8, 0) << v;
    // More cells than multiples: every multiple once.
    EXPECT_EQ(makeExplorerAxis(alignedParameter(), 4, 1, 1024, 1024).values.size(), 128u);
    EXPECT_EQ(explorerAxisCapacity(alignedParameter(), 1, 1024), 128);
    // A range with no multiple of 8 still shows its values (all refused, which the map then says).
    EXPECT_EQ(makeExplorerAxis(alignedParameter(), 4, 1, 7, 128).values, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(defaultExplorerRange(alignedParameter()), std::make_pair(std::int64_t{8}, std::int64_t{1024}));
}

// Issue #15 item 9: "Cells 128" gave 106 x 106 = 11,236 cells on M x N (the small powers repeat).
TEST(ExplorerAxis, DoublingAxisHoldsTheCellsAskedFor) {
    for (const int cells : {2, 17, 82, 128, 500, 1024}) {
        const SweepAxis axis = makeExplorerAxis(log2Parameter(), 0, 1, 65536, cells);
        EXPECT_EQ(axis.values.size(), static_cast<std::size_t>(cells)) << cells;
        EXPECT_EQ(axis.values.front(), 1);
        EXPECT_EQ(axis.values.back(), 65536);
        for (std::size_t i = 1; i < axis.values.size(); ++i) EXPECT_LT(axis.values[i - 1], axis.values[i]);
    }
    // A range holding fewer integers than cells gives all of them.
    EXPECT_EQ(makeExplorerAxis(log2Parameter(), 0, 1, 16, 82).values.size(), 16u);
    EXPECT_EQ(explorerAxisCapacity(log2Parameter(), 0, 16), 16);
}

// The fa2 default map (head_dim x head_dim_v over their default ranges, 128 cells) shows the
// supported region the banner agrees with: the default shape's cell is ok, so are its neighbours
// along the diagonal up to head_dim 256, and nothing above 256 is.
TEST(ExplorerAxis, Fa2DefaultMapShowsItsSupportedRegion) {
    const KernelChoice fa2 = test::kernel("attention", "fa2");
    const ParameterList& parameters = fa2.family->parameters();
    const int hd = parameterIndex(parameters, "head_dim"), hdv = parameterIndex(parameters, "head_dim_v");
    auto axis = [&](int index) {
        const ParameterSpec& spec = parameters[static_cast<std::size_t>(index)];
        const auto [from, to] = defaultExplorerRange(spec);
        return makeExplorerAxis(spec, index, from, to, 128);
    };
    const Shape base = Shape::defaults(parameters);
    BoundaryMap map(fa2, test::device("h100-sxm"), base, axis(hd), axis(hdv));
    ASSERT_TRUE(evaluateBoundaryMap(map));
    const LaunchPlan banner = planWithFix(fa2, base, map.device(), nullptr);
    ASSERT_TRUE(banner.ok());
    const int ix = nearestAxisIndex(map.xAxis(), base[hd]), iy = nearestAxisIndex(*map.yAxis(), base[hdv]);
    EXPECT_EQ(map.xAxis().values[static_cast<std::size_t>(ix)], base[hd]);
    EXPECT_EQ(map.cell(ix, iy).verdict, Verdict::Ok);
    const auto ok = map.verdictCounts()[static_cast<std::size_t>(Verdict::Ok)];
    EXPECT_GT(ok, 0);
    for (int i = 0; i < map.width(); ++i) {
        const std::int64_t v = map.xAxis().values[static_cast<std::size_t>(i)];
        const BoundaryCell& diagonal = map.cell(i, i);
        EXPECT_EQ(diagonal.verdict == Verdict::Ok, v <= 256) << "head_dim = head_dim_v = " << v;
    }
}

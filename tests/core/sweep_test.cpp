// Sweep axes (parsing, defaults) and BoundaryMap evaluation: every cell agrees with a direct plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "core/model/sweep.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::kernel;

const ParameterList& gemmParameters() { return kernel("awq_gemm", "").family->parameters(); }
const ParameterList& attentionParameters() { return kernel("attention", "").family->parameters(); }

std::vector<std::int64_t> axisValues(std::string_view text, const ParameterList& parameters) {
    auto axis = parseSweepAxis(text, parameters);
    EXPECT_TRUE(axis.ok()) << text << ": " << (axis.ok() ? "" : axis.error());
    return axis.ok() ? axis->values : std::vector<std::int64_t>{};
}

std::string axisError(std::string_view text, const ParameterList& parameters) {
    auto axis = parseSweepAxis(text, parameters);
    EXPECT_FALSE(axis.ok()) << text;
    return axis.ok() ? std::string() : axis.error();
}

TEST(SweepAxis, MultiplyingRange) {
    auto axis = parseSweepAxis("M=1:4096:x2", gemmParameters());
    ASSERT_TRUE(axis.ok()) << axis.error();
    EXPECT_EQ(axis->parameter, 0);
    EXPECT_EQ(axis->scale, AxisScale::Log2);
    EXPECT_EQ(axis->values, (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
    EXPECT_EQ(axisValues("M=1:4096:*2", gemmParameters()), axis->values);  // '*' means 'x'
    // The end is included only when hit.
    EXPECT_EQ(axisValues("M=1:100:x3", gemmParameters()), (std::vector<std::int64_t>{1, 3, 9, 27, 81}));
}

TEST(SweepAxis, AddingRange) {
    auto axis = parseSweepAxis("head_dim=32:512:+16", attentionParameters());
    ASSERT_TRUE(axis.ok()) << axis.error();
    EXPECT_EQ(axis->parameter, 4);
    EXPECT_EQ(axis->scale, AxisScale::Linear);
    ASSERT_EQ(axis->values.size(), 31u);  // (512 - 32) / 16 + 1
    EXPECT_EQ(axis->values.front(), 32);
    EXPECT_EQ(axis->values[1], 48);
    EXPECT_EQ(axis->values.back(), 512);
    EXPECT_EQ(axisValues("M=1:5", gemmParameters()), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));  // default +1
    EXPECT_EQ(axisValues("M=1:10:+4", gemmParameters()), (std::vector<std::int64_t>{1, 5, 9}));
    EXPECT_EQ(axisValues("M=1:10:4", gemmParameters()), (std::vector<std::int64_t>{1, 5, 9}));  // bare N adds
    EXPECT_EQ(axisValues("M=7:7", gemmParameters()), (std::vector<std::int64_t>{7}));
    EXPECT_EQ(axisValues(" M = 1:4:x2 ", gemmParameters()), (std::vector<std::int64_t>{1, 2, 4}));
    // A multiplying step makes a linear parameter's axis log-scaled.
    EXPECT_EQ(parseSweepAxis("head_dim=32:512:x2", attentionParameters())->scale, AxisScale::Log2);
}

TEST(SweepAxis, ExplicitList) {
    auto axis = parseSweepAxis("M=1,2,3,640", gemmParameters());
    ASSERT_TRUE(axis.ok());
    EXPECT_EQ(axis->values, (std::vector<std::int64_t>{1, 2, 3, 640}));
    EXPECT_EQ(axis->scale, AxisScale::Linear);
    EXPECT_EQ(axisValues("M=640", gemmParameters()), (std::vector<std::int64_t>{640}));
    EXPECT_EQ(axisValues("M=5,1", gemmParameters()), (std::vector<std::int64_t>{5, 1}));  // order kept
}

TEST(SweepAxis, MalformedAxesSayWhatIsWrong) {
    const auto& g = gemmParameters();
    EXPECT_EQ(axisError("M", g), "axis 'M' is not NAME=FROM:TO:STEP or NAME=V1,V2,...");
    EXPECT_EQ(axisError("Q=1:2", g), "unknown parameter 'Q' in axis; parameters: M, N, K, group_size");
    EXPECT_EQ(axisError("M=8:1", g), "axis M: FROM must not exceed TO");
    EXPECT_EQ(axisError("M=a:8", g), "axis M: 'a' is not an integer");
    EXPECT_EQ(axisError("M=1:b", g), "axis M: 'b' is not an integer");
    EXPECT_EQ(axisError("M=1:8:", g), "axis M: empty step; use +N (add) or xN (multiply)");
    EXPECT_EQ(axisError("M=1:8:+0", g), "axis M: step '+0' must be +N or xN with N >= 1");
    EXPECT_EQ(axisError("M=1:8:y2", g), "axis M: step 'y2' must be +N or xN with N >= 1");
    EXPECT_EQ(axisError("M=1:8:x1", g), "axis M: a multiplying step needs N >= 2 and FROM >= 1");
    EXPECT_EQ(axisError("M=0:8:x2", g), "axis M: a multiplying step needs N >= 2 and FROM >= 1");
    EXPECT_EQ(axisError("M=1:99999999999", g), "axis M=99999999999 is out of range; accepted: 0..16777216");
    EXPECT_EQ(axisError("M=-1:8", g), "axis M=-1 is out of range; accepted: 0..16777216");
    EXPECT_EQ(axisError("M=1,,3", g), "axis M: '' is not an integer");
    EXPECT_EQ(axisError("M=1,2,x", g), "axis M: 'x' is not an integer");
    EXPECT_EQ(axisError("M=", g), "axis M has no values");
    EXPECT_EQ(axisError("M=1:100000", g), "axis M has more than 65536 values");
    EXPECT_EQ(axisError("head_dim=0:64:+16", attentionParameters()), "axis head_dim=0 is out of range; accepted: 1..1024");
}

TEST(SweepAxis, DefaultAxes) {
    const auto& m = gemmParameters()[0];  // log2, 0 .. 2^24
    const SweepAxis log = defaultSweepAxis(m, 0, 64);
    ASSERT_EQ(log.values.size(), 25u);  // 2^0 .. 2^24
    EXPECT_EQ(log.values.front(), 1);
    EXPECT_EQ(log.values.back(), 1 << 24);
    EXPECT_EQ(log.scale, AxisScale::Log2);
    const auto& headDim = attentionParameters()[4];  // linear, 1 .. 1024
    const SweepAxis lin = defaultSweepAxis(headDim, 4, 64);
    // Multiples of head_dim's alignment (issue #15 item 1: 1, 17, ..., 1009 were all refused):
    // 8 .. 1024, step 1016 / 63 = 16: 8, 24, ..., 1016.
    ASSERT_EQ(lin.values.size(), 64u);
    EXPECT_EQ(lin.values[1], 24);
    EXPECT_EQ(lin.values.back(), 1016);
    for (const auto v : lin.values) EXPECT_EQ(v % 8, 0) << v;
    const SweepAxis causal = defaultSweepAxis(attentionParameters()[6], 6, 64);  // a 0/1 flag
    EXPECT_EQ(causal.values, (std::vector<std::int64_t>{0, 1}));
}

BoundaryMap makeMap(std::string_view family, std::string_view variant, std::string_view deviceId, std::string_view base, std::string_view x,
                    std::string_view y = {}) {
    const KernelChoice k = kernel(family, variant);
    const auto& parameters = k.family->parameters();
    std::optional<SweepAxis> yAxis;
    if (!y.empty()) yAxis = parseSweepAxis(y, parameters).value();
    return BoundaryMap(k, device(deviceId), test::shape(k, base), parseSweepAxis(x, parameters).value(), yAxis);
}

TEST(BoundaryMap, LegacyGridYAlongM) {
    // grid.y = ceil(M/16) * 42: M=16,384 -> 43,008 launches, M=32,768 -> 86,016 does not.
    BoundaryMap map = makeMap("awq_gemm", "legacy_grid_y", "h100-sxm", "N=5376", "M=1:65536:x2");
    ASSERT_TRUE(evaluateBoundaryMap(map));
    ASSERT_EQ(map.width(), 17);
    EXPECT_EQ(map.height(), 1);
    for (int ix = 0; ix < map.width(); ++ix)
        EXPECT_EQ(map.cell(ix, 0).verdict, ix <= 14 ? Verdict::Ok : Verdict::InvalidLaunch) << map.xAxis().values[ix];
    const auto counts = map.verdictCounts();
    EXPECT_EQ(counts[static_cast<std::size_t>(Verdict::Ok)], 15);
    EXPECT_EQ(counts[static_cast<std::size_t>(Verdict::InvalidLaunch)], 2);
    EXPECT_EQ(map.cell(15, 0).gridBlocks, 86016 * 8);
    EXPECT_EQ(map.cell(15, 0).totalSmem, 10496);
    EXPECT_EQ(map.cell(15, 0).occupancyPct, -1.0f);  // unknown without registers
    const LaunchPlan full = map.planAt(15, 0, &DeviceDatabase::embedded());
    EXPECT_EQ(full.message, test::defaultLaunchRejection().message);
    EXPECT_EQ(full.fixShape.value()[0], 24960);
    EXPECT_EQ(map.shapeAt(15, 0), test::shape(map.kernel(), "M=32768,N=5376"));
}

TEST(BoundaryMap, Sm120HeadDimMapOnRtx5090) {
    BoundaryMap map = makeMap("attention", "sm120_tile_search", "rtx-5090", "", "head_dim=32:512:+16", "head_dim_v=32:512:+16");
    ASSERT_TRUE(evaluateBoundaryMap(map));
    EXPECT_EQ(map.width(), 31);
    EXPECT_EQ(map.height(), 31);
    EXPECT_EQ(map.cellCount(), 961);
    // (256,256) is column/row (256-32)/16 = 14; (512,512) is 30.
    const BoundaryCell& fits = map.cell(14, 14);
    EXPECT_EQ(fits.verdict, Verdict::Ok);
    EXPECT_EQ(fits.tileIndex, 0);
    EXPECT_EQ(fits.totalSmem, 101376);
    EXPECT_EQ(fits.gridBlocks, 32 * 1 * 32);
    EXPECT_EQ(map.cell(30, 30).verdict, Verdict::NoTileFits);
    EXPECT_EQ(map.cell(30, 30).gridBlocks, 0);  // no tile, no launch: no grid
    EXPECT_EQ(map.planAt(30, 30, nullptr).message, "(head_dim, head_dim_v)=(512, 512) exceeds SM120 shared-memory capacity (101376 bytes)");
    // Every cell is exactly what a direct plan says.
    const auto& family = *map.kernel().family;
    std::int64_t ok = 0;
    for (int iy = 0; iy < map.height(); ++iy) {
        for (int ix = 0; ix < map.width(); ++ix) {
            const LaunchPlan p = family.plan(map.kernel().variant, map.shapeAt(ix, iy), map.device(), PlanDetail::Full);
            const BoundaryCell& c = map.cell(ix, iy);
            ASSERT_EQ(c.verdict, p.verdict) << ix << "," << iy;
            EXPECT_EQ(c.tileIndex, p.tileIndex);
            EXPECT_EQ(c.totalSmem, p.totalSmem());
            EXPECT_EQ(c.gridBlocks, p.verdict >= Verdict::InvalidLaunch ? p.grid.volume() : 0);
            ok += p.ok();
        }
    }
    EXPECT_EQ(map.verdictCounts()[static_cast<std::size_t>(Verdict::Ok)], ok);
    EXPECT_GT(ok, 0);
    EXPECT_LT(ok, map.cellCount());
}

TEST(BoundaryMap, ThreadsGiveTheSameMap) {
    BoundaryMap one = makeMap("gemm_bucket", "oproj", "a100-80gb-sxm", "", "M=0:700:+7", "N=256:16384:+256");
    BoundaryMap four = one;
    ASSERT_TRUE(evaluateBoundaryMap(one, {1, nullptr, {}}));
    ASSERT_TRUE(evaluateBoundaryMap(four, {4, nullptr, {}}));
    for (int iy = 0; iy < one.height(); ++iy)
        for (int ix = 0; ix < one.width(); ++ix) {
            ASSERT_EQ(one.cell(ix, iy).verdict, four.cell(ix, iy).verdict);
            ASSERT_EQ(one.cell(ix, iy).gridBlocks, four.cell(ix, iy).gridBlocks);
        }
    const auto counts = one.verdictCounts();
    // M=0 and M>512 overflow; 1..16 launch (98,400 B); 17..512 exceed A100's opt-in.
    EXPECT_GT(counts[static_cast<std::size_t>(Verdict::BucketOverflow)], 0);
    EXPECT_GT(counts[static_cast<std::size_t>(Verdict::InvalidLaunch)], 0);
    EXPECT_GT(counts[static_cast<std::size_t>(Verdict::Ok)], 0);
}

TEST(BoundaryMap, CancelAndProgress) {
    BoundaryMap map = makeMap("awq_gemm", "gemm", "h100-sxm", "", "M=1:256", "N=64:8192:+64");
    std::atomic<bool> cancel{true};
    EXPECT_FALSE(evaluateBoundaryMap(map, {1, &cancel, {}}));
    cancel = false;
    double last = 0.0;
    int calls = 0;
    EXPECT_TRUE(evaluateBoundaryMap(map, {1, &cancel, [&](double f) {
                                              EXPECT_GE(f, last);
                                              last = f;
                                              ++calls;
                                          }}));
    EXPECT_GT(calls, 0);
    EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(PlanDetail, BriefAndFullAgreeOnEveryFigure) {
    // Sweeps plan at Brief detail; a cell must say what the plan shown to a person says.
    const char* devices[] = {"t4", "a100-80gb-sxm", "rtx-4090", "h100-sxm", "rtx-5090"};
    for (const auto& family : builtinKernels().families()) {
        const auto& parameters = family->parameters();
        for (std::size_t v = 0; v < family->variants().size(); ++v) {
            for (const char* id : devices) {
                for (int p = 0; p < static_cast<int>(parameters.size()); ++p) {
                    for (std::int64_t value : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{48}, std::int64_t{100},
                                               std::int64_t{256}, std::int64_t{640}, std::int64_t{65536}, std::int64_t{1} << 20}) {
                        Shape s = Shape::defaults(parameters);
                        s[p] = std::clamp(value, parameters[static_cast<std::size_t>(p)].minimum,
                                          parameters[static_cast<std::size_t>(p)].maximum);
                        const LaunchPlan brief = family->plan(static_cast<int>(v), s, device(id), PlanDetail::Brief);
                        const LaunchPlan full = family->plan(static_cast<int>(v), s, device(id), PlanDetail::Full);
                        SCOPED_TRACE(std::string(family->name()) + " " + id + " " + formatShape(s, parameters));
                        ASSERT_EQ(brief.verdict, full.verdict);
                        EXPECT_EQ(brief.failingParameter, full.failingParameter);
                        EXPECT_EQ(brief.limit.has_value(), full.limit.has_value());
                        if (brief.limit && full.limit) {
                            EXPECT_EQ(brief.limit->name, full.limit->name);
                            EXPECT_EQ(brief.limit->actual, full.limit->actual);
                        }
                        EXPECT_EQ(brief.grid, full.grid);
                        EXPECT_EQ(brief.totalSmem(), full.totalSmem());
                        EXPECT_EQ(brief.tileIndex, full.tileIndex);
                        EXPECT_TRUE(brief.message.empty());
                        EXPECT_EQ(full.message.empty(), full.ok());  // every failure has a message
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace tilescope

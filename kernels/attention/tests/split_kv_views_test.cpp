// Split-KV as the saved files and the Boundaries map carry it (issue 19): the combine launch in
// the plan JSON and traces, the per-cell split count of a sweep, and the lines drawn from it.
#include <gtest/gtest.h>

#include <set>

#include "core/series/boundary_colours.h"
#include "core/trace/json_io.h"
#include "core/model/sweep.h"
#include "core/trace/trace.h"
#include "core/trace/trace_io.h"
#include "core/trace/trace_summary.h"
#include "kernels/attention/plan.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using nlohmann::ordered_json;
using test::device;
using test::kernel;
using test::plan;

constexpr const char* kDecode = "batch=1,seqlen_q=1,seqlen_k=32768,heads=32,head_dim=128,head_dim_v=128";

ordered_json savedPlanJson(const LaunchPlan& p) {
    const auto& parameters = kernel("attention", "fa2").family->parameters();
    ordered_json j = planToJson(p, parameters);
    addPlanDetailJson(j, p, parameters);
    return j;
}

Result<LaunchPlan> readPlan(const ordered_json& j, StringPool& strings) {
    return planFromJson(j, kernel("attention", "fa2").family->parameters(), strings, "/plan");
}

void expectSameExtraLaunches(const LaunchPlan& a, const LaunchPlan& b) {
    ASSERT_EQ(a.extraLaunches.size(), b.extraLaunches.size());
    for (std::size_t i = 0; i < a.extraLaunches.size(); ++i) {
        const ExtraLaunch &x = a.extraLaunches[i], &y = b.extraLaunches[i];
        SCOPED_TRACE(i);
        EXPECT_EQ(x.role, y.role);
        EXPECT_EQ(x.why, y.why);
        EXPECT_EQ(x.kernelSymbol, y.kernelSymbol);
        EXPECT_EQ(x.grid, y.grid);
        EXPECT_EQ(x.block, y.block);
        EXPECT_EQ(x.staticSmem, y.staticSmem);
        EXPECT_EQ(x.dynamicSmem, y.dynamicSmem);
        EXPECT_EQ(x.optsIntoLargeSmem, y.optsIntoLargeSmem);
        EXPECT_EQ(x.registers, y.registers);
        ASSERT_EQ(x.occupancy.has_value(), y.occupancy.has_value());
        if (x.occupancy) {
            EXPECT_EQ(x.occupancy->activeBlocksPerSm, y.occupancy->activeBlocksPerSm);
            EXPECT_EQ(x.occupancy->occupancyPct, y.occupancy->occupancyPct);
            EXPECT_EQ(x.occupancy->limiters, y.occupancy->limiters);
            EXPECT_EQ(x.occupancy->waves, y.occupancy->waves);
        }
    }
}

// ---- planner rows the checklist asks for and plan_attention_test.cpp leaves out ----

TEST(SplitKvPlanner, TheHeuristicSeesEachHeadDimsKeyBlock) {
    // batch 1, 8 heads, seqlen_k 8192: 32 / 64 / 128 K/V blocks of 256 / 128 / 64 keys (d64, d128, d256).
    // Expected counts from a float32 transcription of v2.8.3 num_splits_heuristic, not from this code.
    struct Row {
        const char* device;
        int headDim, seqlenQ, splits;
    };
    const Row rows[] = {{"h200", 64, 1, 32},
                        {"h200", 128, 1, 32},
                        {"h200", 256, 1, 32},
                        {"h200", 64, 100, 16},
                        {"h200", 128, 100, 16},
                        {"h200", 256, 100, 15},
                        {"l4", 64, 1, 11},
                        {"l4", 128, 1, 13},
                        {"l4", 256, 1, 13},
                        {"a100-80gb-sxm", 64, 1, 16},
                        {"a100-80gb-sxm", 128, 1, 22},
                        {"a100-80gb-sxm", 256, 1, 26}};
    for (const auto& row : rows) {
        const std::string d = std::to_string(row.headDim);
        const LaunchPlan p = plan(
            "attention", "fa2",
            "batch=1,heads=8,seqlen_k=8192,seqlen_q=" + std::to_string(row.seqlenQ) + ",head_dim=" + d + ",head_dim_v=" + d, row.device);
        SCOPED_TRACE(std::string(row.device) + " d" + d + " seqlen_q " + std::to_string(row.seqlenQ));
        ASSERT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_EQ(p.splitK, row.splits);
        EXPECT_EQ(p.grid, (Dim3{(row.seqlenQ + 63) / 64, row.splits, 8}));
        EXPECT_EQ(p.extraLaunches.size(), 1u);
    }
}

TEST(SplitKvPlanner, Hdim96CausalRuleOnSm86) {
    // run_mha_fwd_hdim96: is_sm8x = (major 8, minor > 0), so sm_86 takes 64x64/4 when causal, as sm_89
    // does; the database has no sm_86 GPU, so an RTX 3090-like spec stands in (82 SMs, 99 KB opt-in).
    DeviceSpec sm86 = device("rtx-4090");
    sm86.id = "sm86-test";
    sm86.computeCapability = {8, 6};
    sm86.smCount = 82;
    auto tileOf = [&](const std::string& shape) {
        const LaunchPlan p = test::planOn("attention", "fa2", shape, sm86);
        EXPECT_EQ(p.verdict, Verdict::Ok) << shape << ": " << p.message;
        return std::string(p.tile);
    };
    const std::string d96 = "head_dim=96,head_dim_v=96,num_splits=1,";
    EXPECT_EQ(tileOf(d96 + "causal=1"), "64x64/4");
    EXPECT_EQ(tileOf(d96 + "causal=0"), "128x64/4");
    EXPECT_EQ(tileOf(d96 + "causal=1,seqlen_q=1"), "128x64/4");  // seqlen_q 1 is not causal (mha_fwd)
    const LaunchPlan causal = test::planOn("attention", "fa2", d96 + "causal=1", sm86);
    EXPECT_EQ(causal.kernelSymbol, "flash_fwd_d96_m64n64w4");
    EXPECT_EQ(causal.dynamicSmem, (64 + 2 * 64) * 96 * 2);
    EXPECT_EQ(causal.grid, (Dim3{2048 / 64, 1, 32}));
    // sm_80 is not sm8x; a split ignores the rule (run_mha_fwd_splitkv_dispatch: 64 x 128 for d96).
    EXPECT_EQ(plan("attention", "fa2", d96 + "causal=1", "a100-80gb-sxm").tile, "128x64/4");
    const LaunchPlan split = test::planOn("attention", "fa2", "head_dim=96,head_dim_v=96,causal=1,seqlen_q=2,seqlen_k=4096,heads=8", sm86);
    EXPECT_GT(split.splitK, 1);
    EXPECT_EQ(split.tile, "64x128/4 split-KV");
}

// ---- the plan JSON -----------------------------------------------------------------------

TEST(SplitKvPlanJson, TheCombineLaunchRoundTrips) {
    const LaunchPlan p = plan("attention", "fa2", kDecode, "h200");
    ASSERT_EQ(p.extraLaunches.size(), 1u);
    const ordered_json j = savedPlanJson(p);
    ASSERT_TRUE(j.contains("extra_launches"));
    const ordered_json& combine = j["extra_launches"][0];
    EXPECT_EQ(combine["role"], "combine");
    EXPECT_EQ(combine["kernel_symbol"], "flash_fwd_splitkv_combine_m4");
    EXPECT_EQ(combine["grid"], ordered_json::array({8, 1, 1}));
    EXPECT_EQ(combine["block"], ordered_json::array({128, 1, 1}));
    EXPECT_EQ(combine["dynamic_smem"], 8 * (4 + 1) * 4);
    EXPECT_FALSE(combine["why"].get<std::string>().empty());

    StringPool strings;
    auto read = readPlan(j, strings);
    ASSERT_TRUE(read.ok()) << read.error();
    expectSameExtraLaunches(p, *read);
    EXPECT_EQ(read->splitK, 7);
    // Written again, the plan is the same text.
    EXPECT_EQ(savedPlanJson(*read).dump(), j.dump());
}

TEST(SplitKvPlanJson, ATraceKeepsBothLaunches) {
    Trace trace;
    trace.source = "split_kv_views_test";
    trace.devices.push_back(device("h200"));
    tilescope::Run run;
    run.kind = RunKind::Predicted;
    run.plan = plan("attention", "fa2", kDecode, "h200");
    run.parameters = kernel("attention", "fa2").family->parameters();
    trace.runs.push_back(run);
    auto read = readTraceText(traceToText(trace), "split.tilescope.json", builtinKernels());
    ASSERT_TRUE(read.ok()) << read.error();
    ASSERT_EQ(read->runs.size(), 1u);
    expectSameExtraLaunches(run.plan, read->runs[0].plan);
    EXPECT_EQ(traceToText(*read), traceToText(trace));

    // The trace's CSV lists the combine as a row of its own after the split kernel's.
    const std::string csv = traceToCsv(*read);
    EXPECT_NE(csv.find(",fa2,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",fa2 / combine,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",1x7x32,128x1x1,81920,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",8x1x1,128x1x1,160,"), std::string::npos) << csv;
    EXPECT_LT(csv.find(",1x7x32,"), csv.find(",8x1x1,"));
    const std::string markdown = traceToMarkdown(*read);
    EXPECT_NE(markdown.find("| fa2 / combine |"), std::string::npos) << markdown;
}

TEST(SplitKvPlanJson, OldFilesWithoutTheFieldStayReadable) {
    ordered_json j = savedPlanJson(plan("attention", "fa2", kDecode, "h200"));
    j.erase("extra_launches");
    StringPool strings;
    auto read = readPlan(j, strings);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_TRUE(read->extraLaunches.empty());
    EXPECT_EQ(read->grid, (Dim3{1, 7, 32}));
    // A one-kernel plan writes an empty list.
    const ordered_json single = savedPlanJson(plan("attention", "fa2", "", "h200"));
    EXPECT_EQ(single["extra_launches"], ordered_json::array());
}

TEST(SplitKvPlanJson, AMalformedExtraLaunchNamesItsField) {
    ordered_json j = savedPlanJson(plan("attention", "fa2", kDecode, "h200"));
    j["extra_launches"][0]["grid"] = "8x1x1";
    StringPool strings;
    auto read = readPlan(j, strings);
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().find("/plan/extra_launches/0/grid"), std::string::npos) << read.error();
    j["extra_launches"] = {{"role", "combine"}};  // no launch figures
    EXPECT_FALSE(readPlan(j, strings).ok());
}

// ---- the Boundaries map over seqlen_k x batch ---------------------------------------------

BoundaryMap decodeMap(const std::string& base, const std::string& x, const std::string& y) {
    const KernelChoice k = kernel("attention", "fa2");
    const auto& parameters = k.family->parameters();
    auto xAxis = parseSweepAxis(x, parameters);
    auto yAxis = parseSweepAxis(y, parameters);
    EXPECT_TRUE(xAxis.ok() && yAxis.ok());
    BoundaryMap map(k, device("h200"), test::shape(k, base), *xAxis, *yAxis);
    EXPECT_TRUE(evaluateBoundaryMap(map));
    return map;
}

TEST(SplitKvMap, SplitCountsChangeAlongSeqlenKWhereThePlannerSays) {
    // h200: 132 SMs, so the heuristic sees 264 CTA slots; d128 takes 128-key blocks.
    ASSERT_EQ(device("h200").smCount, 132);
    const BoundaryMap map = decodeMap("seqlen_q=1,heads=32", "seqlen_k=64:1024:+64", "batch=1:8");
    ASSERT_EQ(map.width(), 16);
    ASSERT_EQ(map.height(), 8);
    const KernelChoice k = map.kernel();
    for (int iy = 0; iy < map.height(); ++iy)
        for (int ix = 0; ix < map.width(); ++ix) {
            const LaunchPlan p = k.family->plan(k.variant, map.shapeAt(ix, iy), map.device(), PlanDetail::Full);
            const std::int64_t seqlenK = map.xAxis().values[static_cast<std::size_t>(ix)];
            const std::int64_t batch = map.yAxis()->values[static_cast<std::size_t>(iy)];
            // num_splits_heuristic(batch x heads x ceil(1/64), 2 x 132, ceil(seqlen_k/128), 128).
            const int heuristic = attention::numSplitsHeuristic(batch * 32, 264, (seqlenK + 127) / 128, 128);
            SCOPED_TRACE("seqlen_k " + std::to_string(seqlenK) + ", batch " + std::to_string(batch));
            EXPECT_EQ(map.cell(ix, iy).verdict, Verdict::Ok);
            EXPECT_EQ(map.cell(ix, iy).splits, p.splitK);
            EXPECT_EQ(map.cell(ix, iy).splits, heuristic);
        }
    // Batch 1: one split per 128-key block (1 1 2 2 ... 8 8); batch 7 fills 80 % of 264 slots: 1.
    const int batch1[] = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8};
    for (int ix = 0; ix < 16; ++ix) EXPECT_EQ(map.cell(ix, 0).splits, batch1[ix]) << ix;
    for (int ix = 0; ix < 16; ++ix) EXPECT_EQ(map.cell(ix, 6).splits, 1) << ix;

    // The split outline runs exactly between cells whose counts differ.
    ASSERT_TRUE(splitCountChanges(map));
    EXPECT_EQ(splitCountRange(map), (std::pair{1, 8}));
    std::set<std::pair<double, double>> verticalEdges;  // (x, y of the cell row) of each unit edge
    for (const OutlineSegment& s : splitBoundaryOutline(map)) {
        if (s.x1 != s.x2) continue;
        for (double y = s.y1 + 0.5; y < s.y2; y += 1.0) verticalEdges.insert({s.x1, y});
    }
    for (int iy = 0; iy < map.height(); ++iy)
        for (int ix = 0; ix + 1 < map.width(); ++ix)
            EXPECT_EQ(verticalEdges.count({ix + 0.5, static_cast<double>(iy)}) == 1, map.cell(ix, iy).splits != map.cell(ix + 1, iy).splits)
                << ix << ", " << iy;
}

TEST(SplitKvMap, GridZFailsPastMaxGridZOverHeads) {
    // Forced splits: grid (1, splits, batch x heads); grid.z <= 65,535 puts the edge at 65,535 / heads.
    for (const int heads : {32, 5}) {
        const std::int64_t last = 65535 / heads;  // 2,047 and 13,107
        const std::string y = "batch=" + std::to_string(last - 1) + "," + std::to_string(last) + "," + std::to_string(last + 1) + "," +
                              std::to_string(last + 2);
        const BoundaryMap map = decodeMap("seqlen_q=1,num_splits=2,heads=" + std::to_string(heads), "seqlen_k=16,1024", y);
        SCOPED_TRACE(heads);
        for (int ix = 0; ix < map.width(); ++ix)
            for (int iy = 0; iy < map.height(); ++iy) {
                const bool fits = map.yAxis()->values[static_cast<std::size_t>(iy)] <= last;
                EXPECT_EQ(map.cell(ix, iy).verdict, fits ? Verdict::Ok : Verdict::InvalidLaunch) << ix << ", " << iy;
                EXPECT_EQ(map.cell(ix, iy).splits, 2);
                if (fits) continue;
                const LaunchPlan p = map.planAt(ix, iy, nullptr);
                ASSERT_TRUE(p.limit);
                EXPECT_EQ(p.limit->name, "max_grid_dim_z");
                EXPECT_EQ(p.limit->actual, map.yAxis()->values[static_cast<std::size_t>(iy)] * heads);
            }
        // No split boundary inside one forced count; the ok outline is the grid.z edge.
        EXPECT_FALSE(splitCountChanges(map));
        EXPECT_EQ(okBoundaryOutline(map), (std::vector<OutlineSegment>{{-0.5, 1.5, 1.5, 1.5}}));
    }
    // The heuristic never splits that much work: there batch moves grid.y, which fails at 65,536.
    const BoundaryMap heuristic = decodeMap("seqlen_q=1,heads=32", "seqlen_k=16,64", "batch=65535,65536");
    EXPECT_EQ(heuristic.cell(1, 0).verdict, Verdict::Ok);
    EXPECT_EQ(heuristic.cell(1, 0).splits, 1);
    EXPECT_EQ(heuristic.cell(1, 1).verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(heuristic.planAt(1, 1, nullptr).limit->name, "max_grid_dim_y");
}

TEST(SplitKvMap, RegionLabelsSitInsideTheirRegions) {
    // A hand-set 4 x 3 map: splits 1 on the left half, 4 on the right, one failing cell.
    const KernelChoice k = kernel("attention", "fa2");
    SweepAxis x{2, {1, 2, 3, 4}, AxisScale::Linear, {}};
    SweepAxis y{0, {1, 2, 3}, AxisScale::Linear, {}};
    BoundaryMap map(k, device("h200"), test::shape(k, ""), x, y);
    for (int iy = 0; iy < 3; ++iy)
        for (int ix = 0; ix < 4; ++ix) map.cell(ix, iy).splits = ix < 2 ? 1 : 4;
    map.cell(3, 2).verdict = Verdict::InvalidLaunch;
    map.cell(3, 2).splits = 9;  // a failing cell draws no split line
    EXPECT_EQ(splitBoundaryOutline(map), (std::vector<OutlineSegment>{{1.5, -0.5, 1.5, 2.5}}));
    EXPECT_EQ(splitCountRange(map), (std::pair{1, 4}));
    const auto labels = splitRegionLabels(map, 1, 8);
    ASSERT_EQ(labels.size(), 2u);
    EXPECT_EQ(labels[0], (SplitRegionLabel{0, 1, 1, 6}));  // centroid (0.5, 1): the lower row wins the tie
    EXPECT_EQ(labels[1], (SplitRegionLabel{2, 1, 4, 5}));  // centroid (2.4, 0.8)
    EXPECT_EQ(splitRegionLabels(map, 6, 8).size(), 1u);
    EXPECT_EQ(splitRegionLabels(map, 1, 1).size(), 1u);
    // One count everywhere: nothing to draw.
    for (int iy = 0; iy < 3; ++iy)
        for (int ix = 0; ix < 4; ++ix) map.cell(ix, iy) = BoundaryCell{};
    EXPECT_FALSE(splitCountChanges(map));
    EXPECT_TRUE(splitBoundaryOutline(map).empty());
}

TEST(SplitKvMap, TheMapJsonCarriesSplits) {
    const BoundaryMap map = decodeMap("seqlen_q=1,heads=32", "seqlen_k=128,1024", "batch=1,7");
    ordered_json j = boundaryMapToJson(map);
    EXPECT_EQ(j["cells"][0]["splits"], 1);
    EXPECT_EQ(j["cells"][1]["splits"], 8);
    EXPECT_EQ(j["cells"][3]["splits"], 1);
    auto read = boundaryMapFromJson(j, builtinKernels(), device("h200"), "/sweeps/0");
    ASSERT_TRUE(read.ok()) << read.error();
    for (std::size_t i = 0; i < map.cells().size(); ++i) EXPECT_EQ(read->cells()[i].splits, map.cells()[i].splits) << i;
    // Maps saved before the field read as one pass per cell.
    for (auto& cell : j["cells"]) cell.erase("splits");
    auto old = boundaryMapFromJson(j, builtinKernels(), device("h200"), "/sweeps/0");
    ASSERT_TRUE(old.ok()) << old.error();
    for (const BoundaryCell& cell : old->cells()) EXPECT_EQ(cell.splits, 1);
    j["cells"][0]["splits"] = 0;
    EXPECT_FALSE(boundaryMapFromJson(j, builtinKernels(), device("h200"), "/sweeps/0").ok());
}

}  // namespace
}  // namespace tilescope

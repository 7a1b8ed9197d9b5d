// Cliff detection and the plan change matched with each cliff: hand-made sweeps, and sweeps an
// H200 measured (tests/data/roofline/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/series/cliffs.h"
#include "core/series/performance_series.h"
#include "core/trace/worker_output.h"
#include "core/trace/worker_runs_file.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

SweepPoint point(std::int64_t x, double timeUs, std::string_view tile, double waves = 0.5) {
    SweepPoint p;
    p.x = x;
    p.timeUs = timeUs;
    p.plan.tile = tile;
    p.plan.occupancy = Occupancy{};
    p.plan.occupancy->activeBlocksPerSm = 2;
    p.plan.occupancy->waves = waves;
    return p;
}

TEST(Cliffs, StepsUpAndDownPastTheThreshold) {
    const std::vector<SweepPoint> points{point(1, 10, "a"), point(2, 12.5, "a"), point(3, 20, "b"), point(4, 20, "b"), point(5, 14, "b")};
    const auto cliffs = findCliffs(points, nullptr);
    ASSERT_EQ(cliffs.size(), 2u);  // 10 -> 12.5 is exactly 25 %: not more than the threshold
    EXPECT_EQ(cliffs[0].before, 1u);
    EXPECT_EQ(cliffs[0].after, 2u);
    EXPECT_DOUBLE_EQ(cliffs[0].ratio, 1.6);
    EXPECT_TRUE(cliffs[0].explained);
    EXPECT_EQ(cliffs[0].explanation, "tile a -> b");
    EXPECT_EQ(cliffs[1].before, 3u);  // 20 -> 14 us: 20/14 = 1.43, a step down
    EXPECT_DOUBLE_EQ(cliffs[1].ratio, 0.7);
    EXPECT_FALSE(cliffs[1].explained);
    EXPECT_EQ(cliffs[1].explanation, "unexplained");
    EXPECT_TRUE(findCliffs(points, nullptr, 0.7).empty());
}

TEST(Cliffs, UnmeasuredCellsAreSkipped) {
    const std::vector<SweepPoint> points{point(1, 10, "a"), point(2, 0, "a"), point(3, 30, "b")};
    const auto cliffs = findCliffs(points, nullptr);
    ASSERT_EQ(cliffs.size(), 1u);
    EXPECT_EQ(cliffs[0].before, 0u);
    EXPECT_EQ(cliffs[0].after, 2u);
}

TEST(Cliffs, EachKindOfPlanChangeIsNamed) {
    SweepPoint a = point(1, 10, "t"), b = point(2, 10, "t");
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "");
    b.plan.occupancy->waves = 0.6;  // a fraction of a wave more costs nothing
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "");
    a.plan.occupancy->waves = 0.97;
    b.plan.occupancy->waves = 1.03;
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "waves 1 -> 2 (0.97 -> 1.03)");
    b = point(2, 10, "t", 0.97);
    b.plan.bucketCell = 64;
    a.plan.bucketCell = 32;
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "bucket cell 32 -> 64");
    b.plan.bucketCell = 32;
    b.plan.splitK = 8;
    EXPECT_EQ(planDifference(a.plan, b.plan, builtinKernels().find("awq_gemm")), "split-K 1 -> 8");
    EXPECT_EQ(planDifference(a.plan, b.plan, builtinKernels().find("attention")), "num_splits 1 -> 8");  // its splitName
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "split-K 1 -> 8");  // a family this build does not know
    b.plan.splitK = 1;
    b.plan.kernelSymbol = "k2";
    a.plan.kernelSymbol = "k1";
    b.plan.variant = "v2";
    a.plan.variant = "v1";
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "variant v1 -> v2; kernel k1 -> k2");
    b.plan.tile = "u";  // the tile names the kernel change
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "variant v1 -> v2; tile t -> u");
    b = a;
    b.plan.occupancy->activeBlocksPerSm = 1;
    EXPECT_EQ(planDifference(a.plan, b.plan, nullptr), "blocks/SM 2 -> 1");
}

TEST(Cliffs, PlanChangesAlongTheAxisWithOrWithoutACliff) {
    const std::vector<SweepPoint> points{point(1, 10, "a"), point(2, 10, "b"), point(3, 10, "b"), point(4, 30, "c")};
    const auto changes = planChanges(points, nullptr);
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].index, 1u);
    EXPECT_EQ(changes[0].what, "tile a -> b");
    EXPECT_EQ(changes[1].index, 3u);
}

// The runs of one family along M read from a recorded worker file, in M order.
std::vector<SweepPoint> recordedSweep(const char* file) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/roofline/" + file);
    EXPECT_TRUE(in) << file;
    std::vector<SweepPoint> points;
    std::string line;
    while (std::getline(in, line)) {
        auto run = runFromWorkerJson(nlohmann::ordered_json::parse(line), builtinKernels());
        EXPECT_TRUE(run) << run.error();
        if (!run) continue;
        SweepPoint p;
        p.x = run->plan.shape[0];  // M is the first parameter of both families
        p.timeUs = run->gpu && run->gpu->timing ? run->gpu->timing->medianUs : 0.0;
        // The plan's string_views point into the run's pool: keep it alive with the point.
        static std::vector<std::shared_ptr<const StringPool>> pools;
        pools.push_back(run->strings);
        p.plan = run->plan;
        points.push_back(std::move(p));
    }
    std::sort(points.begin(), points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.x < b.x; });
    return points;
}

TEST(Cliffs, H200PrefillCliffsAreTheTileChanges) {
    const auto points = recordedSweep("h200_awq_gemm_prefill_m.jsonl");
    ASSERT_EQ(points.size(), 7u);  // M = 1, 32, 33, 128, 129, 193, 1000 at N = K = 4096
    const KernelFamily* family = builtinKernels().find("awq_gemm");
    const auto cliffs = findCliffs(points, family);
    ASSERT_EQ(cliffs.size(), 3u);
    EXPECT_EQ(points[cliffs[0].before].x, 32);
    EXPECT_EQ(points[cliffs[0].after].x, 33);
    EXPECT_NEAR(cliffs[0].ratio, 64.223 / 37.184, 1e-9);
    EXPECT_EQ(cliffs[0].explanation, "tile M<=32: 16x128x128, 4 stages -> M<=64: 16x128x128, 3 stages; split-K 2 -> 1");
    EXPECT_EQ(points[cliffs[1].before].x, 128);
    EXPECT_EQ(points[cliffs[1].after].x, 129);
    EXPECT_NE(cliffs[1].explanation.find("tile M<=128: 32x128x128, 4 stages -> M<=192: 64x128x64, 4 stages"), std::string::npos)
        << cliffs[1].explanation;
    // M = 193 -> 1000 keeps its tile; the grid goes past one wave.
    EXPECT_EQ(points[cliffs[2].before].x, 193);
    EXPECT_EQ(cliffs[2].explanation, "waves 1 -> 2 (0.48 -> 1.94)");
    for (const auto& cliff : cliffs) EXPECT_TRUE(cliff.explained);
    // 33 -> 128 changes the tile without a cliff (64.2 -> 66.4 us): a plan change, not a cliff.
    const auto changes = planChanges(points, family);
    EXPECT_TRUE(std::any_of(changes.begin(), changes.end(), [&](const PlanChange& c) { return points[c.index].x == 128; }));
}

TEST(Cliffs, H200GemmBucketCliffsAreTheBucketCells) {
    const auto points = recordedSweep("h200_gemm_bucket_oproj_m.jsonl");
    ASSERT_EQ(points.size(), 15u);  // M = 1 .. 513 at N = 7168, K = 2048; 513 overflows the buckets
    EXPECT_EQ(points.back().x, 513);
    EXPECT_EQ(points.back().timeUs, 0.0);
    const KernelFamily* family = builtinKernels().find("gemm_bucket");
    const auto cliffs = findCliffs(points, family);
    std::vector<std::string> found;
    for (const auto& cliff : cliffs)
        found.push_back(std::to_string(points[cliff.before].x) + "->" + std::to_string(points[cliff.after].x) + ": " + cliff.explanation);
    const std::vector<std::string> expected{"64->65: bucket cell 64 -> 128", "128->129: bucket cell 128 -> 256",
                                            "256->257: bucket cell 256 -> 512"};
    EXPECT_EQ(found, expected);
    // M = 8 -> 9 moves to cell 16 at the same time (17.57 us): drawn as a change, not a cliff.
    const auto changes = planChanges(points, family);
    ASSERT_FALSE(changes.empty());
    EXPECT_EQ(points[changes[0].index].x, 9);
    EXPECT_EQ(changes[0].what, "bucket cell 8 -> 16");
}

// The bundled fake worker (tests/ui/fake_worker.cpp) reports runs with kernel records but no timed
// repeats: a sweep it recorded has no measured time, so no figure and no cliff may come out of it.
TEST(Cliffs, FakeWorkerSweepHasNoTimeSoNoFiguresOrCliffs) {
    auto trace = readWorkerRunsFile(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/roofline/fake_worker_gemm_bucket_sweep.jsonl",
                                    builtinKernels());
    ASSERT_TRUE(trace) << trace.error();
    ASSERT_EQ(trace->runs.size(), 5u);
    std::vector<SweepPoint> points;
    for (const tilescope::Run& run : trace->runs) {
        EXPECT_EQ(run.kind, RunKind::Measured);
        EXPECT_FALSE(measuredTimeUs(run));
        points.push_back({run.plan.shape[0], measuredTimeUs(run).value_or(0.0), run.plan});
    }
    const KernelFamily* family = builtinKernels().find("gemm_bucket");
    EXPECT_TRUE(findCliffs(points, family).empty());
    EXPECT_TRUE(planChanges(points, family).empty());  // it reports the base shape at every cell
    EXPECT_TRUE(findMeasuredSweeps(*trace).empty());
    for (const auto& figures : runFigures(*trace, builtinKernels(), DeviceDatabase::embedded(), {})) {
        EXPECT_FALSE(figures);
    }
}

}  // namespace
}  // namespace tilescope

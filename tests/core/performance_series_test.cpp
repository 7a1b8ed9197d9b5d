// Issue 14: the Performance page's series on the real H200 runs of tests/data/gpu_check (the
// gemm_bucket oproj M sweep at N=7168, K=2048 and the prefill M sweep at N=K=4096), read through
// the same opener as the app and the CLI.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/trace/kineto_import.h"
#include "core/series/performance_series.h"
#include "core/trace/worker_runs_file.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

const std::string kH200Runs = TILESCOPE_SOURCE_DIR "/tests/data/gpu_check/h200_after_runs.jsonl.gz";

const Trace& h200Trace() {
    static const Trace trace = [] {
        auto read = openTraceFile(kH200Runs, builtinKernels());
        EXPECT_TRUE(read) << read.error();
        return read ? std::move(*read) : Trace{};
    }();
    return trace;
}

const MeasuredSweep* findSweep(const std::vector<MeasuredSweep>& sweeps, std::string_view variant, std::string_view fixed) {
    for (const MeasuredSweep& s : sweeps)
        if (s.variant == variant && s.parameters[static_cast<std::size_t>(s.xParameter)].name == "M" && !s.lineParameter &&
            std::find(s.fixed.begin(), s.fixed.end(), fixed) != s.fixed.end())
            return &s;
    return nullptr;
}

PerformanceSeries seriesOf(const Trace& trace, const MeasuredSweep& sweep, PerformanceOptions options = {}) {
    return performanceSeries(trace, sweep, builtinKernels(), DeviceDatabase::embedded(), options);
}

std::vector<std::int64_t> xsOf(const PerformanceLine& line) {
    std::vector<std::int64_t> xs;
    for (const auto& p : line.points) xs.push_back(p.x);
    return xs;
}

TEST(WorkerRunsFile, ReadsEveryLineOfTheRecordedH200Check) {
    ASSERT_EQ(h200Trace().runs.size(), 122u);
    const auto measured = std::count_if(h200Trace().runs.begin(), h200Trace().runs.end(),
                                        [](const tilescope::Run& r) { return measuredTimeUs(r).has_value(); });
    EXPECT_GT(measured, 80);
    EXPECT_EQ(runDeviceName(h200Trace().runs.front()), "NVIDIA H200");
}

TEST(WorkerRunsFile, ABrokenLineIsAnErrorNamingIt) {
    auto read = readWorkerRunsText("\n{\"kernel\": \"awq_gemv\"\n", "runs.jsonl", builtinKernels());
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().find("runs.jsonl:2"), std::string::npos) << read.error();
    EXPECT_FALSE(readWorkerRunsText("\n\n", "empty.jsonl", builtinKernels()));
    EXPECT_TRUE(looksLikeWorkerRunsFile("a/b.jsonl.gz"));
    EXPECT_FALSE(looksLikeWorkerRunsFile("a/b.json.gz"));
}

TEST(PerformanceSeries, FindsTheMeasuredMSweepsOfTheH200Check) {
    const auto sweeps = findMeasuredSweeps(h200Trace());
    ASSERT_FALSE(sweeps.empty());
    // The largest: gemm_bucket oproj, M from 1 to 512 at N=7168, K=2048 (M=513 is refused, so not measured).
    EXPECT_EQ(sweeps.front().family, "gemm_bucket");
    const MeasuredSweep* bucket = findSweep(sweeps, "oproj", "N=7168");
    ASSERT_NE(bucket, nullptr);
    EXPECT_EQ(bucket->runs.size(), 14u);
    EXPECT_EQ(bucket->devices, std::vector<std::string>{"NVIDIA H200"});
    EXPECT_NE(bucket->label.find("along M (N=7168, K=2048)"), std::string::npos) << bucket->label;
    const MeasuredSweep* prefill = findSweep(sweeps, "prefill", "N=4096");
    ASSERT_NE(prefill, nullptr);
    EXPECT_EQ(prefill->runs.size(), 7u) << prefill->label;  // M = 1, 32, 33, 128, 129, 193, 1000
    for (const MeasuredSweep& s : sweeps) EXPECT_GE(s.runs.size(), static_cast<std::size_t>(kMinSweepPoints)) << s.label;
}

TEST(PerformanceSeries, BucketSweepPointsFiguresAndCliffs) {
    const auto sweeps = findMeasuredSweeps(h200Trace());
    const MeasuredSweep* bucket = findSweep(sweeps, "oproj", "N=7168");
    ASSERT_NE(bucket, nullptr);
    const PerformanceSeries series = seriesOf(h200Trace(), *bucket);
    ASSERT_EQ(series.lines.size(), 1u);
    const PerformanceLine& line = series.lines.front();
    EXPECT_EQ(xsOf(line), (std::vector<std::int64_t>{1, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257, 512}));
    EXPECT_EQ(series.xLabel, "M");
    EXPECT_TRUE(series.logX);
    EXPECT_EQ(line.roofline.label, "datasheet");
    EXPECT_EQ(line.roofline.roofline.bandwidthGBps, 4800.0);  // devices.json h200, matched by the CUDA name
    // The recorded CUPTI medians (us), and the rates from the plan's bytes and FLOPs.
    EXPECT_DOUBLE_EQ(line.points[12].timeUs, 69.216);
    for (const PerformancePoint& p : line.points) {
        const LaunchPlan& plan = h200Trace().runs[p.run].plan;
        ASSERT_TRUE(p.achieved.gbps);
        EXPECT_NEAR(*p.achieved.gbps, plan.bytesMoved / (p.timeUs * 1e-6) / 1e9, 1e-9);
        ASSERT_TRUE(p.achieved.tflops);
        EXPECT_NEAR(*p.achieved.tflops, plan.flops / (p.timeUs * 1e-6) / 1e12, 1e-9);
        ASSERT_TRUE(p.achieved.pctOfRoofline);
        EXPECT_GT(*p.achieved.pctOfRoofline, 0.0);
        EXPECT_LE(*p.achieved.pctOfRoofline, 100.0) << "M=" << p.x;
        ASSERT_TRUE(p.estimate) << "M=" << p.x;
        ASSERT_TRUE(p.measuredOverEstimate);
        EXPECT_NEAR(*p.measuredOverEstimate, p.timeUs / p.estimate->estimateUs, 1e-12);
        EXPECT_NE(p.plan.find("cell"), std::string::npos) << p.plan;
        EXPECT_EQ(metricValue(p, PerformanceMetric::Time), p.timeUs);
        EXPECT_EQ(estimateMetricValue(p, PerformanceMetric::Time), p.estimate->estimateUs);
    }
    // 22.1 -> 29.1 us at M 64 -> 65, 30.2 -> 39.8 at 128 -> 129, 41.0 -> 69.2 at 256 -> 257: each
    // where the bucket cell doubles. 16 -> 17 (+16 %) is a cell change under the 25 % threshold.
    std::vector<std::pair<std::int64_t, std::int64_t>> steps;
    for (const Cliff& c : line.cliffs) {
        steps.emplace_back(line.points[c.before].x, line.points[c.after].x);
        EXPECT_TRUE(c.explained) << c.explanation;
        EXPECT_NE(c.explanation.find("cell"), std::string::npos) << c.explanation;
        EXPECT_EQ(cliffHeadline(c).rfind("bucket cell ", 0), 0u) << cliffHeadline(c);
    }
    EXPECT_EQ(steps, (std::vector<std::pair<std::int64_t, std::int64_t>>{{64, 65}, {128, 129}, {256, 257}}));
    std::vector<std::int64_t> changedAt;
    for (const PlanChange& c : line.changes) changedAt.push_back(line.points[c.index].x);
    for (std::int64_t m : {9, 17, 33, 65, 129, 257}) EXPECT_NE(std::find(changedAt.begin(), changedAt.end(), m), changedAt.end()) << m;
}

TEST(PerformanceSeries, PrefillCliffsAtTheTileBuckets) {
    const auto sweeps = findMeasuredSweeps(h200Trace());
    const MeasuredSweep* prefill = findSweep(sweeps, "prefill", "N=4096");
    ASSERT_NE(prefill, nullptr);
    const PerformanceSeries series = seriesOf(h200Trace(), *prefill);
    const PerformanceLine& line = series.lines.at(0);
    EXPECT_EQ(xsOf(line), (std::vector<std::int64_t>{1, 32, 33, 128, 129, 193, 1000}));
    EXPECT_TRUE(series.logX);
    std::vector<std::int64_t> cliffAfter;
    for (const Cliff& c : line.cliffs) cliffAfter.push_back(line.points[c.after].x);
    // 37.2 -> 64.2 us at M 32 -> 33 and 66.4 -> 106.5 us at 128 -> 129: the M buckets of the prefill
    // tiles; 106.5 -> 231.2 us from M 193 to 1000 (the check's next cell) comes with a second wave.
    EXPECT_EQ(cliffAfter, (std::vector<std::int64_t>{33, 129, 1000}));
    EXPECT_NE(line.cliffs.back().explanation.find("waves 1 -> 2"), std::string::npos) << line.cliffs.back().explanation;
    for (const Cliff& c : line.cliffs) EXPECT_TRUE(c.explained) << c.explanation;
}

TEST(PerformanceSeries, EstimateOnAnotherDeviceIsReplannedThere) {
    const auto sweeps = findMeasuredSweeps(h200Trace());
    const MeasuredSweep* bucket = findSweep(sweeps, "oproj", "N=7168");
    ASSERT_NE(bucket, nullptr);
    PerformanceOptions options;
    options.estimateDevice = *DeviceDatabase::embedded().find("a100-80gb-sxm");
    const PerformanceSeries series = seriesOf(h200Trace(), *bucket, options);
    EXPECT_NE(series.estimateLabel.find("a100-80gb-sxm"), std::string::npos) << series.estimateLabel;
    const auto kernel = resolveKernel(builtinKernels(), "gemm_bucket", "oproj");
    ASSERT_TRUE(kernel);
    int estimated = 0;
    for (const PerformancePoint& p : series.lines.at(0).points) {
        const LaunchPlan a100 =
            kernel->family->plan(kernel->variant, h200Trace().runs[p.run].plan.shape, *options.estimateDevice, PlanDetail::Brief);
        // A cell that does not fit the A100 has no estimate; every other one has.
        EXPECT_EQ(p.estimate.has_value(), a100.ok()) << "M=" << p.x;
        estimated += p.estimate.has_value();
    }
    EXPECT_GT(estimated, 0);
}

TEST(PerformanceSeries, ACalibrationReplacesTheDatasheet) {
    Calibration calibration;
    calibration.gpuName = "NVIDIA H200";
    calibration.driverVersion = "580.159.04";
    calibration.measuredAt = "2026-12-01T10:30:00Z";
    calibration.roofline.bandwidthGBps = 4000.0;
    calibration.roofline.fp16Tflops = 700.0;
    calibration.roofline.bf16Tflops = 700.0;
    calibration.roofline.source = RooflineSource::Measured;
    const RooflineChoice choice = rooflineForGpu("NVIDIA H200", h200Trace(), DeviceDatabase::embedded(), {calibration});
    EXPECT_EQ(choice.label, "measured 2026-12-01");
    EXPECT_EQ(choice.roofline.source, RooflineSource::Measured);
    EXPECT_EQ(rooflineForGpu("NVIDIA H200", h200Trace(), DeviceDatabase::embedded(), {}).label, "datasheet");
    EXPECT_EQ(rooflineForGpu("Some Future GPU", h200Trace(), DeviceDatabase::embedded(), {calibration}).label, "unknown");

    const auto figures = runFigures(h200Trace(), builtinKernels(), DeviceDatabase::embedded(), {calibration});
    ASSERT_EQ(figures.size(), h200Trace().runs.size());
    for (std::size_t i = 0; i < figures.size(); ++i) {
        EXPECT_EQ(figures[i].has_value(), measuredTimeUs(h200Trace().runs[i]).has_value()) << i;
        if (figures[i]) {
            EXPECT_EQ(figures[i]->rooflineLabel, "measured 2026-12-01");
        }
    }
}

// Two GPUs' sweeps of the same cells make one sweep with a line each; a second swept parameter a
// line per value. The second GPU's and the second N's cells are the recorded ones relabelled.
TEST(PerformanceSeries, CompareOverlayAndTwoDimensionalSweep) {
    const auto sweeps = findMeasuredSweeps(h200Trace());
    const MeasuredSweep* bucket = findSweep(sweeps, "oproj", "N=7168");
    ASSERT_NE(bucket, nullptr);
    Trace trace;
    for (std::size_t r : bucket->runs) trace.runs.push_back(h200Trace().runs[r]);
    Trace compare = trace;
    for (std::size_t i = 0; i < bucket->runs.size(); ++i) {
        tilescope::Run other = trace.runs[i];
        other.gpu->deviceName = "NVIDIA H100 80GB HBM3";
        other.gpu->timing->medianUs *= 1.5;
        compare.runs.push_back(other);
    }
    auto compareSweeps = findMeasuredSweeps(compare);
    ASSERT_FALSE(compareSweeps.empty());
    EXPECT_EQ(compareSweeps.front().devices, (std::vector<std::string>{"NVIDIA H200", "NVIDIA H100 80GB HBM3"}));
    const PerformanceSeries overlay = seriesOf(compare, compareSweeps.front());
    ASSERT_EQ(overlay.lines.size(), 2u);
    EXPECT_EQ(overlay.lines[1].label, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(overlay.lines[1].roofline.roofline.bandwidthGBps, 3350.0);  // h100-sxm's datasheet
    EXPECT_DOUBLE_EQ(overlay.lines[1].points[0].timeUs, overlay.lines[0].points[0].timeUs * 1.5);

    Trace twoD = trace;
    const int n = parameterIndex(trace.runs.front().parameters, "N");
    for (std::size_t i = 0; i < bucket->runs.size(); ++i) {
        tilescope::Run other = trace.runs[i];
        other.plan.shape[n] = 4096;
        twoD.runs.push_back(other);
    }
    const auto gridSweeps = findMeasuredSweeps(twoD);
    const auto grid = std::find_if(gridSweeps.begin(), gridSweeps.end(), [&](const MeasuredSweep& s) { return s.lineParameter == n; });
    ASSERT_NE(grid, gridSweeps.end());
    const PerformanceSeries lines = seriesOf(twoD, *grid);
    ASSERT_EQ(lines.lines.size(), 2u);
    EXPECT_EQ(lines.lines[0].label, "NVIDIA H200, N=4096");
    EXPECT_EQ(lines.lines[1].label, "NVIDIA H200, N=7168");
    EXPECT_EQ(lines.lines[0].points.size(), 14u);
}

TEST(PerformanceSeries, CliffHeadlineNamesThePlannersChoice) {
    Cliff cliff;
    cliff.explanation = "unexplained";
    EXPECT_EQ(cliffHeadline(cliff), "unexplained");
    cliff.explained = true;
    cliff.explanation = "kernel gemm_bucket_bn32 -> gemm_bucket_bn64; tile cell 64 -> cell 128; bucket cell 64 -> 128";
    EXPECT_EQ(cliffHeadline(cliff), "bucket cell 64 -> 128 \u2026");
    cliff.explanation = "kernel a -> b; waves 1 -> 2 (0.97 -> 1.10)";
    EXPECT_EQ(cliffHeadline(cliff), "waves 1 -> 2 (0.97 -> 1.10) \u2026");
    cliff.explanation = "split-K 1 -> 8";
    EXPECT_EQ(cliffHeadline(cliff), "split-K 1 -> 8");
}

TEST(PerformanceSeries, NoMeasuredRunsNoSweep) {
    Trace trace;
    for (const tilescope::Run& r : h200Trace().runs) trace.runs.push_back(tilescope::Run::predicted(r.plan, r.parameters));
    EXPECT_TRUE(findMeasuredSweeps(trace).empty());
    EXPECT_TRUE(findMeasuredSweeps(Trace{}).empty());
}

}  // namespace
}  // namespace tilescope

// The report's Roofline section on the runs an H200 measured (tests/data/roofline/README.md).
#include <gtest/gtest.h>

#include "core/series/report_text.h"
#include "core/trace/worker_runs_file.h"
#include "kernels/builtin_kernels.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

Trace recordedPrefill() {
    auto trace =
        readWorkerRunsFile(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/roofline/h200_awq_gemm_prefill_m.jsonl", builtinKernels());
    EXPECT_TRUE(trace) << trace.error();
    return trace ? std::move(trace).value() : Trace{};
}

TEST(ReportRoofline, MeasuredRunsShowTheirFiguresRooflineAndCliffs) {
    const Trace trace = recordedPrefill();
    const std::string html = reportHtml(trace, builtinKernels(), {}, "r");
    ASSERT_NE(html.find("<h2>Roofline</h2>"), std::string::npos);
    // M=32: 37.184 us; 9.96 MB and 1.07 GFLOP in the plan -> 267.9 GB/s, 28.88 TFLOP/s, 5.6 % of 4,800 GB/s.
    EXPECT_NE(html.find("<td>37.18</td><td>267.9</td><td>28.88</td><td>5.6</td><td>datasheet</td>"), std::string::npos);
    EXPECT_NE(html.find("NVIDIA H200: datasheet: 4,800 GB/s, fp16 989.5 TFLOP/s"), std::string::npos);
    EXPECT_NE(html.find("M 32 -&gt; 33, 37.18 -&gt; 64.22 us (x1.73): tile M&lt;=32"), std::string::npos);
    const std::string markdown = reportMarkdown(trace, builtinKernels(), {}, "r", "f");
    EXPECT_NE(markdown.find("## Roofline"), std::string::npos);
}

TEST(ReportRoofline, ACalibrationOfTheGpuReplacesTheDatasheet) {
    const Trace trace = recordedPrefill();
    Calibration calibration;
    calibration.gpuName = "NVIDIA H200";
    calibration.driverVersion = "580.159.04";
    calibration.measuredAt = "2026-12-01T10:00:00Z";
    calibration.roofline.source = RooflineSource::Measured;
    calibration.roofline.bandwidthGBps = 4000;
    calibration.roofline.fp16Tflops = 750;
    calibration.roofline.bf16Tflops = 780;
    ReportContent content{"r", {}, &trace, {}, std::nullopt};
    const std::string html = reportHtml(content, builtinKernels(), {calibration});
    // M=32's bound on 4,000 GB/s: 9.96 MB / 4e12 B/s = 2.49 us, 6.7 % of 37.18 us.
    EXPECT_NE(html.find("<td>37.18</td><td>267.9</td><td>28.88</td><td>6.7</td><td>measured 2026-12-01</td>"), std::string::npos);
    EXPECT_NE(html.find("NVIDIA H200: measured: 4,000 GB/s, fp16 750.0 TFLOP/s, bf16 780.0 TFLOP/s"), std::string::npos);
}

TEST(ReportRoofline, NoMeasuredRunNoSection) {
    Trace predicted = test::fixtureTrace();
    std::erase_if(predicted.runs, [](const tilescope::Run& run) { return run.kind == RunKind::Measured; });
    ASSERT_FALSE(predicted.runs.empty());
    EXPECT_EQ(reportHtml(predicted, builtinKernels(), {}, "r").find("<h2>Roofline</h2>"), std::string::npos);
}

}  // namespace
}  // namespace tilescope

// Roofline arithmetic (hand-computable cases), datasheet figures and calibration files.
#include <gtest/gtest.h>

#include "core/series/calibration.h"
#include "core/model/device_spec.h"
#include "core/series/roofline.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

LaunchPlan planMoving(double bytes, double flops) {
    LaunchPlan plan;
    plan.bytesMoved = bytes;
    plan.flops = flops;
    return plan;
}

Roofline roofline(std::optional<double> gbps, std::optional<double> fp16, std::optional<double> bf16 = std::nullopt) {
    Roofline r;
    r.bandwidthGBps = gbps;
    r.fp16Tflops = fp16;
    r.bf16Tflops = bf16;
    return r;
}

TEST(Roofline, AchievedFiguresOfAMemoryBoundCall) {
    // 8 MB and 4e8 FLOP in 10 us: 800 GB/s, 40 TFLOP/s. Bound: 8e6 B / 4e12 B/s = 2 us against
    // 4e8 / 1e15 = 0.4 us of compute, so 2 us, 20 % of the roofline.
    const auto figures = achievedFigures(planMoving(8e6, 4e8), 10.0, roofline(4000, 1000));
    ASSERT_TRUE(figures.gbps && figures.tflops && figures.boundUs && figures.pctOfRoofline);
    EXPECT_DOUBLE_EQ(*figures.gbps, 800.0);
    EXPECT_DOUBLE_EQ(*figures.tflops, 40.0);
    EXPECT_DOUBLE_EQ(*figures.boundUs, 2.0);
    EXPECT_DOUBLE_EQ(*figures.pctOfRoofline, 20.0);
    EXPECT_EQ(figures.source, RooflineSource::Datasheet);
}

TEST(Roofline, ComputeBoundUsesTheDtypesPeak) {
    // 1 MB, 2e9 FLOP: memory 1e6 / 2e12 = 0.5 us; fp16 2e9 / 1e15 = 2 us; bf16 at 500 TF: 4 us.
    const LaunchPlan plan = planMoving(1e6, 2e9);
    const Roofline r = roofline(2000, 1000, 500);
    EXPECT_DOUBLE_EQ(*rooflineBoundUs(plan, r), 2.0);
    EXPECT_DOUBLE_EQ(*rooflineBoundUs(plan, r, RooflineDtype::Bf16), 4.0);
    const auto figures = achievedFigures(plan, 8.0, r, RooflineDtype::Bf16);
    EXPECT_DOUBLE_EQ(*figures.pctOfRoofline, 50.0);
}

TEST(Roofline, EachFamilyNamesItsElementType) {
    // The bucketed GEMM's kernels compute in bf16, the AWQ kernels in fp16; a family this build
    // does not know (a trace from another build) gets the default, fp16.
    EXPECT_EQ(rooflineDtypeOf("gemm_bucket", builtinKernels()), RooflineDtype::Bf16);
    EXPECT_EQ(rooflineDtypeOf("awq_gemm", builtinKernels()), RooflineDtype::Fp16);
    EXPECT_EQ(rooflineDtypeOf("not_a_family", builtinKernels()), RooflineDtype::Fp16);
}

TEST(Roofline, UnknownFiguresStayUnknown) {
    const LaunchPlan plan = planMoving(8e6, 4e8);
    // No ceiling at all: rates are known (they need only the plan), the bound and % are not.
    const auto none = achievedFigures(plan, 10.0, roofline(std::nullopt, std::nullopt));
    EXPECT_TRUE(none.gbps && none.tflops);
    EXPECT_FALSE(none.boundUs);
    EXPECT_FALSE(none.pctOfRoofline);
    // Bandwidth alone: a call that computes has no bound (the memory term alone would understate
    // it); a pure copy has its memory term.
    EXPECT_FALSE(rooflineBoundUs(plan, roofline(4000, std::nullopt)));
    EXPECT_DOUBLE_EQ(*rooflineBoundUs(planMoving(8e6, 0), roofline(4000, std::nullopt)), 2.0);
    EXPECT_FALSE(achievedFigures(plan, 10.0, roofline(4000, std::nullopt)).pctOfRoofline);
    // No bf16 peak (T4): a bf16 call has no bound, never the fp16 peak's.
    EXPECT_FALSE(rooflineBoundUs(planMoving(1e6, 2e9), roofline(2000, 1000), RooflineDtype::Bf16));
    // No time: no rate.
    const auto zero = achievedFigures(plan, 0.0, roofline(4000, 1000));
    EXPECT_FALSE(zero.gbps || zero.tflops || zero.pctOfRoofline);
    EXPECT_FALSE(estimateTime(plan, roofline(std::nullopt, std::nullopt)));
}

TEST(Roofline, EstimateScalesTheBoundByWholeWaves) {
    LaunchPlan plan = planMoving(8e6, 4e8);  // bound 2 us as above
    const Roofline r = roofline(4000, 1000);
    auto noWaves = estimateTime(plan, r);  // no occupancy: no wave factor
    ASSERT_TRUE(noWaves);
    EXPECT_DOUBLE_EQ(noWaves->waveFactor, 1.0);
    EXPECT_DOUBLE_EQ(noWaves->estimateUs, 2.0);
    struct Row {
        double waves, factor;
    };
    for (const Row row : {Row{1.0, 1.0}, Row{1.5, 2.0 / 1.5}, Row{2.0, 1.0}, Row{0.5, 2.0}, Row{0.25, 4.0}}) {
        plan.occupancy = Occupancy{};
        plan.occupancy->waves = row.waves;
        auto estimate = estimateTime(plan, r);
        ASSERT_TRUE(estimate);
        EXPECT_DOUBLE_EQ(estimate->waveFactor, row.factor) << row.waves;
        EXPECT_DOUBLE_EQ(estimate->boundUs, 2.0);
        EXPECT_DOUBLE_EQ(estimate->estimateUs, 2.0 * row.factor) << row.waves;
    }
    plan.verdict = Verdict::InvalidLaunch;
    EXPECT_FALSE(estimateTime(plan, r));  // a failing call has no time
}

TEST(Roofline, DatasheetFiguresOfTheDatabase) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    const Roofline h200 = datasheetRoofline(*database.find("h200"));
    EXPECT_EQ(h200.source, RooflineSource::Datasheet);
    EXPECT_EQ(rooflineSourceName(h200.source), "datasheet");
    EXPECT_DOUBLE_EQ(*h200.bandwidthGBps, 4800.0);
    EXPECT_DOUBLE_EQ(*h200.fp16Tflops, 989.5);
    EXPECT_NE(h200.provenance.find("https://www.nvidia.com/"), std::string::npos);
    // Every peak in the database names where it comes from; unknown peaks stay unknown.
    for (const DeviceSpec& device : database.devices()) {
        if (device.fp16TensorTflops || device.bf16TensorTflops) {
            EXPECT_NE(device.peakSource.find("https://"), std::string::npos) << device.id;
        }
    }
    EXPECT_FALSE(database.find("t4")->bf16TensorTflops);  // Turing has no bf16 tensor cores
    EXPECT_FALSE(datasheetRoofline(*database.find("b200")).fp16Tflops);
}

TEST(Roofline, ALiveGpuFindsItsDatasheetEntry) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    DeviceSpec live = *database.find("h200");
    live.id = "local:0";
    live.name = "NVIDIA H200";  // cudaGetDeviceProperties' name
    live.fp16TensorTflops.reset();
    live.bf16TensorTflops.reset();
    live.peakSource.clear();
    live.memoryBandwidthGBps = 4812.8;  // from memory clock x bus width
    const Roofline r = datasheetRoofline(live, database);
    EXPECT_DOUBLE_EQ(*r.fp16Tflops, 989.5);
    EXPECT_DOUBLE_EQ(*r.bandwidthGBps, 4812.8);  // the live figure wins
    live.name = "NVIDIA H20";                    // another GPU of the same architecture and SM count is not an H200
    EXPECT_FALSE(datasheetRoofline(live, database).fp16Tflops);
    live.name = "NVIDIA H200";
    live.smCount = 114;
    EXPECT_FALSE(datasheetRoofline(live, database).fp16Tflops);
}

TEST(Roofline, DeviceFilePeaksNeedTheirSource) {
    const std::string base = R"({"id": "x", "name": "X", "compute_capability": [9, 0], "sm_count": 132,
      "warp_size": 32, "max_threads_per_block": 1024, "max_block_dim": [1024, 1024, 64],
      "max_grid_dim": [2147483647, 65535, 65535], "regs_per_sm": 65536, "regs_per_block": 65536,
      "max_regs_per_thread": 255, "smem_per_block": 49152, "smem_per_sm": 233472,
      "smem_per_block_optin": 232448, "max_blocks_per_sm": 32, "max_threads_per_sm": 2048,
      "reserved_smem_per_block": 1024, "memory_bytes": 85899345920)";
    auto without = DeviceDatabase::fromJsonText(base + "}", "x.json");
    ASSERT_TRUE(without) << without.error();
    EXPECT_FALSE(without->devices()[0].fp16TensorTflops);
    auto unsourced = DeviceDatabase::fromJsonText(base + R"(, "fp16_tensor_tflops": 100})", "x.json");
    ASSERT_FALSE(unsourced);
    EXPECT_NE(unsourced.error().find("peak_source"), std::string::npos) << unsourced.error();
    auto sourced = DeviceDatabase::fromJsonText(
        base + R"(, "fp16_tensor_tflops": 100, "bf16_tensor_tflops": null, "peak_source": "https://example.com/x"})", "x.json");
    ASSERT_TRUE(sourced) << sourced.error();
    EXPECT_DOUBLE_EQ(*sourced->devices()[0].fp16TensorTflops, 100.0);
    EXPECT_FALSE(sourced->devices()[0].bf16TensorTflops);
    auto negative = DeviceDatabase::fromJsonText(base + R"(, "fp16_tensor_tflops": -1, "peak_source": "s"})", "x.json");
    EXPECT_FALSE(negative);
}

TEST(Calibration, RoundTrip) {
    Calibration c;
    c.gpuName = "NVIDIA H200";
    c.driverVersion = "580.95.05";
    c.measuredAt = "2026-12-01T10:00:00Z";
    c.roofline.source = RooflineSource::Measured;
    c.roofline.bandwidthGBps = 4276.4;
    c.roofline.fp16Tflops = 755.4;
    c.roofline.provenance = "tilescope-cli calibrate";  // bf16 left unknown
    auto back = calibrationFromJson(calibrationToJson(c));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->gpuName, c.gpuName);
    EXPECT_EQ(back->driverVersion, c.driverVersion);
    EXPECT_EQ(back->measuredAt, c.measuredAt);
    EXPECT_EQ(back->roofline.source, RooflineSource::Measured);
    EXPECT_DOUBLE_EQ(*back->roofline.bandwidthGBps, 4276.4);
    EXPECT_DOUBLE_EQ(*back->roofline.fp16Tflops, 755.4);
    EXPECT_FALSE(back->roofline.bf16Tflops);
    EXPECT_EQ(back->roofline.provenance, c.roofline.provenance);
}

TEST(Calibration, RejectsWhatIsNotACalibration) {
    EXPECT_FALSE(calibrationFromJson("not json"));
    EXPECT_FALSE(calibrationFromJson("[]"));
    auto wrongFormat = calibrationFromJson(R"({"format": "tilescope-trace", "version": 1})");
    ASSERT_FALSE(wrongFormat);
    EXPECT_NE(wrongFormat.error().find("tilescope-calibration"), std::string::npos);
    auto missing = calibrationFromJson(R"({"format": "tilescope-calibration", "version": 1, "gpu": "X"})");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("driver"), std::string::npos) << missing.error();
    auto negative = calibrationFromJson(R"({"format": "tilescope-calibration", "version": 1, "gpu": "X", "driver": "1",
        "measured_at": "t", "bandwidth_gbps": -5})");
    EXPECT_FALSE(negative);
}

}  // namespace
}  // namespace tilescope

// The Performance page's series: a trace's measured runs of one family / variant that differ along
// one parameter (a 1-D sweep) or two (one line per value of the second), per GPU, with the figures
// each cell achieved against its GPU's roofline (measured by `calibrate` where known, else the
// datasheet), the plan changes and cliffs along the axis, and the model-mode estimate per cell.
// Also the achieved figures of every run for the Runs page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/series/calibration.h"
#include "core/series/cliffs.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/series/roofline.h"
#include "core/trace/trace.h"

namespace tilescope {

// A run with a time to plot: measured, launched and synchronised without error, with timed repeats.
std::optional<double> measuredTimeUs(const Run& run);
// The GPU a measured run ran on ("NVIDIA H200"), else its plan's device id.
std::string runDeviceName(const Run& run);

// The database device whose product name is `gpuName` (the CUDA device name), exactly or followed
// by more words ("NVIDIA H200" -> "NVIDIA H200 141GB (SXM)"); nullptr when none or several match.
const DeviceSpec* databaseDeviceForGpu(std::string_view gpuName, const DeviceDatabase& database);

// The roofline a GPU's runs are measured against, and how the page names it.
struct RooflineChoice {
    Roofline roofline;
    std::string label;  // "measured 2026-12-01", "datasheet", or "unknown" when no figure is known
};
// A calibration of that GPU (the driver the trace names, when it names one) wins over the datasheet
// of the trace's or the database's device; no figures at all is "unknown".
RooflineChoice rooflineForGpu(const std::string& gpuName, const Trace& trace, const DeviceDatabase& database,
                              const std::vector<Calibration>& calibrations);

// Achieved figures of each run (nullopt for a run without a measured time), for the Runs page;
// `kernels` names each run's family's element type (rooflineDtypeOf).
struct RunFigures {
    AchievedFigures achieved;
    std::string rooflineLabel;
};
std::vector<std::optional<RunFigures>> runFigures(const Trace& trace, const KernelRegistry& kernels, const DeviceDatabase& database,
                                                  const std::vector<Calibration>& calibrations);

// A set of measured runs that differ along one parameter (and for a 2-D sweep a second one), the
// other parameters equal; the same cells measured on several GPUs make one sweep with a line each.
struct MeasuredSweep {
    std::string family;
    std::string variant;
    ParameterList parameters;
    int xParameter = 0;
    std::optional<int> lineParameter;  // 2-D: one line per value of this parameter
    std::vector<std::string> fixed;    // "N=7168", "K=2048": the parameters held equal
    std::vector<std::string> devices;  // GPU names, in order of first run
    std::vector<std::size_t> runs;     // indices into Trace::runs of the sweep's cells
    std::string label;                 // "<family> / <variant> along M (N=7168, K=2048), NVIDIA H200, 14 cells"
};
// Needs 3 distinct values along the axis (on one GPU); a 2-D sweep needs 2 such lines. The largest first.
inline constexpr int kMinSweepPoints = 3;
std::vector<MeasuredSweep> findMeasuredSweeps(const Trace& trace);

enum class PerformanceMetric { Time, Tflops, Gbps, PctOfRoofline };
std::string_view performanceMetricName(PerformanceMetric metric);  // "time (µs)", "TFLOP/s", "GB/s", "% of roofline"

struct PerformancePoint {
    std::int64_t x = 0;
    std::size_t run = 0;  // index into Trace::runs
    double timeUs = 0;
    AchievedFigures achieved;  // against the line's roofline
    std::string plan;          // "tile cell 64, 1 split, 0.85 waves": what the tooltip and the table name
    // The model-mode estimate of the same call on the estimate device, and its figures.
    std::optional<RooflineEstimate> estimate;
    std::optional<AchievedFigures> estimateFigures;
    std::optional<double> measuredOverEstimate;
};

struct PerformanceLine {
    std::string device;                     // the GPU measured
    std::optional<std::int64_t> lineValue;  // 2-D: the second parameter's value
    std::string label;                      // "NVIDIA H200" or "NVIDIA H200, N=4096"
    RooflineChoice roofline;
    std::vector<PerformancePoint> points;  // in axis order
    std::vector<PlanChange> changes;       // indices into points
    std::vector<Cliff> cliffs;
};

struct PerformanceOptions {
    std::vector<Calibration> calibrations;  // measured rooflines (the user's settings)
    // Model-mode estimate on this device (re-planned there); nullopt: each line's own GPU and plans.
    std::optional<DeviceSpec> estimateDevice;
    double cliffThreshold = 0.25;
};

struct PerformanceSeries {
    MeasuredSweep sweep;
    std::string xLabel;         // the swept parameter's name
    bool logX = false;          // the axis spans 16x or more of positive values: doubling steps read best
    std::string estimateLabel;  // "on a100-80gb-sxm, re-planned there (datasheet roofline)", "on the measured GPU (...)"
    std::vector<PerformanceLine> lines;
    std::vector<std::string> notes;  // duplicate cells dropped, lines thinned
};
// Lines of a 2-D sweep beyond this many are thinned to evenly spaced values of the second parameter.
inline constexpr std::size_t kMaxSweepLines = 12;
PerformanceSeries performanceSeries(const Trace& trace, const MeasuredSweep& sweep, const KernelRegistry& registry,
                                    const DeviceDatabase& database, const PerformanceOptions& options);

// The one plan change of a cliff's explanation a chart label has room for: the bucket cell, else the
// tile, the split, the waves, the kernel, in that order ("bucket cell 64 -> 128"); "…" marks that
// there were more.
std::string cliffHeadline(const Cliff& cliff);

// A point's value in `metric` (nullopt: unknown, e.g. TFLOP/s of a plan that counts no FLOPs), and its estimate's.
std::optional<double> metricValue(const PerformancePoint& point, PerformanceMetric metric);
std::optional<double> estimateMetricValue(const PerformancePoint& point, PerformanceMetric metric);

}  // namespace tilescope

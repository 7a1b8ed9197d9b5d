#include "core/series/performance_series.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <set>

#include "core/model/text_format.h"

namespace tilescope {

namespace {

// The x axis reads best in doubling steps once it spans this ratio (M = 1 .. 512).
constexpr double kLogAxisSpan = 16.0;

bool hasAnyFigure(const Roofline& r) { return r.bandwidthGBps || r.fp16Tflops || r.bf16Tflops; }

std::string datePart(const std::string& isoTime) { return isoTime.substr(0, std::min<std::size_t>(10, isoTime.size())); }

// A run of the sweep, with what grouping needs.
struct Cell {
    std::size_t run = 0;
    std::string device;
};

// Parameters equal to `x` in every cell (head_dim_v tied to head_dim): they move with the axis.
std::vector<int> followersOf(int x, const std::vector<Cell>& cells, const Trace& trace, int parameterCount) {
    std::vector<int> followers;
    for (int q = 0; q < parameterCount; ++q) {
        if (q == x) continue;
        const bool tied = std::all_of(cells.begin(), cells.end(), [&](const Cell& c) {
            const Shape& s = trace.runs[c.run].plan.shape;
            return s[q] == s[x];
        });
        if (tied) followers.push_back(q);
    }
    return followers;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
    std::string text;
    for (const auto& p : parts) text += (text.empty() ? "" : std::string(separator)) + p;
    return text;
}

std::string twoDecimals(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

std::string planText(const LaunchPlan& plan) {
    std::vector<std::string> parts;
    if (!plan.tile.empty()) parts.emplace_back(plan.tile);
    if (plan.splitK > 1) parts.push_back("split " + std::to_string(plan.splitK));
    if (plan.occupancy && plan.occupancy->waves > 0) parts.push_back(twoDecimals(plan.occupancy->waves) + " waves");
    return joined(parts, ", ");
}

}  // namespace

std::optional<double> measuredTimeUs(const Run& run) {
    if (run.kind != RunKind::Measured || !run.gpu || !run.gpu->launch.ok() || !run.gpu->synchronize.ok()) return std::nullopt;
    const auto& timing = run.gpu->timing;
    if (!timing || timing->repeats <= 0 || !(timing->medianUs > 0) || !std::isfinite(timing->medianUs)) return std::nullopt;
    return timing->medianUs;
}

std::string runDeviceName(const Run& run) { return run.gpu && !run.gpu->deviceName.empty() ? run.gpu->deviceName : run.plan.deviceId; }

const DeviceSpec* databaseDeviceForGpu(std::string_view gpuName, const DeviceDatabase& database) {
    if (gpuName.empty()) return nullptr;
    const DeviceSpec* found = nullptr;
    for (const DeviceSpec& d : database.devices()) {
        if (d.id == gpuName || d.name == gpuName) return &d;
        const bool prefix =
            d.name.size() > gpuName.size() && d.name.compare(0, gpuName.size(), gpuName) == 0 && d.name[gpuName.size()] == ' ';
        if (!prefix) continue;
        if (found) return nullptr;  // "NVIDIA H100" names two products: which one is unknown
        found = &d;
    }
    return found;
}

RooflineChoice rooflineForGpu(const std::string& gpuName, const Trace& trace, const DeviceDatabase& database,
                              const std::vector<Calibration>& calibrations) {
    const auto& driver = trace.build.driverVersion;
    for (const Calibration& c : calibrations) {
        if (c.gpuName != gpuName || (driver && !driver->empty() && c.driverVersion != *driver)) continue;
        RooflineChoice choice{c.roofline, "measured " + datePart(c.measuredAt)};
        choice.roofline.source = RooflineSource::Measured;
        return choice;
    }
    // The trace's own device (a live GPU recorded with the runs), completed from the database's entry.
    std::optional<Roofline> datasheet;
    for (const DeviceSpec& d : trace.devices)
        if (d.name == gpuName || d.id == gpuName) datasheet = datasheetRoofline(d, database);
    if (!datasheet || !hasAnyFigure(*datasheet))
        if (const DeviceSpec* device = databaseDeviceForGpu(gpuName, database)) datasheet = datasheetRoofline(*device);
    if (!datasheet) return {Roofline{}, "unknown"};
    RooflineChoice choice{*datasheet, "datasheet"};
    if (!hasAnyFigure(choice.roofline)) choice.label = "unknown";
    return choice;
}

std::vector<std::optional<RunFigures>> runFigures(const Trace& trace, const KernelRegistry& kernels, const DeviceDatabase& database,
                                                  const std::vector<Calibration>& calibrations) {
    std::vector<std::optional<RunFigures>> figures(trace.runs.size());
    std::map<std::string, RooflineChoice> rooflines;
    for (std::size_t i = 0; i < trace.runs.size(); ++i) {
        const Run& run = trace.runs[i];
        const auto time = measuredTimeUs(run);
        if (!time) continue;
        const std::string device = runDeviceName(run);
        auto found = rooflines.find(device);
        if (found == rooflines.end()) found = rooflines.emplace(device, rooflineForGpu(device, trace, database, calibrations)).first;
        figures[i] = RunFigures{achievedFigures(run.plan, *time, found->second.roofline, rooflineDtypeOf(run.plan.family, kernels)),
                                found->second.label};
    }
    return figures;
}

std::vector<MeasuredSweep> findMeasuredSweeps(const Trace& trace) {
    // Measured cells by family and variant, in order of first appearance.
    std::vector<std::pair<std::pair<std::string, std::string>, std::vector<Cell>>> groups;
    for (std::size_t i = 0; i < trace.runs.size(); ++i) {
        const Run& run = trace.runs[i];
        if (!measuredTimeUs(run) || run.plan.shape.size() != static_cast<int>(run.parameters.size())) continue;
        const std::pair<std::string, std::string> key{std::string(run.plan.family), std::string(run.plan.variant)};
        auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        if (group == groups.end()) group = groups.insert(groups.end(), {key, {}});
        if (!group->second.empty() && trace.runs[group->second.front().run].parameters.size() != run.parameters.size()) continue;
        group->second.push_back({i, runDeviceName(run)});
    }

    std::vector<MeasuredSweep> sweeps;
    for (const auto& [key, cells] : groups) {
        const ParameterList& parameters = trace.runs[cells.front().run].parameters;
        const int n = static_cast<int>(parameters.size());
        auto valueOf = [&](const Cell& c, int p) { return trace.runs[c.run].plan.shape[p]; };
        auto describe = [&](const std::vector<int>& held, const Cell& first) {
            std::vector<std::string> fixed;
            for (int p : held) fixed.push_back(parameters[static_cast<std::size_t>(p)].name + "=" + std::to_string(valueOf(first, p)));
            return fixed;
        };
        for (int x = 0; x < n; ++x) {
            const std::vector<int> xFollowers = followersOf(x, cells, trace, n);
            auto moving = [&](int p) { return p == x || std::find(xFollowers.begin(), xFollowers.end(), p) != xFollowers.end(); };
            // y = -1: the 1-D sweeps along x; else the 2-D ones with a line per value of y.
            for (int y = -1; y < n; ++y) {
                if (y >= 0 && moving(y)) continue;
                const std::vector<int> yFollowers = y >= 0 ? followersOf(y, cells, trace, n) : std::vector<int>{};
                std::vector<int> held;
                for (int p = 0; p < n; ++p)
                    if (!moving(p) && p != y && std::find(yFollowers.begin(), yFollowers.end(), p) == yFollowers.end()) held.push_back(p);
                // Buckets of cells equal in every held parameter, in order of first cell.
                std::vector<std::pair<std::vector<std::int64_t>, std::vector<Cell>>> buckets;
                for (const Cell& c : cells) {
                    std::vector<std::int64_t> values;
                    for (int p : held) values.push_back(valueOf(c, p));
                    auto bucket = std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) { return b.first == values; });
                    if (bucket == buckets.end()) bucket = buckets.insert(buckets.end(), {values, {}});
                    bucket->second.push_back(c);
                }
                for (const auto& [values, bucketCells] : buckets) {
                    // Distinct x per (device, line value); a line counts with kMinSweepPoints of them.
                    std::map<std::pair<std::string, std::int64_t>, std::set<std::int64_t>> xs;
                    for (const Cell& c : bucketCells) xs[{c.device, y >= 0 ? valueOf(c, y) : 0}].insert(valueOf(c, x));
                    std::set<std::pair<std::string, std::int64_t>> lines;
                    std::set<std::int64_t> lineValues;
                    for (const auto& [line, distinct] : xs)
                        if (static_cast<int>(distinct.size()) >= kMinSweepPoints) {
                            lines.insert(line);
                            lineValues.insert(line.second);
                        }
                    if (lines.empty() || (y >= 0 && lineValues.size() < 2)) continue;
                    MeasuredSweep sweep;
                    sweep.family = key.first;
                    sweep.variant = key.second;
                    sweep.parameters = parameters;
                    sweep.xParameter = x;
                    if (y >= 0) sweep.lineParameter = y;
                    sweep.fixed = describe(held, bucketCells.front());
                    for (const Cell& c : bucketCells) {
                        if (!lines.count({c.device, y >= 0 ? valueOf(c, y) : 0})) continue;
                        sweep.runs.push_back(c.run);
                        if (std::find(sweep.devices.begin(), sweep.devices.end(), c.device) == sweep.devices.end())
                            sweep.devices.push_back(c.device);
                    }
                    const std::string& xName = parameters[static_cast<std::size_t>(x)].name;
                    sweep.label = sweep.family + " / " + sweep.variant + " along " + xName +
                                  (y >= 0 ? ", a line per " + parameters[static_cast<std::size_t>(y)].name : std::string()) +
                                  (sweep.fixed.empty() ? std::string() : " (" + joined(sweep.fixed, ", ") + ")") + " on " +
                                  joined(sweep.devices, " and ") + ": " + std::to_string(sweep.runs.size()) + " cells";
                    sweeps.push_back(std::move(sweep));
                }
            }
        }
    }
    std::stable_sort(sweeps.begin(), sweeps.end(),
                     [](const MeasuredSweep& a, const MeasuredSweep& b) { return a.runs.size() > b.runs.size(); });
    return sweeps;
}

std::string_view performanceMetricName(PerformanceMetric metric) {
    switch (metric) {
        case PerformanceMetric::Time: return "time (\u00b5s)";
        case PerformanceMetric::Tflops: return "TFLOP/s";
        case PerformanceMetric::Gbps: return "GB/s";
        case PerformanceMetric::PctOfRoofline: return "% of roofline";
    }
    return "";
}

PerformanceSeries performanceSeries(const Trace& trace, const MeasuredSweep& sweep, const KernelRegistry& registry,
                                    const DeviceDatabase& database, const PerformanceOptions& options) {
    PerformanceSeries series;
    series.sweep = sweep;
    series.xLabel = sweep.parameters.empty() ? std::string() : sweep.parameters[static_cast<std::size_t>(sweep.xParameter)].name;
    const int x = sweep.xParameter;
    // The tensor peak the family computes with, as the CLI uses.
    const KernelFamily* family = registry.find(sweep.family);
    const RooflineDtype dtype = rooflineDtypeOf(sweep.family, registry);

    // The estimate device's roofline: a calibration of the GPU that database entry names, else its datasheet.
    std::optional<RooflineChoice> estimateRoofline;
    std::optional<KernelChoice> kernel;
    if (options.estimateDevice) {
        estimateRoofline = RooflineChoice{datasheetRoofline(*options.estimateDevice), "datasheet"};
        for (const Calibration& c : options.calibrations)
            if (const DeviceSpec* d = databaseDeviceForGpu(c.gpuName, database); d && d->id == options.estimateDevice->id)
                estimateRoofline = RooflineChoice{c.roofline, "measured " + datePart(c.measuredAt)};
        if (!hasAnyFigure(estimateRoofline->roofline)) estimateRoofline->label = "unknown";
        if (auto resolved = resolveKernel(registry, sweep.family, sweep.variant)) kernel = *resolved;
        series.estimateLabel = "on " + options.estimateDevice->id + ", re-planned there (" + estimateRoofline->label + " roofline)";
    } else {
        series.estimateLabel = "on the measured GPU (roofline bound x wave quantisation)";
    }

    // Line values, thinned evenly when a 2-D sweep has more than fit on one plot.
    std::vector<std::optional<std::int64_t>> lineValues{std::nullopt};
    if (sweep.lineParameter) {
        std::set<std::int64_t> values;
        for (std::size_t r : sweep.runs) values.insert(trace.runs[r].plan.shape[*sweep.lineParameter]);
        std::vector<std::int64_t> all(values.begin(), values.end());
        lineValues.clear();
        if (all.size() > kMaxSweepLines) {
            for (std::size_t i = 0; i < kMaxSweepLines; ++i) lineValues.push_back(all[i * (all.size() - 1) / (kMaxSweepLines - 1)]);
            series.notes.push_back(std::to_string(kMaxSweepLines) + " of " + std::to_string(all.size()) + " values of " +
                                   sweep.parameters[static_cast<std::size_t>(*sweep.lineParameter)].name + " drawn, evenly spaced");
        } else {
            lineValues.assign(all.begin(), all.end());
        }
    }

    std::size_t duplicates = 0;
    std::int64_t minX = 0, maxX = 0;
    bool anyPoint = false;
    for (const std::string& device : sweep.devices) {
        const RooflineChoice roofline = rooflineForGpu(device, trace, database, options.calibrations);
        for (const auto& lineValue : lineValues) {
            PerformanceLine line;
            line.device = device;
            line.lineValue = lineValue;
            line.roofline = roofline;
            line.label = device;
            if (lineValue)
                line.label +=
                    ", " + sweep.parameters[static_cast<std::size_t>(*sweep.lineParameter)].name + "=" + std::to_string(*lineValue);
            std::vector<std::size_t> runs;
            for (std::size_t r : sweep.runs)
                if (runDeviceName(trace.runs[r]) == device && (!lineValue || trace.runs[r].plan.shape[*sweep.lineParameter] == *lineValue))
                    runs.push_back(r);
            std::stable_sort(runs.begin(), runs.end(),
                             [&](std::size_t a, std::size_t b) { return trace.runs[a].plan.shape[x] < trace.runs[b].plan.shape[x]; });
            std::vector<SweepPoint> sweepPoints;
            for (std::size_t r : runs) {
                const Run& run = trace.runs[r];
                const std::int64_t value = run.plan.shape[x];
                if (!line.points.empty() && line.points.back().x == value) {  // measured twice (fp16 and bf16): the first kept
                    ++duplicates;
                    continue;
                }
                PerformancePoint point;
                point.x = value;
                point.run = r;
                point.timeUs = *measuredTimeUs(run);
                point.achieved = achievedFigures(run.plan, point.timeUs, roofline.roofline, dtype);
                point.plan = planText(run.plan);
                if (estimateRoofline && kernel) {
                    const LaunchPlan plan =
                        kernel->family->plan(kernel->variant, run.plan.shape, *options.estimateDevice, PlanDetail::Brief);
                    point.estimate = estimateTime(plan, estimateRoofline->roofline, dtype);
                    if (point.estimate)
                        point.estimateFigures = achievedFigures(plan, point.estimate->estimateUs, estimateRoofline->roofline, dtype);
                } else if (!estimateRoofline) {
                    point.estimate = estimateTime(run.plan, roofline.roofline, dtype);
                    if (point.estimate)
                        point.estimateFigures = achievedFigures(run.plan, point.estimate->estimateUs, roofline.roofline, dtype);
                }
                if (point.estimate && point.estimate->estimateUs > 0)
                    point.measuredOverEstimate = point.timeUs / point.estimate->estimateUs;
                minX = anyPoint ? std::min(minX, value) : value;
                maxX = anyPoint ? std::max(maxX, value) : value;
                anyPoint = true;
                line.points.push_back(std::move(point));
                sweepPoints.push_back({value, trace.runs[r].gpu->timing->medianUs, run.plan});
            }
            if (line.points.empty()) continue;
            line.changes = planChanges(sweepPoints, family);
            line.cliffs = findCliffs(sweepPoints, family, options.cliffThreshold);
            series.lines.push_back(std::move(line));
        }
    }
    if (duplicates > 0)
        series.notes.push_back(std::to_string(duplicates) + " cells measured twice at one " + series.xLabel +
                               " (another dtype?): the first kept");
    series.logX = anyPoint && minX > 0 && static_cast<double>(maxX) / static_cast<double>(minX) >= kLogAxisSpan;
    return series;
}

std::string cliffHeadline(const Cliff& cliff) {
    if (!cliff.explained) return "unexplained";
    std::vector<std::string> clauses;
    for (std::size_t start = 0; start <= cliff.explanation.size();) {
        const std::size_t end = std::min(cliff.explanation.find("; ", start), cliff.explanation.size());
        clauses.push_back(cliff.explanation.substr(start, end - start));
        start = end + 2;
    }
    // Most specific first: a bucket cell or tile names the planner's choice; a kernel name only follows from it.
    for (std::string_view kind : {"bucket cell", "tile", "split-K", "num_splits", "waves", "kernel"})
        for (const std::string& clause : clauses)
            if (clause.rfind(kind, 0) == 0) return clause + (clauses.size() > 1 ? " \u2026" : "");
    return clauses.front() + (clauses.size() > 1 ? " \u2026" : "");
}

std::optional<double> metricValue(const PerformancePoint& point, PerformanceMetric metric) {
    switch (metric) {
        case PerformanceMetric::Time: return point.timeUs;
        case PerformanceMetric::Tflops: return point.achieved.tflops;
        case PerformanceMetric::Gbps: return point.achieved.gbps;
        case PerformanceMetric::PctOfRoofline: return point.achieved.pctOfRoofline;
    }
    return std::nullopt;
}

std::optional<double> estimateMetricValue(const PerformancePoint& point, PerformanceMetric metric) {
    if (!point.estimate || !point.estimateFigures) return std::nullopt;
    switch (metric) {
        case PerformanceMetric::Time: return point.estimate->estimateUs;
        case PerformanceMetric::Tflops: return point.estimateFigures->tflops;
        case PerformanceMetric::Gbps: return point.estimateFigures->gbps;
        case PerformanceMetric::PctOfRoofline: return point.estimateFigures->pctOfRoofline;
    }
    return std::nullopt;
}

}  // namespace tilescope

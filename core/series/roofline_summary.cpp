#include "core/series/roofline_summary.h"

#include <cstdio>
#include <map>

#include "core/series/performance_series.h"

namespace tilescope {

namespace {
std::string number(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string runLabel(const Run& run) {
    return std::string(run.plan.family) + " / " + std::string(run.plan.variant) + " " + formatShape(run.plan.shape, run.parameters);
}

// Each sweep's lines with their cliffs, on the runs' own GPUs (no estimate device).
std::vector<PerformanceSeries> allSeries(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                         const std::vector<Calibration>& calibrations) {
    PerformanceOptions options;
    options.calibrations = calibrations;
    std::vector<PerformanceSeries> series;
    for (const MeasuredSweep& sweep : findMeasuredSweeps(trace))
        series.push_back(performanceSeries(trace, sweep, registry, database, options));
    return series;
}
}  // namespace

std::string rooflineFiguresText(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                const std::vector<Calibration>& calibrations) {
    const auto figures = runFigures(trace, registry, database, calibrations);
    std::string text;
    std::map<std::string, std::string> rooflines;  // GPU -> its roofline, listed once each
    for (std::size_t i = 0; i < figures.size(); ++i) {
        if (!figures[i]) continue;
        const Run& run = trace.runs[i];
        const std::string gpu = runDeviceName(run);
        text += "  " + runLabel(run) + " on " + gpu + ": " + number(figures[i]->achieved.timeUs, 2) + " us, " +
                formatAchieved(figures[i]->achieved) + "\n";
        if (!rooflines.count(gpu)) {
            const RooflineChoice choice = rooflineForGpu(gpu, trace, database, calibrations);
            rooflines[gpu] =
                choice.label == "unknown" ? "unknown (no calibration or datasheet figures for this GPU)" : formatRoofline(choice.roofline);
        }
    }
    if (text.empty()) return {};
    text = "achieved (measured runs: median time against the plan's bytes and FLOPs):\n" + text + "rooflines:\n";
    for (const auto& [gpu, roofline] : rooflines) text += "  " + gpu + ": " + roofline + "\n";
    return text;
}

nlohmann::ordered_json rooflineFiguresToJson(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                             const std::vector<Calibration>& calibrations) {
    const auto figures = runFigures(trace, registry, database, calibrations);
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        if (!figures[i]) continue;
        const Run& run = trace.runs[i];
        const std::string gpu = runDeviceName(run);
        runs.push_back({{"run", i},
                        {"kernel", run.plan.family},
                        {"variant", run.plan.variant},
                        {"shape", formatShape(run.plan.shape, run.parameters)},
                        {"gpu", gpu},
                        {"achieved", achievedToJson(figures[i]->achieved)},
                        {"roofline_label", figures[i]->rooflineLabel},
                        {"roofline", rooflineToJson(rooflineForGpu(gpu, trace, database, calibrations).roofline)}});
    }
    return runs;
}

std::string cliffsText(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                       const std::vector<Calibration>& calibrations) {
    std::string text = "cliffs (measured steps of more than 25 % between neighbouring cells):\n";
    const auto series = allSeries(trace, registry, database, calibrations);
    if (series.empty()) return text + "  no measured sweep (3 or more runs that differ in one parameter)\n";
    for (const auto& s : series) {
        for (const auto& line : s.lines) {
            text += "  " + s.sweep.family + " / " + s.sweep.variant + " along " + s.xLabel;
            if (!s.sweep.fixed.empty()) {
                std::string fixed;
                for (const auto& f : s.sweep.fixed) fixed += (fixed.empty() ? "" : ", ") + f;
                text += " (" + fixed + ")";
            }
            text += " on " + line.label + ", " + std::to_string(line.points.size()) + " cells: " +
                    (line.cliffs.empty() ? std::string("no cliff")
                                         : std::to_string(line.cliffs.size()) + (line.cliffs.size() == 1 ? " cliff" : " cliffs")) +
                    "\n";
            for (const auto& cliff : line.cliffs) {
                const auto& a = line.points[cliff.before];
                const auto& b = line.points[cliff.after];
                text += "    " + s.xLabel + " " + std::to_string(a.x) + " -> " + std::to_string(b.x) + ": " + number(a.timeUs, 2) + " -> " +
                        number(b.timeUs, 2) + " us (x" + number(cliff.ratio, 2) + "): " + cliff.explanation + "\n";
            }
        }
    }
    return text;
}

nlohmann::ordered_json cliffsToJson(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                    const std::vector<Calibration>& calibrations) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& s : allSeries(trace, registry, database, calibrations)) {
        for (const auto& line : s.lines) {
            nlohmann::ordered_json cliffs = nlohmann::ordered_json::array();
            for (const auto& cliff : line.cliffs)
                cliffs.push_back({{"from", line.points[cliff.before].x},
                                  {"to", line.points[cliff.after].x},
                                  {"from_us", line.points[cliff.before].timeUs},
                                  {"to_us", line.points[cliff.after].timeUs},
                                  {"ratio", cliff.ratio},
                                  {"explained", cliff.explained},
                                  {"explanation", cliff.explanation}});
            nlohmann::ordered_json changes = nlohmann::ordered_json::array();
            for (const auto& change : line.changes) changes.push_back({{"at", line.points[change.index].x}, {"what", change.what}});
            out.push_back({{"kernel", s.sweep.family},
                           {"variant", s.sweep.variant},
                           {"parameter", s.xLabel},
                           {"fixed", s.sweep.fixed},
                           {"line", line.label},
                           {"cells", line.points.size()},
                           {"cliffs", cliffs},
                           {"plan_changes", changes}});
        }
    }
    return out;
}

}  // namespace tilescope

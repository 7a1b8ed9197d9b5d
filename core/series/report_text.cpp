#include "core/series/report_text.h"

#include <map>

#include "core/series/performance_series.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "core/model/launch_checks.h"
#include "core/series/launch_usage.h"
#include "core/trace/record_flags.h"
#include "core/model/text_format.h"
#include "core/trace/trace_summary.h"

namespace tilescope {

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string base64Encode(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63U];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63U];
        out += kAlphabet[(v >> 12) & 63U];
        out += rest == 2 ? kAlphabet[(v >> 6) & 63U] : '=';
        out += '=';
    }
    return out;
}

namespace {

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string dims(const Dim3& d) { return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")"; }

std::string failureOf(const Run& run) {
    if (!run.gpu) return {};
    if (!run.gpu->launch.ok()) return run.gpu->launch.errorName + ": " + run.gpu->launch.errorText;
    if (!run.gpu->synchronize.ok()) return run.gpu->synchronize.errorName + ": " + run.gpu->synchronize.errorText;
    if (run.gpu->check && !run.gpu->check->passed) return "output check failed";
    return {};
}

// A report section as rows of cells, written as HTML or Markdown.
struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<int> widthsPct;  // per column, 0 = as wide as it needs; empty: all automatic
    int nameColumn = -1;         // kernel names: monospace, in the widest column
};

struct Section {
    std::string title;
    std::vector<std::string> paragraphs;  // plain text
    std::vector<std::string> bullets;
    Table table;
    std::vector<std::string> footnotes;  // "[n] full kernel name" for elided cells
    std::vector<ReportPlot> figures;     // after the table, captioned by their title
};

// The middle of a very long name elided, its compact form (compactKernelName) kept as the section's next footnote.
std::string nameCell(const std::string& name, std::vector<std::string>& footnotes) {
    if (name.size() <= kReportMaxNameChars) return name;
    constexpr std::size_t kHead = 110, kTail = 50;
    const std::string compact = compactKernelName(name);
    footnotes.push_back("[" + std::to_string(footnotes.size() + 1) + "] " + compact +
                        (compact == name ? "" : " (" + withThousands(static_cast<std::int64_t>(name.size())) + " characters in full)"));
    return name.substr(0, kHead) + " \u2026 " + name.substr(name.size() - kTail) + " [" + std::to_string(footnotes.size()) + "]";
}

std::string deviceText(const DeviceSpec& d) { return d.id + " \u2014 " + d.name + ", " + d.archName(); }

std::string verdictText(const LaunchPlan& p) {
    if (p.ok()) return "ok";
    return std::string(verdictName(p.verdict)) + (p.message.empty() ? "" : ": " + p.message);
}

// One column of the explorer's table: what the plan says on one device.
std::vector<std::string> planColumn(const LaunchPlan& p, const DeviceSpec& device) {
    const bool launched = p.verdict >= Verdict::InvalidLaunch;
    std::string occupancy = "occupancy unknown";
    if (p.occupancy)
        occupancy = fixed(p.occupancy->occupancyPct, 1) + " % (" + std::to_string(p.occupancy->activeBlocksPerSm) + " blocks per SM), " +
                    fixed(p.occupancy->waves, 2) + " waves";
    else if (p.ok()) occupancy = "occupancy unknown (needs the register count)";
    return {
        deviceText(device),
        verdictText(p),
        p.limit ? describeLimit(*p.limit) : "\u2014",
        p.cudaError ? describeCudaError(p, device.cudaRuntime) : "\u2014",
        p.fix.empty() ? (p.ok() ? "\u2014" : "(none found)") : p.fix,
        launched ? "grid " + dims(p.grid) + " = " + withThousands(p.grid.volume()) + " blocks of " + dims(p.block) + " = " +
                       withThousands(p.threadsPerBlock()) + " threads"
                 : "\u2014",
        launched
            ? withThousands(p.totalSmem()) + " B (static " + withThousands(p.staticSmem) + ", dynamic " + withThousands(p.dynamicSmem) + ")"
            : "\u2014",
        launched ? (p.registers ? std::to_string(*p.registers) + " registers per thread; " : "registers unknown; ") + occupancy : "\u2014",
        p.tile.empty() ? "\u2014" : std::string(p.tile),
        p.note.empty() ? "\u2014" : p.note};
}

std::vector<Section> explorerSections(const ReportExplorer& e) {
    std::vector<Section> sections;
    const LaunchPlan& p = e.plan;
    Section current{"Current shape: " + std::string(p.family) + " / " + std::string(p.variant), {}, {}, {}, {}, {}};
    current.bullets.push_back("kernel: " + std::string(p.family) + " / " + std::string(p.variant) +
                              (p.kernelSymbol.empty() ? "" : " (" + std::string(p.kernelSymbol) + ")"));
    current.bullets.push_back("shape: " + formatShape(p.shape, e.parameters));
    const bool compare = e.compareDevice && e.comparePlan;
    current.table.header = {"", "device"};
    if (compare) current.table.header.push_back("compare device");
    static const std::vector<std::string> kRows{
        "device", "verdict", "limit", "CUDA error", "fix", "launch", "shared memory", "registers, occupancy", "tile", "note"};
    const auto first = planColumn(p, e.device);
    const auto second = compare ? planColumn(*e.comparePlan, *e.compareDevice) : std::vector<std::string>{};
    for (std::size_t i = 0; i < kRows.size(); ++i) {
        if (first[i] == "\u2014" && (!compare || second[i] == "\u2014")) continue;  // nothing to say on either device
        std::vector<std::string> row{kRows[i], first[i]};
        if (compare) row.push_back(second[i]);
        current.table.rows.push_back(std::move(row));
    }
    current.table.widthsPct = compare ? std::vector<int>{14, 43, 43} : std::vector<int>{14, 86};
    sections.push_back(std::move(current));
    if (e.map) {
        ReportPlot plot = *e.map;  // the legend goes into the caption, under the map
        if (!e.mapLegend.empty()) plot.title += ". " + e.mapLegend;
        sections.push_back({"Boundary map", {}, {}, {}, {}, {std::move(plot)}});
    }
    return sections;
}

// Measured runs' achieved figures against their GPU's roofline, and the cliffs of measured sweeps.
std::optional<Section> rooflineSection(const Trace& trace, const KernelRegistry& kernels, const std::vector<Calibration>& calibrations) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    const auto figures = runFigures(trace, kernels, database, calibrations);
    Section section{
        "Roofline", {},
        {},         {{"kernel", "variant", "shape", "GPU", "time (us)", "GB/s", "TFLOP/s", "% of roofline", "roofline"}, {}, {}, -1},
        {},         {}};
    std::map<std::string, std::string> rooflines;
    auto orUnknown = [](const std::optional<double>& v, int digits) { return v ? fixed(*v, digits) : std::string("unknown"); };
    for (std::size_t i = 0; i < figures.size(); ++i) {
        if (!figures[i]) continue;
        const Run& run = trace.runs[i];
        const AchievedFigures& a = figures[i]->achieved;
        const std::string gpu = runDeviceName(run);
        section.table.rows.push_back({std::string(run.plan.family), std::string(run.plan.variant),
                                      formatShape(run.plan.shape, run.parameters), gpu, fixed(a.timeUs, 2), orUnknown(a.gbps, 1),
                                      orUnknown(a.tflops, 2), orUnknown(a.pctOfRoofline, 1), figures[i]->rooflineLabel});
        if (!rooflines.count(gpu)) {
            const RooflineChoice choice = rooflineForGpu(gpu, trace, database, calibrations);
            rooflines[gpu] = choice.label == "unknown" ? "unknown" : formatRoofline(choice.roofline);
        }
    }
    if (section.table.rows.empty()) return std::nullopt;
    section.paragraphs.push_back(
        "What each measured run achieved: the plan's bytes and FLOPs over the median measured time, and the "
        "roofline bound (the larger of bytes over bandwidth and FLOPs over the tensor peak) as a % of that "
        "time. The roofline is measured where the GPU was calibrated, else the datasheet's:");
    for (const auto& [gpu, roofline] : rooflines) section.bullets.push_back(gpu + ": " + roofline);
    PerformanceOptions options;
    options.calibrations = calibrations;
    for (const MeasuredSweep& sweep : findMeasuredSweeps(trace)) {  // no estimate device: nothing is re-planned
        const PerformanceSeries series = performanceSeries(trace, sweep, kernels, database, options);
        for (const auto& line : series.lines)
            for (const auto& cliff : line.cliffs) {
                const auto& a = line.points[cliff.before];
                const auto& b = line.points[cliff.after];
                section.bullets.push_back("cliff in " + sweep.family + " / " + sweep.variant + " on " + line.label + ": " + series.xLabel +
                                          " " + std::to_string(a.x) + " -> " + std::to_string(b.x) + ", " + fixed(a.timeUs, 2) + " -> " +
                                          fixed(b.timeUs, 2) + " us (x" + fixed(cliff.ratio, 2) + "): " + cliff.explanation);
            }
    }
    return section;
}

std::vector<Section> traceSections(const Trace& trace, const std::vector<ReportPlot>& plots, const KernelRegistry& kernels,
                                   const std::vector<Calibration>& calibrations) {
    std::vector<Section> sections;
    const auto flags = flagRecords(trace, trace.records);

    Section summary{"Trace summary", {}, {}, {}, {}, {}};
    std::size_t measured = 0, failedPlans = 0, failedRuns = 0, flagged = 0;
    for (const auto& run : trace.runs) {
        measured += run.kind == RunKind::Measured;
        failedPlans += !run.plan.ok();
        failedRuns += !failureOf(run).empty();
    }
    for (const auto& f : flags) flagged += f.flagged();
    summary.bullets.push_back("source: " + (trace.source.empty() ? std::string("(not recorded)") : trace.source));
    std::string tool = "tool: tilescope " + trace.build.toolVersion + " (" + trace.build.gitRevision + ")";
    if (trace.build.cudaVersion) tool += ", CUDA " + *trace.build.cudaVersion;
    if (trace.build.driverVersion) tool += ", driver " + *trace.build.driverVersion;
    summary.bullets.push_back(tool);
    summary.bullets.push_back(std::to_string(trace.runs.size()) + " runs (" + std::to_string(measured) + " measured on a GPU, " +
                              std::to_string(trace.runs.size() - measured) + " predicted by the model); " + std::to_string(failedPlans) +
                              " plans fail, " + std::to_string(failedRuns) + " GPU runs failed");
    summary.bullets.push_back(std::to_string(trace.records.size()) + " recorded kernels; " + std::to_string(flagged) +
                              " break a launch limit or carry a wrong profiler occupancy");
    std::string deviceIds;
    for (const auto& d : trace.devices) deviceIds += (deviceIds.empty() ? "" : ", ") + d.id;
    summary.bullets.push_back("devices: " + (deviceIds.empty() ? std::string("none whose limits are known") : deviceIds) +
                              " (their limits in the last table)");
    // Notes here, not at the end, so a few lines never stand alone on a last page.
    for (const auto& note : trace.notes) summary.bullets.push_back("note: " + note);
    sections.push_back(std::move(summary));

    Section failures{
        "Failures", {},
        {},         {{"kernel", "variant", "shape", "device", "verdict / error", "message", "fix"}, {}, {10, 8, 12, 9, 13, 25, 23}, -1},
        {},         {}};
    for (const auto& run : trace.runs) {
        const std::string gpuFailure = failureOf(run);
        if (run.plan.ok() && gpuFailure.empty()) continue;
        failures.table.rows.push_back({std::string(run.plan.family), std::string(run.plan.variant),
                                       formatShape(run.plan.shape, run.parameters), run.plan.deviceId,
                                       gpuFailure.empty() ? std::string(verdictName(run.plan.verdict)) : gpuFailure,
                                       run.plan.message.empty() ? std::string("(the model predicted no failure)") : run.plan.message,
                                       run.plan.fix.empty() ? std::string("(none found)") : run.plan.fix});
    }
    failures.paragraphs.push_back(failures.table.rows.empty() ? "No run failed."
                                                              : "Runs whose plan or GPU run failed, with the model's message and fix.");
    if (!trace.runs.empty()) sections.push_back(std::move(failures));

    if (!plots.empty()) sections.push_back({"Plots", {}, {}, {}, {}, plots});

    if (!trace.records.empty()) {
        Section marked{"Flagged kernel launches",
                       {},
                       {},
                       {{"kernel", "device", "grid", "block", "registers", "smem (B)", "problem"}, {}, {40, 6, 10, 10, 6, 7, 21}, 0},
                       {},
                       {}};
        std::size_t count = 0;
        std::map<std::tuple<std::string, int, std::int64_t, std::int64_t>, bool> seen;  // one row per configuration
        for (std::size_t i = 0; i < trace.records.size(); ++i) {
            const auto& r = trace.records[i];
            const auto& f = flags[i];
            if (!f.flagged()) continue;
            if (!seen.emplace(std::tuple{r.name, r.device, r.grid.volume(), r.sharedMemory.value_or(-1)}, true).second) continue;
            if (++count > kReportMaxFlagged) break;
            std::string problem = f.violation;
            if (f.occupancyCorrected)
                problem += (problem.empty() ? "" : "; ") + std::string("profiler occupancy ") + fixed(*r.kinetoOccupancyPct, 1) +
                           " %, cuda_occupancy.h " + fixed(*f.estAchievedOccupancyPct, 1) + " % (theoretical " +
                           fixed(f.occupancyPct.value_or(0.0), 1) + " %)";
            std::string smem = "unknown";
            if (r.sharedMemory) smem = std::to_string(*r.sharedMemory);
            else if (r.staticSmem || r.dynamicSmem) smem = std::to_string(r.staticSmem.value_or(0) + r.dynamicSmem.value_or(0));
            marked.table.rows.push_back({nameCell(r.name, marked.footnotes), std::to_string(r.device), dims(r.grid), dims(r.block),
                                         r.registersPerThread ? std::to_string(*r.registersPerThread) : "unknown", smem, problem});
        }
        std::size_t flaggedLaunches = 0;
        for (const auto& f : flags) flaggedLaunches += f.flagged();
        if (marked.table.rows.empty())
            marked.paragraphs.push_back("No recorded launch breaks a limit or carries a wrong occupancy figure.");
        else
            marked.paragraphs.push_back(std::to_string(flaggedLaunches) +
                                        " flagged launches, one row per kernel and launch configuration. "
                                        "\"profiler occupancy\" is the trace's est. achieved occupancy; cuda_occupancy.h's figure "
                                        "uses the opt-in shared-memory limit the kernel must have used to launch.");
        sections.push_back(std::move(marked));

        // The longest-running kernels, by name.
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> byName;  // name -> count, total ns
        for (const auto& r : trace.records) {
            auto& [n, ns] = byName[r.name];
            ++n;
            ns += r.durationNs();
        }
        std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> sorted(byName.begin(), byName.end());
        std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
        Section top{"Kernels by total time", {}, {}, {{"kernel", "count", "total (us)", "mean (us)"}, {}, {76, 6, 9, 9}, 0}, {}, {}};
        top.paragraphs.push_back(sorted.size() > kReportMaxConfigurations
                                     ? "The " + std::to_string(kReportMaxConfigurations) + " longest of " + std::to_string(sorted.size()) +
                                           " kernels, by name."
                                     : std::to_string(sorted.size()) + " kernels by name, the longest total first.");
        for (std::size_t i = 0; i < sorted.size() && i < kReportMaxConfigurations; ++i) {
            const auto& [name, figures] = sorted[i];
            top.table.rows.push_back({nameCell(name, top.footnotes), std::to_string(figures.first),
                                      fixed(static_cast<double>(figures.second) / 1000.0, 3),
                                      fixed(static_cast<double>(figures.second) / 1000.0 / static_cast<double>(figures.first), 3)});
        }
        sections.push_back(std::move(top));
    }

    if (!trace.runs.empty()) {
        Section runs{"Runs",
                     {"Each run's plan; a measured run's duration is its median time, \u201c\u2014, failed\u201d when the GPU run failed."},
                     {},
                     {{"kind", "kernel", "variant", "shape", "device", "verdict", "grid", "block", "smem (B)", "registers", "occupancy %",
                       "duration (us)"},
                      {},
                      {},
                      -1},
                     {},
                     {}};
        for (const auto& run : trace.runs) {
            const LaunchPlan& p = run.plan;
            runs.table.rows.push_back({std::string(runKindName(run.kind)), std::string(p.family), std::string(p.variant),
                                       formatShape(p.shape, run.parameters), p.deviceId, std::string(verdictName(p.verdict)), dims(p.grid),
                                       dims(p.block), std::to_string(p.totalSmem()), p.registers ? std::to_string(*p.registers) : "unknown",
                                       p.occupancy ? fixed(p.occupancy->occupancyPct, 1) : "unknown", runDurationText(run)});
        }
        sections.push_back(std::move(runs));
    }
    if (auto roofline = rooflineSection(trace, kernels, calibrations)) sections.push_back(std::move(*roofline));

    Section devices{"Devices",
                    {},
                    {},
                    {{"id", "name", "cc", "SMs", "threads/block", "regs/SM", "smem/block (B)", "smem/block opt-in (B)", "smem/SM (B)",
                      "blocks/SM", "threads/SM", "memory (MiB)", "source"},
                     {},
                     {6, 12, 4, 4, 6, 6, 7, 7, 7, 5, 6, 6, 24},
                     -1},
                    {},
                    {}};
    for (const auto& d : trace.devices)
        devices.table.rows.push_back({d.id, d.name, d.computeCapability.toString(), std::to_string(d.smCount),
                                      std::to_string(d.maxThreadsPerBlock), std::to_string(d.regsPerSm), std::to_string(d.smemPerBlock),
                                      std::to_string(d.smemPerBlockOptin), std::to_string(d.smemPerSm), std::to_string(d.maxBlocksPerSm),
                                      std::to_string(d.maxThreadsPerSm), std::to_string(d.memoryBytes >> 20), d.source});
    devices.paragraphs.push_back(trace.devices.empty() ? "The trace names no device whose limits are known."
                                                       : "The limits the checks above used, per device the trace names.");
    sections.push_back(std::move(devices));
    return sections;
}

bool traceIsEmpty(const Trace* trace) { return !trace || (trace->runs.empty() && trace->records.empty() && trace->sweeps.empty()); }

std::vector<Section> sectionsOf(const ReportContent& content, const KernelRegistry& kernels, const std::vector<Calibration>& calibrations) {
    std::vector<Section> sections;
    if (content.explorer) sections = explorerSections(*content.explorer);
    if (!traceIsEmpty(content.trace)) {
        auto traceParts = traceSections(*content.trace, content.tracePlots, kernels, calibrations);
        sections.insert(sections.end(), std::make_move_iterator(traceParts.begin()), std::make_move_iterator(traceParts.end()));
    }
    return sections;
}

// Tables fill the width so that the percentages above hold; headers repeat on each PDF page
// (<thead>); a name column is monospace. QTextDocument (the PDF) reads the same markup.
constexpr std::string_view kStyle =
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
    "h1{margin-bottom:0.2em}p.subtitle{color:#555;margin-top:0}"
    "table{border-collapse:collapse;margin:0.5em 0 1.2em;font-size:90%}"
    "th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#eee}td{word-break:break-word}td.name{font-family:monospace;font-size:90%}"
    "p.footnote{font-family:monospace;font-size:80%;color:#444;margin:0}"
    "figure{margin:1em 0}img{max-width:100%;border:1px solid #ccc}";

std::string markdownCell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += ' ';
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else out += c;
    }
    return out;
}

}  // namespace

std::string compactKernelName(std::string_view name) {
    if (name.size() <= kReportMaxFootnoteChars) return std::string(name);
    static constexpr std::string_view kAnonymous = "(anonymous namespace)";  // a name, not a bracket
    static constexpr std::string_view kEllipsis = "\u2026";
    std::string out;
    std::vector<char> open;  // the brackets open at this point
    bool balanced = true;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '(' && name.substr(i, kAnonymous.size()) == kAnonymous) {
            if (open.size() < 2) out += kAnonymous;
            i += kAnonymous.size() - 1;
            continue;
        }
        if (c == '<' || c == '(') {
            if (open.size() < 2) out += c;
            const char close = c == '<' ? '>' : ')';
            if (open.size() == 1 && (i + 1 >= name.size() || name[i + 1] != close)) out += kEllipsis;  // "lambda()" stays
            open.push_back(c);
            continue;
        }
        if (c == '>' || c == ')') {
            if (open.empty() || open.back() != (c == '>' ? '<' : '(')) {
                balanced = false;  // "operator<" or a truncated name: no nesting to trust
                break;
            }
            open.pop_back();
            if (open.size() < 2) out += c;
            continue;
        }
        if (open.size() < 2) out += c;
    }
    if (!balanced || !open.empty()) out = std::string(name);
    if (out.size() <= kReportMaxFootnoteChars) return out;
    // Still long (many first-level arguments): its head and tail, on character boundaries of UTF-8.
    const std::size_t head = kReportMaxFootnoteChars * 2 / 3, tail = kReportMaxFootnoteChars / 3 - 8;
    std::size_t headEnd = head, tailStart = out.size() - tail;
    while (headEnd > 0 && (static_cast<unsigned char>(out[headEnd]) & 0xC0) == 0x80) --headEnd;
    while (tailStart < out.size() && (static_cast<unsigned char>(out[tailStart]) & 0xC0) == 0x80) ++tailStart;
    return out.substr(0, headEnd) + " " + std::string(kEllipsis) + " " + out.substr(tailStart);
}

std::string runDurationText(const Run& run) {
    if (!run.gpu) return "predicted";
    if (!failureOf(run).empty() && (!run.gpu->launch.ok() || !run.gpu->synchronize.ok())) return "\u2014, failed";
    std::optional<double> us;
    if (run.gpu->timing && run.gpu->timing->repeats > 0) {
        us = run.gpu->timing->medianUs;
    } else if (!run.gpu->records.empty()) {
        std::int64_t ns = 0;
        for (const auto& r : run.gpu->records) ns += r.durationNs();
        us = static_cast<double>(ns) / 1000.0;
    }
    if (!us) return failureOf(run).empty() ? "\u2014" : "\u2014, failed";
    return fixed(*us, 3) + (failureOf(run).empty() ? "" : ", " + failureOf(run));
}

std::string reportBaseName(std::string_view traceFileName, std::string_view family, std::string_view variant, std::string_view shapeText) {
    std::string base(traceFileName);
    if (const auto slash = base.find_last_of("/\\"); slash != std::string::npos) base.erase(0, slash + 1);
    for (std::string_view ending : {".gz", ".json", ".tilescope"})
        if (base.size() > ending.size() && base.compare(base.size() - ending.size(), ending.size(), ending) == 0)
            base.resize(base.size() - ending.size());
    if (base.empty() || base == "untitled") {
        base = std::string(family);
        if (!variant.empty()) base += "-" + std::string(variant);
        if (!shapeText.empty()) base += "-" + std::string(shapeText);
        if (base.empty()) base = "tilescope";
    }
    std::string out;
    for (char c : base) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (keep) out += c;
        else if (c == ',' || c == ' ' || c == '/') out += '-';
        // '=' and the rest drop out: "M=1,N=4096" -> "M1-N4096"
    }
    return out + "-report";
}

std::string reportHtml(const ReportContent& content, const KernelRegistry& kernels, const std::vector<Calibration>& calibrations) {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << htmlEscape(content.title)
        << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << htmlEscape(content.title) << "</h1>\n";
    if (!content.subtitle.empty()) out << "<p class=\"subtitle\">" << htmlEscape(content.subtitle) << "</p>\n";
    for (const Section& s : sectionsOf(content, kernels, calibrations)) {
        out << "<h2>" << htmlEscape(s.title) << "</h2>\n";
        for (const auto& p : s.paragraphs) out << "<p>" << htmlEscape(p) << "</p>\n";
        if (!s.bullets.empty()) {
            out << "<ul>\n";
            for (const auto& b : s.bullets) out << "<li>" << htmlEscape(b) << "</li>\n";
            out << "</ul>\n";
        }
        const Table& t = s.table;
        if (!t.header.empty() && !t.rows.empty()) {
            out << "<table width=\"100%\">\n<thead><tr>";
            for (std::size_t c = 0; c < t.header.size(); ++c) {
                out << "<th";
                if (c < t.widthsPct.size() && t.widthsPct[c] > 0) out << " width=\"" << t.widthsPct[c] << "%\"";
                out << '>' << htmlEscape(t.header[c]) << "</th>";
            }
            out << "</tr></thead>\n";
            for (const auto& row : t.rows) {
                out << "<tr>";
                for (std::size_t c = 0; c < row.size(); ++c)
                    out << (static_cast<int>(c) == t.nameColumn ? "<td class=\"name\">" : "<td>") << htmlEscape(row[c]) << "</td>";
                out << "</tr>\n";
            }
            out << "</table>\n";
        }
        for (const auto& f : s.footnotes) out << "<p class=\"footnote\">" << htmlEscape(f) << "</p>\n";
        for (const auto& plot : s.figures)
            out << "<figure id=\"" << htmlEscape(plot.fileName) << "\"><img alt=\"" << htmlEscape(plot.title)
                << "\" src=\"data:image/png;base64," << base64Encode(plot.png) << "\"><figcaption>" << htmlEscape(plot.title)
                << "</figcaption></figure>\n";
    }
    out << "</body>\n</html>\n";
    return out.str();
}

std::string reportMarkdown(const ReportContent& content, const KernelRegistry& kernels, std::string_view plotFolder,
                           const std::vector<Calibration>& calibrations) {
    std::ostringstream out;
    out << "# " << markdownCell(content.title) << "\n\n";
    if (!content.subtitle.empty()) out << markdownCell(content.subtitle) << "\n\n";
    for (const Section& s : sectionsOf(content, kernels, calibrations)) {
        out << "## " << markdownCell(s.title) << "\n\n";
        for (const auto& p : s.paragraphs) out << markdownCell(p) << "\n\n";
        for (const auto& b : s.bullets) out << "- " << markdownCell(b) << '\n';
        if (!s.bullets.empty()) out << '\n';
        if (!s.table.header.empty() && !s.table.rows.empty()) {
            out << '|';
            for (const auto& h : s.table.header) out << ' ' << markdownCell(h) << " |";
            out << "\n|";
            for (std::size_t c = 0; c < s.table.header.size(); ++c) out << "---|";
            out << '\n';
            for (const auto& row : s.table.rows) {
                out << '|';
                for (const auto& cell : row) out << ' ' << markdownCell(cell) << " |";
                out << '\n';
            }
            out << '\n';
        }
        for (const auto& f : s.footnotes) out << markdownCell(f) << "\n\n";
        for (const auto& plot : s.figures) out << "![" << markdownCell(plot.title) << "](" << plotFolder << '/' << plot.fileName << ")\n\n";
    }
    return out.str();
}

std::string reportHtml(const Trace& trace, const KernelRegistry& kernels, const std::vector<ReportPlot>& plots, std::string_view title) {
    return reportHtml(ReportContent{std::string(title), {}, &trace, plots, std::nullopt}, kernels);
}

std::string reportMarkdown(const Trace& trace, const KernelRegistry& kernels, const std::vector<ReportPlot>& plots, std::string_view title,
                           std::string_view plotFolder) {
    return reportMarkdown(ReportContent{std::string(title), {}, &trace, plots, std::nullopt}, kernels, plotFolder);
}

}  // namespace tilescope

#include "core/report_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "core/record_flags.h"
#include "core/trace_summary.h"

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
};

struct Section {
    std::string title;
    std::vector<std::string> paragraphs;  // plain text
    std::vector<std::string> bullets;
    Table table;
};

struct FlaggedRecord {
    const KernelRecord* record;
    RecordFlags flags;
};

std::vector<Section> sectionsOf(const Trace& trace) {
    std::vector<Section> sections;
    const auto flags = flagRecords(trace, trace.records);

    Section summary{"Summary", {}, {}, {}};
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
                              std::to_string(trace.runs.size() - measured) + " predicted by the model); " +
                              std::to_string(failedPlans) + " plans fail, " + std::to_string(failedRuns) + " GPU runs failed");
    summary.bullets.push_back(std::to_string(trace.records.size()) + " recorded kernels; " + std::to_string(flagged) +
                              " break a launch limit or carry a wrong profiler occupancy");
    sections.push_back(std::move(summary));

    Section devices{"Devices", {}, {}, {{"id", "name", "cc", "SMs", "threads/block", "regs/SM", "smem/block (B)",
                                         "smem/block opt-in (B)", "smem/SM (B)", "blocks/SM", "threads/SM", "memory (MiB)", "source"}, {}}};
    for (const auto& d : trace.devices)
        devices.table.rows.push_back({d.id, d.name, d.computeCapability.toString(), std::to_string(d.smCount),
                                      std::to_string(d.maxThreadsPerBlock), std::to_string(d.regsPerSm), std::to_string(d.smemPerBlock),
                                      std::to_string(d.smemPerBlockOptin), std::to_string(d.smemPerSm), std::to_string(d.maxBlocksPerSm),
                                      std::to_string(d.maxThreadsPerSm), std::to_string(d.memoryBytes >> 20), d.source});
    if (trace.devices.empty()) devices.paragraphs.push_back("The trace names no device whose limits are known.");
    sections.push_back(std::move(devices));

    Section failures{"Failures", {}, {}, {{"kernel", "variant", "shape", "device", "verdict / error", "message", "fix"}, {}}};
    for (const auto& run : trace.runs) {
        const std::string gpuFailure = failureOf(run);
        if (run.plan.ok() && gpuFailure.empty()) continue;
        failures.table.rows.push_back({std::string(run.plan.family), std::string(run.plan.variant), formatShape(run.plan.shape, run.parameters),
                                       run.plan.deviceId, gpuFailure.empty() ? std::string(verdictName(run.plan.verdict)) : gpuFailure,
                                       run.plan.message.empty() ? std::string("(the model predicted no failure)") : run.plan.message,
                                       run.plan.fix.empty() ? std::string("(none found)") : run.plan.fix});
    }
    if (failures.table.rows.empty()) failures.paragraphs.push_back("No run failed.");
    sections.push_back(std::move(failures));

    if (!trace.records.empty()) {
        Section marked{"Flagged kernel launches", {}, {}, {{"kernel", "device", "grid", "block", "registers", "smem (B)", "problem"}, {}}};
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
            marked.table.rows.push_back({r.name, std::to_string(r.device), dims(r.grid), dims(r.block),
                                         r.registersPerThread ? std::to_string(*r.registersPerThread) : "unknown",
                                         smem, problem});
        }
        std::size_t flaggedLaunches = 0;
        for (const auto& f : flags) flaggedLaunches += f.flagged();
        if (marked.table.rows.empty()) marked.paragraphs.push_back("No recorded launch breaks a limit or carries a wrong occupancy figure.");
        else
            marked.paragraphs.push_back(std::to_string(flaggedLaunches) + " flagged launches, one row per kernel and launch configuration. "
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
        Section top{"Kernels by total time", {}, {}, {{"kernel", "count", "total (us)", "mean (us)"}, {}}};
        if (sorted.size() > kReportMaxConfigurations)
            top.paragraphs.push_back("The " + std::to_string(kReportMaxConfigurations) + " longest of " + std::to_string(sorted.size()) + " kernels.");
        for (std::size_t i = 0; i < sorted.size() && i < kReportMaxConfigurations; ++i) {
            const auto& [name, figures] = sorted[i];
            top.table.rows.push_back({name, std::to_string(figures.first), fixed(static_cast<double>(figures.second) / 1000.0, 3),
                                      fixed(static_cast<double>(figures.second) / 1000.0 / static_cast<double>(figures.first), 3)});
        }
        sections.push_back(std::move(top));
    }

    if (!trace.runs.empty()) {
        Section runs{"Runs", {}, {}, {{"kind", "kernel", "variant", "shape", "device", "verdict", "grid", "block", "smem (B)", "registers", "occupancy %"}, {}}};
        for (const auto& run : trace.runs) {
            const LaunchPlan& p = run.plan;
            runs.table.rows.push_back({std::string(runKindName(run.kind)), std::string(p.family), std::string(p.variant),
                                       formatShape(p.shape, run.parameters), p.deviceId, std::string(verdictName(p.verdict)), dims(p.grid),
                                       dims(p.block), std::to_string(p.totalSmem()), p.registers ? std::to_string(*p.registers) : "unknown",
                                       p.occupancy ? fixed(p.occupancy->occupancyPct, 1) : "unknown"});
        }
        sections.push_back(std::move(runs));
    }
    if (!trace.notes.empty()) sections.push_back({"Notes", {}, trace.notes, {}});
    return sections;
}

constexpr std::string_view kStyle =
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:90%}"
    "th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#eee}td{word-break:break-word}figure{margin:1em 0}img{max-width:100%;border:1px solid #ccc}";

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

std::string reportHtml(const Trace& trace, const std::vector<ReportPlot>& plots, std::string_view title) {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << htmlEscape(title) << "</title>\n<style>"
        << kStyle << "</style>\n</head>\n<body>\n<h1>" << htmlEscape(title) << "</h1>\n";
    const auto sections = sectionsOf(trace);
    auto writeSection = [&](const Section& s) {
        out << "<h2>" << htmlEscape(s.title) << "</h2>\n";
        for (const auto& p : s.paragraphs) out << "<p>" << htmlEscape(p) << "</p>\n";
        if (!s.bullets.empty()) {
            out << "<ul>\n";
            for (const auto& b : s.bullets) out << "<li>" << htmlEscape(b) << "</li>\n";
            out << "</ul>\n";
        }
        if (!s.table.header.empty() && !s.table.rows.empty()) {
            out << "<table>\n<tr>";
            for (const auto& h : s.table.header) out << "<th>" << htmlEscape(h) << "</th>";
            out << "</tr>\n";
            for (const auto& row : s.table.rows) {
                out << "<tr>";
                for (const auto& cell : row) out << "<td>" << htmlEscape(cell) << "</td>";
                out << "</tr>\n";
            }
            out << "</table>\n";
        }
    };
    for (std::size_t i = 0; i < sections.size(); ++i) {
        writeSection(sections[i]);
        if (i == 0 && !plots.empty()) {  // plots right after the summary
            out << "<h2>Plots</h2>\n";
            for (const auto& plot : plots)
                out << "<figure id=\"" << htmlEscape(plot.fileName) << "\"><img alt=\"" << htmlEscape(plot.title)
                    << "\" src=\"data:image/png;base64," << base64Encode(plot.png) << "\"><figcaption>" << htmlEscape(plot.title)
                    << "</figcaption></figure>\n";
        }
    }
    out << "</body>\n</html>\n";
    return out.str();
}

std::string reportMarkdown(const Trace& trace, const std::vector<ReportPlot>& plots, std::string_view title, std::string_view plotFolder) {
    std::ostringstream out;
    out << "# " << markdownCell(std::string(title)) << "\n\n";
    const auto sections = sectionsOf(trace);
    for (std::size_t i = 0; i < sections.size(); ++i) {
        const Section& s = sections[i];
        out << "## " << s.title << "\n\n";
        for (const auto& p : s.paragraphs) out << markdownCell(p) << "\n\n";
        for (const auto& b : s.bullets) out << "- " << markdownCell(b) << '\n';
        if (!s.bullets.empty()) out << '\n';
        if (!s.table.header.empty() && !s.table.rows.empty()) {
            out << '|';
            for (const auto& h : s.table.header) out << ' ' << h << " |";
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
        if (i == 0 && !plots.empty()) {
            out << "## Plots\n\n";
            for (const auto& plot : plots)
                out << "![" << markdownCell(plot.title) << "](" << plotFolder << '/' << plot.fileName << ")\n\n";
        }
    }
    return out.str();
}

}  // namespace tilescope

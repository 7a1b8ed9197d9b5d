#include "core/trace/trace_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/trace/chrome_export.h"
#include "core/trace/trace_io.h"

namespace tilescope {

using nlohmann::ordered_json;

std::optional<Occupancy> recordOccupancy(const KernelRecord& r, const DeviceSpec& device) {
    if (!r.registersPerThread || r.block.x <= 0 || r.block.y <= 0 || r.block.z <= 0 ||
        r.block.x * r.block.y > (1 << 20) / std::max<std::int64_t>(1, r.block.z))
        return std::nullopt;
    OccupancyInput input;
    input.threadsPerBlock = static_cast<int>(std::min<std::int64_t>(r.block.volume(), 1 << 30));
    input.registersPerThread = *r.registersPerThread;
    if (r.sharedMemory) {
        input.dynamicSmem = *r.sharedMemory;
    } else if (r.staticSmem || r.dynamicSmem) {
        input.staticSmem = r.staticSmem.value_or(0);
        input.dynamicSmem = r.dynamicSmem.value_or(0);
    } else {
        return std::nullopt;
    }
    input.optIn = r.shmemLimitConfig ? *r.shmemLimitConfig == 1 : input.staticSmem + input.dynamicSmem > device.smemPerBlock;
    input.gridBlocks =
        r.grid.x > 0 && r.grid.y > 0 && r.grid.z > 0 && r.grid.x < (1LL << 31) && r.grid.y < (1LL << 31) && r.grid.z < (1LL << 31)
            ? r.grid.volume()
            : 0;
    Occupancy occupancy;
    if (!computeOccupancy(device, input, occupancy)) return std::nullopt;
    return occupancy;
}

namespace {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string dimText(const Dim3& d) {
    if (d.x <= 0 || d.y <= 0 || d.z <= 0) return "";
    return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string outcomeOf(const Run& run) {
    if (!run.gpu) return "predicted";
    if (!run.gpu->launch.ok()) return run.gpu->launch.errorName;
    if (!run.gpu->synchronize.ok()) return run.gpu->synchronize.errorName;
    if (run.gpu->check && !run.gpu->check->passed) return "check failed";
    return run.gpu->launch.errorName;
}

std::optional<double> durationUs(const Run& run) {
    if (!run.gpu) return std::nullopt;
    if (run.gpu->timing && run.gpu->timing->repeats > 0) return run.gpu->timing->medianUs;
    if (run.gpu->records.empty()) return std::nullopt;
    std::int64_t ns = 0;
    for (const auto& r : run.gpu->records) ns += r.durationNs();
    return static_cast<double>(ns) / 1000.0;
}

std::int64_t smemOf(const KernelRecord& r) {
    return r.sharedMemory ? *r.sharedMemory : r.staticSmem.value_or(0) + r.dynamicSmem.value_or(0);
}

struct RowText {
    std::string kind, kernel, variant, shape, device, verdict, outcome, grid, block, smem, registers, occupancy, duration;
};

std::vector<RowText> rowsOf(const Trace& trace) {
    std::vector<RowText> rows;
    for (const auto& run : trace.runs) {
        const LaunchPlan& p = run.plan;
        const bool launched = p.verdict >= Verdict::InvalidLaunch;
        RowText row{std::string(runKindName(run.kind)),
                    std::string(p.family),
                    std::string(p.variant),
                    formatShape(p.shape, run.parameters),
                    p.deviceId,
                    std::string(verdictName(p.verdict)),
                    outcomeOf(run),
                    launched ? dimText(p.grid) : "",
                    launched ? dimText(p.block) : "",
                    launched ? std::to_string(p.totalSmem()) : "",
                    p.registers ? std::to_string(*p.registers) : "",
                    p.occupancy ? fixed(p.occupancy->occupancyPct, 1) : "",
                    ""};
        if (auto us = durationUs(run)) row.duration = fixed(*us, 3);
        rows.push_back(std::move(row));
        // The kernels the call launches after the main one (split-KV's combine), one row each,
        // named "<variant> / <role>"; the run's duration above covers them all.
        if (!launched) continue;
        for (const ExtraLaunch& e : p.extraLaunches)
            rows.push_back({std::string(runKindName(run.kind)), std::string(p.family), std::string(p.variant) + " / " + std::string(e.role),
                            formatShape(p.shape, run.parameters), p.deviceId, std::string(verdictName(p.verdict)), outcomeOf(run),
                            e.chosenByLibrary() ? std::string(e.library) : dimText(e.grid),
                            e.chosenByLibrary() ? std::string(e.library) : dimText(e.block),
                            e.chosenByLibrary() ? std::string() : std::to_string(e.totalSmem()),
                            e.registers ? std::to_string(*e.registers) : "", e.occupancy ? fixed(e.occupancy->occupancyPct, 1) : "", ""});
    }
    for (const auto& r : trace.records) {
        const DeviceSpec* device = trace.deviceForRecord(r.device);
        std::optional<Occupancy> occupancy = device ? recordOccupancy(r, *device) : std::nullopt;
        const bool hasSmem = r.sharedMemory || r.staticSmem || r.dynamicSmem;
        rows.push_back({"record", r.name, "", "", device ? device->id : "GPU " + std::to_string(r.device), "", "recorded", dimText(r.grid),
                        dimText(r.block), hasSmem ? std::to_string(smemOf(r)) : "",
                        r.registersPerThread ? std::to_string(*r.registersPerThread) : "",
                        occupancy ? fixed(occupancy->occupancyPct, 1) : "", formatMicros(r.durationNs())});
    }
    return rows;
}

std::string markdownCell(std::string text, std::size_t maxChars = 0) {
    if (maxChars > 0 && text.size() > maxChars) text = text.substr(0, maxChars - 3) + "...";
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += ' ';
        else out += c;
    }
    return out;
}

void markdownTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out << '|';
        for (const auto& cell : rows[i]) out << ' ' << cell << " |";
        out << '\n';
        if (i == 0) {
            out << '|';
            for (std::size_t c = 0; c < rows[0].size(); ++c) out << "---|";
            out << '\n';
        }
    }
    out << '\n';
}

// Recorded kernels grouped by name, device and launch configuration, longest total time first.
struct RecordGroup {
    const KernelRecord* first = nullptr;
    std::int64_t count = 0;
    std::int64_t totalNs = 0;
};

std::vector<RecordGroup> groupRecords(const std::vector<KernelRecord>& records) {
    std::map<std::tuple<std::string_view, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int,
                        std::int64_t>,
             RecordGroup>
        groups;
    for (const auto& r : records) {
        auto& g = groups[{r.name, r.device, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z,
                          r.registersPerThread.value_or(-1), smemOf(r)}];
        if (!g.first) g.first = &r;
        ++g.count;
        g.totalNs += r.durationNs();
    }
    std::vector<RecordGroup> out;
    for (auto& [key, g] : groups) out.push_back(g);
    std::stable_sort(out.begin(), out.end(), [](const RecordGroup& a, const RecordGroup& b) { return a.totalNs > b.totalNs; });
    return out;
}

constexpr std::size_t kMarkdownNameChars = 100;  // kernel names run to kilobytes

}  // namespace

std::string traceToCsv(const Trace& trace) {
    std::ostringstream out;
    out << "kind,kernel,variant,shape,device,verdict,outcome,grid,block,smem,registers,occupancy_pct,duration_us\n";
    for (const auto& r : rowsOf(trace)) {
        out << r.kind << ',' << csvField(r.kernel) << ',' << csvField(r.variant) << ',' << csvField(r.shape) << ',' << csvField(r.device)
            << ',' << r.verdict << ',' << csvField(r.outcome) << ',' << r.grid << ',' << r.block << ',' << r.smem << ',' << r.registers
            << ',' << r.occupancy << ',' << r.duration << '\n';
    }
    return out.str();
}

std::string traceToMarkdown(const Trace& trace) {
    std::ostringstream out;
    out << "# Tilescope trace\n\n";
    out << "- source: " << markdownCell(trace.source.empty() ? "(not recorded)" : trace.source) << "\n";
    out << "- tool: tilescope " << trace.build.toolVersion << " (" << trace.build.gitRevision << ")";
    if (trace.build.cudaVersion) out << ", CUDA " << *trace.build.cudaVersion;
    if (trace.build.cuptiVersion) out << ", CUPTI " << *trace.build.cuptiVersion;
    if (trace.build.driverVersion) out << ", driver " << *trace.build.driverVersion;
    out << "\n\n";
    if (!trace.devices.empty()) {
        out << "## Devices\n\n";
        std::vector<std::vector<std::string>> rows{{"id", "name", "cc", "SMs", "smem/block opt-in (B)", "source"}};
        for (const auto& d : trace.devices)
            rows.push_back({markdownCell(d.id), markdownCell(d.name), d.computeCapability.toString(), std::to_string(d.smCount),
                            std::to_string(d.smemPerBlockOptin), markdownCell(d.source)});
        markdownTable(out, rows);
    }
    if (!trace.notes.empty()) {
        out << "## Notes\n\n";
        for (const auto& n : trace.notes) out << "- " << markdownCell(n) << '\n';
        out << '\n';
    }
    const auto rows = rowsOf(trace);
    if (!trace.runs.empty()) {
        out << "## Runs\n\n";
        std::vector<std::vector<std::string>> table{{"kind", "kernel", "variant", "shape", "device", "verdict", "outcome", "grid", "block",
                                                     "smem (B)", "registers", "occupancy %", "duration (us)"}};
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            if (r.kind == "record") break;  // the recorded kernels have their own section
            table.push_back({r.kind, markdownCell(r.kernel), markdownCell(r.variant), markdownCell(r.shape), markdownCell(r.device),
                             r.verdict, markdownCell(r.outcome), r.grid, r.block, r.smem, r.registers, r.occupancy, r.duration});
        }
        markdownTable(out, table);
    }
    if (!trace.sweeps.empty()) {
        out << "## Sweeps\n\n";
        std::vector<std::vector<std::string>> table{{"kernel", "variant", "device", "x", "y", "cells", "verdicts"}};
        for (const auto& map : trace.sweeps) {
            const auto& parameters = map.kernel().family->parameters();
            auto axisText = [&](const SweepAxis& a) {
                return parameters[static_cast<std::size_t>(a.parameter)].name + " " + std::to_string(a.values.front()) + ".." +
                       std::to_string(a.values.back()) + " (" + std::to_string(a.values.size()) + ")";
            };
            std::string verdicts;
            const auto counts = map.verdictCounts();
            for (Verdict v : kAllVerdicts)
                if (counts[static_cast<std::size_t>(v)] > 0)
                    verdicts += (verdicts.empty() ? "" : ", ") + std::string(verdictName(v)) + " " +
                                std::to_string(counts[static_cast<std::size_t>(v)]);
            table.push_back({std::string(map.kernel().family->name()), std::string(map.kernel().variantName()), map.device().id,
                             axisText(map.xAxis()), map.yAxis() ? axisText(*map.yAxis()) : "", std::to_string(map.cellCount()), verdicts});
        }
        markdownTable(out, table);
    }
    if (!trace.records.empty()) {
        out << "## Recorded kernels\n\n";
        out << trace.records.size() << " kernel records, grouped by launch configuration (longest total time first).\n\n";
        std::vector<std::vector<std::string>> table{
            {"kernel", "device", "count", "total (us)", "grid", "block", "smem (B)", "registers", "Kineto occupancy %", "occupancy %"}};
        for (const auto& g : groupRecords(trace.records)) {
            const KernelRecord& r = *g.first;
            const DeviceSpec* device = trace.deviceForRecord(r.device);
            const auto occupancy = device ? recordOccupancy(r, *device) : std::nullopt;
            const bool hasSmem = r.sharedMemory || r.staticSmem || r.dynamicSmem;
            table.push_back({markdownCell(r.name, kMarkdownNameChars), std::to_string(r.device), std::to_string(g.count),
                             formatMicros(g.totalNs), dimText(r.grid), dimText(r.block), hasSmem ? std::to_string(smemOf(r)) : "",
                             r.registersPerThread ? std::to_string(*r.registersPerThread) : "",
                             r.kinetoOccupancyPct ? fixed(*r.kinetoOccupancyPct, 0) : "",
                             occupancy ? fixed(occupancy->occupancyPct, 1) : "unknown"});
        }
        markdownTable(out, table);
    }
    return out.str();
}

ordered_json traceSummaryToJson(const Trace& trace) {
    ordered_json j;
    j["format"] = kTraceFormatName;
    j["version"] = kTraceFormatVersion;
    j["source"] = trace.source;
    j["tool"] = {{"version", trace.build.toolVersion}, {"git_revision", trace.build.gitRevision}};
    ordered_json devices = ordered_json::array();
    for (const auto& d : trace.devices) devices.push_back({{"id", d.id}, {"name", d.name}, {"arch", d.archName()}});
    j["devices"] = devices;
    std::int64_t predicted = 0, measured = 0;
    ordered_json verdicts = ordered_json::object();
    std::map<std::string, std::int64_t> verdictCounts;
    for (const auto& run : trace.runs) {
        (run.kind == RunKind::Measured ? measured : predicted) += 1;
        ++verdictCounts[std::string(verdictName(run.plan.verdict))];
    }
    for (const auto& [name, count] : verdictCounts) verdicts[name] = count;
    j["runs"] = {{"total", trace.runs.size()}, {"predicted", predicted}, {"measured", measured}, {"verdicts", verdicts}};
    ordered_json sweeps = ordered_json::array();
    for (const auto& map : trace.sweeps) {
        const auto& parameters = map.kernel().family->parameters();
        ordered_json counts = ordered_json::object();
        const auto perVerdict = map.verdictCounts();
        for (Verdict v : kAllVerdicts)
            if (perVerdict[static_cast<std::size_t>(v)] > 0) counts[verdictName(v)] = perVerdict[static_cast<std::size_t>(v)];
        sweeps.push_back(
            {{"kernel", map.kernel().family->name()},
             {"variant", map.kernel().variantName()},
             {"device", map.device().id},
             {"x", parameters[static_cast<std::size_t>(map.xAxis().parameter)].name},
             {"y", map.yAxis() ? ordered_json(parameters[static_cast<std::size_t>(map.yAxis()->parameter)].name) : ordered_json(nullptr)},
             {"cells", map.cellCount()},
             {"counts", counts}});
    }
    j["sweeps"] = sweeps;
    std::set<std::pair<int, std::int64_t>> streams;
    std::int64_t totalNs = 0;
    for (const auto& r : trace.records) {
        streams.insert({r.device, r.stream});
        totalNs += r.durationNs();
    }
    ordered_json top = ordered_json::array();
    const auto groups = groupRecords(trace.records);
    for (std::size_t i = 0; i < groups.size() && i < 10; ++i)
        top.push_back({{"name", groups[i].first->name},
                       {"device", groups[i].first->device},
                       {"count", groups[i].count},
                       {"total_ns", groups[i].totalNs}});
    j["records"] = {{"count", trace.records.size()}, {"streams", streams.size()}, {"total_ns", totalNs}, {"top", top}};
    j["notes"] = trace.notes;
    return j;
}

std::string traceSummaryText(const Trace& trace) {
    const ordered_json j = traceSummaryToJson(trace);
    std::ostringstream out;
    out << "source:  " << (trace.source.empty() ? "(not recorded)" : trace.source) << '\n';
    out << "tool:    tilescope " << trace.build.toolVersion << " (" << trace.build.gitRevision << ")\n";
    out << "devices: " << trace.devices.size() << '\n';
    for (const auto& d : trace.devices) out << "  " << d.id << "  " << d.name << " (" << d.archName() << ")\n";
    out << "runs:    " << trace.runs.size() << " (" << j["runs"]["predicted"].get<std::int64_t>() << " predicted, "
        << j["runs"]["measured"].get<std::int64_t>() << " measured)";
    for (const auto& [name, count] : j["runs"]["verdicts"].items()) out << "  " << name << " " << count.get<std::int64_t>();
    out << '\n';
    out << "sweeps:  " << trace.sweeps.size() << '\n';
    for (const auto& s : j["sweeps"])
        out << "  " << s["kernel"].get<std::string>() << " / " << s["variant"].get<std::string>() << " on "
            << s["device"].get<std::string>() << ": " << s["cells"].get<std::int64_t>() << " cells\n";
    out << "records: " << trace.records.size() << " kernels on " << j["records"]["streams"].get<std::size_t>() << " streams, "
        << formatMicros(j["records"]["total_ns"].get<std::int64_t>()) << " us in total\n";
    for (const auto& t : j["records"]["top"]) {
        std::string name = t["name"].get<std::string>();
        if (name.size() > 90) name = name.substr(0, 87) + "...";
        out << "  " << formatMicros(t["total_ns"].get<std::int64_t>()) << " us  x" << t["count"].get<std::int64_t>() << "  " << name
            << '\n';
    }
    if (!trace.notes.empty()) {
        out << "notes:\n";
        for (const auto& n : trace.notes) out << "  - " << n << '\n';
    }
    return out.str();
}

}  // namespace tilescope

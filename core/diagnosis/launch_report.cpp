#include "core/diagnosis/launch_report.h"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <tuple>

#include "core/trace/kineto_import.h"

namespace tilescope {

namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

// The lines of the text, without their line ends.
std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

// The decimal integer that starts `text` (after spaces); nullopt when none or it overflows.
std::optional<std::int64_t> leadingInteger(std::string_view text) {
    text = trimmed(text);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    return value;
}

// The integer just before `marker` ("104 registers" with marker " registers"); nullopt when absent.
std::optional<std::int64_t> integerBefore(std::string_view line, std::string_view marker) {
    const std::size_t at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t begin = at;
    while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
    if (begin == at) return std::nullopt;
    return leadingInteger(line.substr(begin, at - begin));
}

// The integer just after `marker` ("REG:48" with marker "REG:").
std::optional<std::int64_t> integerAfter(std::string_view line, std::string_view marker) {
    const std::size_t at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    return leadingInteger(line.substr(at + marker.size()));
}

// The text between `opening` and the next quote: "Compiling entry function 'NAME'".
std::optional<std::string_view> quotedAfter(std::string_view line, std::string_view opening, std::size_t* endOut = nullptr) {
    const std::size_t at = line.find(opening);
    if (at == std::string_view::npos) return std::nullopt;
    const std::size_t begin = at + opening.size();
    const std::size_t end = line.find('\'', begin);
    if (end == std::string_view::npos || end == begin) return std::nullopt;
    if (endOut) *endOut = end;
    return line.substr(begin, end - begin);
}

bool fitsInt(std::int64_t value) { return value >= 0 && value <= 1'000'000; }

ReportedLaunch namedLaunch(std::string_view name, int line) {
    ReportedLaunch launch;
    launch.name = std::string(name);
    launch.displayName = demangleKernelName(name);
    launch.line = line;
    return launch;
}

}  // namespace

std::string_view launchReportKindName(LaunchReportKind kind) {
    switch (kind) {
        case LaunchReportKind::Ptxas: return "ptxas";
        case LaunchReportKind::NcuCsv: return "ncu";
        case LaunchReportKind::Kineto: return "kineto";
    }
    return "";
}

Result<LaunchReportKind> parseLaunchReportKind(std::string_view name) {
    for (const LaunchReportKind kind : {LaunchReportKind::Ptxas, LaunchReportKind::NcuCsv, LaunchReportKind::Kineto})
        if (name == launchReportKindName(kind)) return kind;
    return makeError("unknown format '" + std::string(name) +
                     "'; formats: ptxas (nvcc -Xptxas -v, --resource-usage), ncu (ncu --csv), kineto (PyTorch profiler trace)");
}

std::string demangleKernelName(std::string_view name) {
    if (!name.starts_with("_Z")) return std::string(name);
    const std::string mangled(name);
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && text ? std::string(text.get()) : mangled;
}

std::optional<LaunchReportKind> detectLaunchReportKind(std::string_view text) {
    if (text.find("Compiling entry function '") != std::string_view::npos) return LaunchReportKind::Ptxas;
    // cuobjdump --dump-resource-usage: "REG:48 STACK:0 SHARED:0 ..." under a "Function NAME:" line.
    for (std::size_t at = text.find("REG:"); at != std::string_view::npos; at = text.find("REG:", at + 1))
        if (at + 4 < text.size() && text[at + 4] >= '0' && text[at + 4] <= '9' && text.find("Function ") != std::string_view::npos)
            return LaunchReportKind::Ptxas;
    if (text.find("\"Kernel Name\"") != std::string_view::npos) return LaunchReportKind::NcuCsv;
    return std::nullopt;
}

// ---- ptxas --------------------------------------------------------------------------------

Result<LaunchReport> readPtxasReport(std::string_view text) {
    LaunchReport report;
    report.kind = LaunchReportKind::Ptxas;
    std::vector<ReportedLaunch>& launches = report.launches;
    int current = -1;                                        // the entry whose lines follow
    std::string propertiesFor;                               // "Function properties for NAME": the next stack line's function
    std::string cuobjdumpArch;                               // cuobjdump's "arch = sm_90" header
    std::map<std::string, std::string, std::less<>> errors;  // ptxas errors by function, printed before its report
    const std::vector<std::string_view> lines = splitLines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        const int lineNumber = static_cast<int>(i) + 1;
        std::size_t end = 0;
        if (auto name = quotedAfter(line, "Compiling entry function '", &end)) {
            ReportedLaunch launch = namedLaunch(*name, lineNumber);
            if (auto arch = quotedAfter(line.substr(end + 1), " for '")) launch.arch = std::string(*arch);
            launches.push_back(std::move(launch));
            current = static_cast<int>(launches.size()) - 1;
            propertiesFor.clear();
            continue;
        }
        if (line.find("uses too much shared data") != std::string_view::npos) {
            if (auto name = quotedAfter(line, "Entry function '")) errors[std::string(*name)] = std::string(trimmed(line));
            continue;
        }
        if (const std::size_t at = line.find("Function properties for "); at != std::string_view::npos) {
            propertiesFor = std::string(trimmed(line.substr(at + std::string_view("Function properties for ").size())));
            continue;
        }
        if (line.find("bytes stack frame") != std::string_view::npos) {
            if (current >= 0 && propertiesFor == launches[static_cast<std::size_t>(current)].name) {
                ReportedLaunch& launch = launches[static_cast<std::size_t>(current)];
                launch.stackBytes = integerBefore(line, " bytes stack frame");
                launch.spillStoreBytes = integerBefore(line, " bytes spill stores");
                launch.spillLoadBytes = integerBefore(line, " bytes spill loads");
            }
            propertiesFor.clear();
            continue;
        }
        if (current >= 0 && line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
            ReportedLaunch& launch = launches[static_cast<std::size_t>(current)];
            if (auto registers = integerAfter(line, "Used "); registers && fitsInt(*registers))
                launch.registers = static_cast<int>(*registers);
            launch.staticSmem = integerBefore(line, " bytes smem").value_or(0);
            continue;
        }
        // cuobjdump --dump-resource-usage: "arch = sm_90", then " Function NAME:" and its "REG:.. SHARED:.." line.
        const std::string_view t = trimmed(line);
        if (t.starts_with("arch = ")) {
            cuobjdumpArch = std::string(trimmed(t.substr(7)));
            continue;
        }
        if (t.starts_with("Function ") && t.ends_with(":") && t.size() > 10) {
            ReportedLaunch launch = namedLaunch(t.substr(9, t.size() - 10), lineNumber);
            launch.arch = cuobjdumpArch;
            launches.push_back(std::move(launch));
            current = static_cast<int>(launches.size()) - 1;
            continue;
        }
        if (current >= 0 && t.find("REG:") != std::string_view::npos) {
            ReportedLaunch& launch = launches[static_cast<std::size_t>(current)];
            if (auto registers = integerAfter(t, "REG:"); registers && fitsInt(*registers)) launch.registers = static_cast<int>(*registers);
            launch.staticSmem = integerAfter(t, "SHARED:");
            launch.stackBytes = integerAfter(t, "STACK:");
            continue;
        }
    }
    for (ReportedLaunch& launch : launches)
        if (auto error = errors.find(launch.name); error != errors.end()) launch.toolError = error->second;
    if (launches.empty())
        return makeError(
            "no ptxas resource report in the input: expected lines such as \"ptxas info    : Compiling entry "
            "function '...' for 'sm_90'\" (nvcc -Xptxas -v or --resource-usage)");
    return report;
}

// ---- Nsight Compute CSV ---------------------------------------------------------------------

namespace {

// One CSV record of ncu's export: fields in double quotes ("" inside a field is a quote), or bare.
std::vector<std::string> csvFields(std::string_view line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < line.size() && line[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else {
            field += c;
        }
    }
    fields.push_back(std::move(field));
    return fields;
}

// "(256, 1, 1)" -> {256, 1, 1}.
std::optional<Dim3> parseDim3(std::string_view text) {
    text = trimmed(text);
    if (text.size() < 7 || text.front() != '(' || text.back() != ')') return std::nullopt;
    text = text.substr(1, text.size() - 2);
    std::int64_t values[3] = {0, 0, 0};
    for (std::int64_t& value : values) {
        const std::size_t comma = text.find(',');
        auto parsed = leadingInteger(text.substr(0, comma));
        if (!parsed || *parsed < 0) return std::nullopt;
        value = *parsed;
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    if (!trimmed(text).empty()) return std::nullopt;
    return Dim3{values[0], values[1], values[2]};
}

// ncu's numbers carry thousands separators ("10,496") and, in auto units, decimals ("32.77").
std::optional<double> ncuNumber(std::string_view text) {
    std::string digits;
    for (const char c : trimmed(text))
        if (c != ',') digits += c;
    if (digits.empty()) return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size() || !std::isfinite(value) || value < 0 || value > 1e15) return std::nullopt;
    return value;
}

// Bytes per block from a value and its unit: base units ("byte/block") exact; ncu's automatic units
// are decimal ("Kbyte/block" = 1,000 bytes) and rounded, so the figure is only as exact as printed.
std::optional<std::int64_t> bytesPerBlock(std::string_view value, std::string_view unit, bool& rounded) {
    const auto number = ncuNumber(value);
    if (!number) return std::nullopt;
    double scale = 0;
    if (unit == "byte/block" || unit == "byte") scale = 1;
    else if (unit == "Kbyte/block" || unit == "Kbyte") scale = 1e3;
    else if (unit == "Mbyte/block" || unit == "Mbyte") scale = 1e6;
    else return std::nullopt;
    if (scale != 1 && *number != std::floor(*number)) rounded = true;
    return static_cast<std::int64_t>(std::llround(*number * scale));
}

std::optional<int> registerCount(std::string_view value) {
    const auto number = ncuNumber(value);
    if (!number || *number != std::floor(*number) || *number > 1'000'000) return std::nullopt;
    return static_cast<int>(*number);
}

int column(const std::vector<std::string>& header, std::string_view name) {
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return static_cast<int>(i);
    return -1;
}

std::string_view cell(const std::vector<std::string>& row, int index) {
    return index >= 0 && static_cast<std::size_t>(index) < row.size() ? std::string_view(row[static_cast<std::size_t>(index)])
                                                                      : std::string_view();
}

// Launches with the same figures become one entry with a count.
void mergeDuplicates(LaunchReport& report) {
    std::vector<ReportedLaunch> merged;
    using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           int, std::int64_t, std::int64_t, std::int64_t>;
    std::map<Key, std::size_t> seen;
    for (ReportedLaunch& launch : report.launches) {
        const Dim3 grid = launch.grid.value_or(Dim3{0, 0, 0});
        const Dim3 block = launch.block.value_or(Dim3{0, 0, 0});
        const Key key{launch.name,
                      launch.arch,
                      grid.x,
                      grid.y,
                      grid.z,
                      block.x,
                      block.y,
                      block.z,
                      launch.registers.value_or(-1),
                      launch.staticSmem.value_or(-1),
                      launch.dynamicSmem.value_or(-1),
                      launch.sharedMemoryTotal.value_or(-1)};
        if (auto found = seen.find(key); found != seen.end()) {
            merged[found->second].count += launch.count;
            continue;
        }
        seen.emplace(key, merged.size());
        merged.push_back(std::move(launch));
    }
    report.launches = std::move(merged);
}

}  // namespace

Result<LaunchReport> readNcuCsv(std::string_view text) {
    LaunchReport report;
    report.kind = LaunchReportKind::NcuCsv;
    const std::vector<std::string_view> lines = splitLines(text);
    std::size_t headerLine = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].starts_with("\"ID\",") && lines[i].find("\"Kernel Name\"") != std::string_view::npos) {
            headerLine = i;
            break;
        }
    if (headerLine == lines.size())
        return makeError(
            "no Nsight Compute CSV header in the input (a line starting \"ID\",... with \"Kernel Name\"; "
            "ncu --csv --page details or --page raw)");
    const std::vector<std::string> header = csvFields(lines[headerLine]);
    const int idColumn = 0;
    const int nameColumn = column(header, "Kernel Name");
    const int blockColumn = column(header, "Block Size");
    const int gridColumn = column(header, "Grid Size");
    const int ccColumn = column(header, "CC");
    const int metricNameColumn = column(header, "Metric Name");
    const int metricUnitColumn = column(header, "Metric Unit");
    const int metricValueColumn = column(header, "Metric Value");
    const bool details = metricNameColumn >= 0 && metricValueColumn >= 0;
    bool rounded = false;
    bool unknownUnit = false;

    auto launchOf = [&](const std::vector<std::string>& row, int lineNumber) {
        ReportedLaunch launch = namedLaunch(cell(row, nameColumn), lineNumber);
        launch.arch = std::string(cell(row, ccColumn));
        launch.grid = parseDim3(cell(row, gridColumn));
        launch.block = parseDim3(cell(row, blockColumn));
        return launch;
    };

    if (details) {
        // --page details: one row per metric; a launch's rows share its ID.
        std::map<std::string, std::size_t> byId;
        for (std::size_t i = headerLine + 1; i < lines.size(); ++i) {
            if (lines[i].empty() || lines[i].starts_with("==")) continue;
            const std::vector<std::string> row = csvFields(lines[i]);
            // Metric rows end after the value when they carry no rule (fewer fields than the header).
            if (row.size() <= static_cast<std::size_t>(std::max({metricValueColumn, metricUnitColumn, nameColumn}))) continue;
            const std::string id = row[static_cast<std::size_t>(idColumn)];
            auto [at, added] = byId.try_emplace(id, report.launches.size());
            if (added) report.launches.push_back(launchOf(row, static_cast<int>(i) + 1));
            ReportedLaunch& launch = report.launches[at->second];
            const std::string_view metric = cell(row, metricNameColumn);
            const std::string_view value = cell(row, metricValueColumn);
            const std::string_view unit = cell(row, metricUnitColumn);
            if (metric == "Registers Per Thread") {
                launch.registers = registerCount(value);
            } else if (metric == "Static Shared Memory Per Block") {
                launch.staticSmem = bytesPerBlock(value, unit, rounded);
                unknownUnit = unknownUnit || !launch.staticSmem;
            } else if (metric == "Dynamic Shared Memory Per Block") {
                launch.dynamicSmem = bytesPerBlock(value, unit, rounded);
                unknownUnit = unknownUnit || !launch.dynamicSmem;
            }
        }
    } else {
        // --page raw: one row per launch, metric columns, the row after the header holds their units.
        const int registersColumn = column(header, "launch__registers_per_thread");
        const int staticColumn = column(header, "launch__shared_mem_per_block_static");
        const int dynamicColumn = column(header, "launch__shared_mem_per_block_dynamic");
        if (registersColumn < 0 && staticColumn < 0 && dynamicColumn < 0)
            report.notes.push_back(
                "the CSV has neither Launch Statistics rows nor launch__* columns: registers and shared "
                "memory are unknown (profile with --section LaunchStats or the launch__ metrics)");
        std::vector<std::string> units;
        for (std::size_t i = headerLine + 1; i < lines.size(); ++i) {
            if (lines[i].empty() || lines[i].starts_with("==")) continue;
            const std::vector<std::string> row = csvFields(lines[i]);
            if (units.empty() && !row.empty() && row[static_cast<std::size_t>(idColumn)].empty()) {
                units = row;
                continue;
            }
            if (row.size() <= static_cast<std::size_t>(std::max({nameColumn, registersColumn, staticColumn, dynamicColumn}))) continue;
            ReportedLaunch launch = launchOf(row, static_cast<int>(i) + 1);
            if (registersColumn >= 0) launch.registers = registerCount(cell(row, registersColumn));
            if (staticColumn >= 0) {
                launch.staticSmem = bytesPerBlock(cell(row, staticColumn), cell(units, staticColumn), rounded);
                unknownUnit = unknownUnit || !launch.staticSmem;
            }
            if (dynamicColumn >= 0) {
                launch.dynamicSmem = bytesPerBlock(cell(row, dynamicColumn), cell(units, dynamicColumn), rounded);
                unknownUnit = unknownUnit || !launch.dynamicSmem;
            }
            report.launches.push_back(std::move(launch));
        }
    }
    if (report.launches.empty()) return makeError("the Nsight Compute CSV holds no kernel launch");
    if (rounded)
        report.notes.push_back(
            "shared memory was printed in rounded decimal units (Kbyte): the bytes are as exact as "
            "printed; export with --print-units base for exact figures");
    if (unknownUnit) report.notes.push_back("some shared-memory figures had a unit this reader does not know: left unknown");
    mergeDuplicates(report);
    return report;
}

Result<LaunchReport> readLaunchReportFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError(path + ": cannot open");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const bool gzip = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b;
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (gzip || (first != std::string::npos && (text[first] == '{' || text[first] == '['))) return readKinetoLaunches(path);
    switch (detectLaunchReportKind(text).value_or(LaunchReportKind::Kineto)) {
        case LaunchReportKind::Ptxas: return readPtxasReport(text);
        case LaunchReportKind::NcuCsv: return readNcuCsv(text);
        case LaunchReportKind::Kineto: break;
    }
    return makeError(path + ": not a ptxas report (nvcc -Xptxas -v), an Nsight Compute CSV (ncu --csv) or a PyTorch profiler trace");
}

std::string launchShapeText(const ReportedLaunch& launch, const KernelFamily& family) {
    const LaunchFigureParameters* figures = family.launchFigureParameters();
    if (!launch.registers || !figures) return {};
    constexpr std::int64_t kDefaultSmemLimit = 48 * 1024;  // every GPU's limit without the opt-in attribute
    const ParameterList& parameters = family.parameters();
    std::string text;
    auto add = [&](int parameter, std::int64_t value) {
        text += (text.empty() ? "" : ",") + parameters[static_cast<std::size_t>(parameter)].name + "=" + std::to_string(value);
    };
    if (launch.grid) {
        add(figures->gridX, launch.grid->x);
        add(figures->gridY, launch.grid->y);
        add(figures->gridZ, launch.grid->z);
    }
    if (launch.block) {
        add(figures->blockX, launch.block->x);
        add(figures->blockY, launch.block->y);
        add(figures->blockZ, launch.block->z);
    }
    add(figures->registers, *launch.registers);
    const std::int64_t staticSmem = launch.staticSmem.value_or(0);
    const std::int64_t dynamicSmem = launch.sharedMemoryTotal ? *launch.sharedMemoryTotal : launch.dynamicSmem.value_or(0);
    add(figures->staticSmem, staticSmem);
    add(figures->dynamicSmem, dynamicSmem);
    add(figures->smemOptin, dynamicSmem > 0 && staticSmem + dynamicSmem > kDefaultSmemLimit ? 1 : 0);
    return text;
}

// ---- PyTorch profiler ----------------------------------------------------------------------

Result<LaunchReport> readKinetoLaunches(const std::string& path) {
    KinetoImportOptions options;
    auto imported = importKinetoFile(path, options);
    if (!imported) return makeError(imported.error());
    LaunchReport report;
    report.kind = LaunchReportKind::Kineto;
    for (const KernelRecord& record : imported->kernels) {
        ReportedLaunch launch = namedLaunch(record.name, 0);
        launch.grid = record.grid;
        launch.block = record.block;
        launch.registers = record.registersPerThread;
        launch.staticSmem = record.staticSmem;
        launch.dynamicSmem = record.dynamicSmem;
        if (!record.staticSmem && !record.dynamicSmem) launch.sharedMemoryTotal = record.sharedMemory;
        report.launches.push_back(std::move(launch));
    }
    if (report.launches.empty()) return makeError(path + ": the trace holds no kernel events");
    mergeDuplicates(report);
    return report;
}

}  // namespace tilescope

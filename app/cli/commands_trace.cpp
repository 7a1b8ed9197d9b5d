// Trace subcommands: trace summary / export, import-kineto, and the --trace files of plan and sweep.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/trace/chrome_export.h"
#include "core/trace/json_io.h"
#include "core/trace/kineto_import.h"
#include "core/trace/trace_io.h"
#include "core/series/roofline_summary.h"
#include "core/trace/trace_summary.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::cli {

namespace {

using nlohmann::ordered_json;

// A progress line on a terminal only, so pipes and golden files stay clean.
std::function<void(std::uint64_t, std::uint64_t)> terminalProgress(const std::string& path) {
    if (!::isatty(STDERR_FILENO)) return {};
    return [path](std::uint64_t done, std::uint64_t total) {
        if (total == 0) return;
        std::fprintf(stderr, "\r%s: %3.0f %%", path.c_str(), 100.0 * static_cast<double>(done) / static_cast<double>(total));
        if (done >= total) std::fprintf(stderr, "\n");
        std::fflush(stderr);
    };
}

void writeText(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::cout << text;
        return;
    }
    std::ofstream file(path, std::ios::binary);
    if (!(file << text) || !file.flush()) throw UsageError{"cannot write " + path};
}

Trace openTrace(const std::string& path) { return frontend::openTrace(path, terminalProgress(path)); }

void saveTrace(const Trace& trace, const std::string& path) {
    if (auto written = writeTraceFile(trace, path); !written) throw UsageError{written.error()};
    std::cerr << "wrote trace " << path << '\n';
}

// ---- import-kineto

std::string pct(const std::optional<double>& value) {
    if (!value) return "unknown";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", *value);
    return buffer;
}

std::string shortName(const std::string& name) { return name.size() > 80 ? name.substr(0, 77) + "..." : name; }

void printFindings(const std::vector<LaunchConfigFinding>& findings, bool violations) {
    std::vector<std::vector<std::string>> rows{{"count", "dev", "grid", "block", "regs", "smem (B)", "Kineto %", "est. %", "theoretical %",
                                                violations ? "limit broken" : "limiter", "kernel"}};
    for (const auto& f : findings)
        rows.push_back({std::to_string(f.count), std::to_string(f.device), formatDim(f.grid), formatDim(f.block),
                        f.registers ? std::to_string(*f.registers) : "?", f.sharedMemory ? withThousands(*f.sharedMemory) : "?",
                        pct(f.kinetoOccupancyPct), pct(f.estAchievedOccupancyPct), pct(f.occupancyPct),
                        violations ? f.violation : f.limiter, shortName(f.name)});
    printTable(std::cout, rows);
}

struct ImportOptions {
    std::string file, out, device;
    bool json = false;
};

int runImportKineto(const ImportOptions& o) {
    // Held in an optional so that the lines below read it unchanged (they read a Result before).
    const std::optional<KinetoImport> imported = frontend::importKineto(o.file, o.device, !o.out.empty(), terminalProgress(o.file));
    const KinetoImport& k = *imported;
    if (!o.out.empty()) saveTrace(k.toTrace(), o.out);

    if (o.json) {
        const ordered_json j = frontend::kinetoImportJson(o.file, k);
        std::cout << j.dump(2) << '\n';
        return kExitOk;
    }
    std::cout << o.file << ": " << withThousands(static_cast<std::int64_t>(k.bytes)) << " bytes of JSON, " << withThousands(k.eventCount)
              << " events, " << withThousands(k.kernelCount) << " kernels (" << withThousands(k.distinctConfigurations)
              << " launch configurations), " << withThousands(k.linkedLaunches) << " linked to their launch call\n";
    std::cout << "devices:" << (k.devices.empty() ? " none recorded" : "") << '\n';
    for (const auto& d : k.devices)
        std::cout << "  " << d.spec.id << "  " << d.spec.name << "  " << (d.checkable ? d.spec.archName() + ", checked" : "not checked")
                  << '\n';
    std::cout << "\nlaunches that break a device limit: " << (k.launchViolations.empty() ? "none" : "") << '\n';
    if (!k.launchViolations.empty()) printFindings(k.launchViolations, true);
    std::cout << "\nkernels whose occupancy Kineto got wrong: " << (k.occupancyCorrections.empty() ? "none" : "") << '\n';
    if (!k.occupancyCorrections.empty()) printFindings(k.occupancyCorrections, false);
    if (k.uncheckedKernels > 0) std::cout << "\nnot checked: " << withThousands(k.uncheckedKernels) << " kernels\n";
    if (!k.notes.empty()) {
        std::cout << "\nnotes:\n";
        for (const auto& n : k.notes) std::cout << "  - " << n << '\n';
    }
    return kExitOk;
}

}  // namespace

void saveSweepTrace(const BoundaryMap& map, const std::string& path) {
    Trace trace;
    trace.build = BuildInfo::current();
    trace.source = "tilescope-cli sweep";
    trace.addDevice(map.device());
    trace.sweeps.push_back(map);
    saveTrace(trace, path);
}

void savePlanTrace(const LaunchPlan& plan, const KernelChoice& kernel, const DeviceSpec& device, const std::string& path) {
    Trace trace;
    trace.build = BuildInfo::current();
    trace.source = "tilescope-cli plan";
    trace.addDevice(device);
    trace.runs.push_back(Run::predicted(plan, kernel.family->parameters()));
    saveTrace(trace, path);
}

void saveRunTrace(const LaunchPlan& plan, const KernelChoice& kernel, const DeviceSpec& device, const std::optional<GpuOutcome>& outcome,
                  const std::string& path) {
    Trace trace;
    trace.build = BuildInfo::current();
    trace.source = "tilescope-cli run";
    trace.addDevice(device);
    trace.runs.push_back(outcome ? Run::measured(plan, kernel.family->parameters(), *outcome)
                                 : Run::predicted(plan, kernel.family->parameters()));
    saveTrace(trace, path);
}

void addTraceCommand(CLI::App& app, int& exitCode) {
    auto* trace = app.add_subcommand("trace",
                                     "Summarise or convert a trace: a *.tilescope.json, or a PyTorch profiler "
                                     "trace (.json or .json.gz)");
    trace->require_subcommand(1, 1);

    auto* summary = trace->add_subcommand("summary",
                                          "Devices, runs, sweeps and recorded kernels of a trace; the achieved "
                                          "GB/s, TFLOP/s and % of roofline of its measured runs");
    auto summaryFile = std::make_shared<std::string>();
    auto summaryJson = std::make_shared<bool>(false);
    auto summaryCliffs = std::make_shared<bool>(false);
    auto summaryCalibration = std::make_shared<std::string>();
    summary->add_option("file", *summaryFile, "trace file")->required();
    summary->add_flag("--json", *summaryJson, "one JSON object");
    summary->add_flag("--cliffs", *summaryCliffs,
                      "also the cliffs of the measured sweeps: steps of more than 25 % between neighbouring cells, each with "
                      "the plan change that explains it");
    summary->add_option("--calibration", *summaryCalibration,
                        "hold the runs of the GPU it was measured on against this calibration (from 'calibrate --json')");
    summary->callback([=, &exitCode] {
        const Trace t = openTrace(*summaryFile);
        std::vector<Calibration> calibrations;
        if (!summaryCalibration->empty()) {
            auto read = readCalibrationFile(*summaryCalibration);
            if (!read) throw UsageError{read.error()};
            calibrations.push_back(std::move(read).value());
        }
        const DeviceDatabase& database = DeviceDatabase::embedded();
        if (*summaryJson) {
            std::cout << frontend::traceSummaryJson(t, calibrations, *summaryCliffs).dump(2) << '\n';
        } else {
            std::cout << traceSummaryText(t) << rooflineFiguresText(t, builtinKernels(), database, calibrations);
            if (*summaryCliffs) std::cout << cliffsText(t, builtinKernels(), database, calibrations);
        }
        exitCode = kExitOk;
    });

    auto* exporter = trace->add_subcommand("export",
                                           "Convert a trace: Chrome trace JSON (Perfetto, chrome://tracing), "
                                           "CSV or Markdown ('-' writes to standard output)");
    struct ExportOptions {
        std::string file, chrome, csv, md;
    };
    auto e = std::make_shared<ExportOptions>();
    exporter->add_option("file", e->file, "trace file")->required();
    auto* chrome = exporter->add_option("--chrome", e->chrome, "Chrome trace JSON output");
    auto* csv = exporter->add_option("--csv", e->csv, "CSV output, one row per run or kernel record");
    auto* md = exporter->add_option("--md", e->md, "Markdown output");
    exporter->callback([=, &exitCode] {
        if (chrome->count() + csv->count() + md->count() == 0) throw UsageError{"trace export needs --chrome, --csv or --md"};
        const Trace t = openTrace(e->file);
        if (!e->chrome.empty()) writeText(e->chrome, chromeTraceText(t));
        if (!e->csv.empty()) writeText(e->csv, traceToCsv(t));
        if (!e->md.empty()) writeText(e->md, traceToMarkdown(t));
        exitCode = kExitOk;
    });
}

void addImportKinetoCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("import-kineto",
                                       "Import a PyTorch profiler (Kineto) trace: check every kernel's launch against its device's "
                                       "limits and recompute its occupancy (Kineto reports 0 % above 48 KB of shared memory)");
    auto o = std::make_shared<ImportOptions>();
    command->add_option("file", o->file, "the profiler's Chrome trace (.json or .json.gz)")->required();
    command->add_option("--out", o->out, "save the import as a native trace (X.tilescope.json)");
    command->add_option("-d,--device", o->device, "device to assume when the trace has no deviceProperties (id or .json file)");
    command->add_flag("--json", o->json, "one JSON object: devices, kernels, launch_violations, occupancy_corrections, ...");
    command->callback([=, &exitCode] { exitCode = runImportKineto(*o); });
}

}  // namespace tilescope::cli

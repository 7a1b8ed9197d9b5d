// `check-launch`: kernels from a build log or a profile (ptxas -v, Nsight Compute CSV, PyTorch
// profiler trace) made launches of the family that takes a launch's own figures, each checked on
// every database device.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/frontend/launch_check.h"
#include "core/model/device_spec.h"
#include "core/model/fitting_block.h"
#include "core/model/fix_finder.h"
#include "core/model/launch_checks.h"
#include "core/diagnosis/launch_report.h"
#include "core/model/text_format.h"
#include "kernels/builtin_kernels.h"
#include "kernels/runtime/device_query.h"

namespace tilescope::cli {

namespace {

using frontend::CheckLaunchOptions;
using frontend::checksJson;
using frontend::DeviceResult;
using frontend::failures;
using frontend::KernelCheck;
using frontend::limitText;
using frontend::runLaunchCheck;
using frontend::summaryLine;
using nlohmann::ordered_json;

std::string figuresText(const ReportedLaunch& l) {
    std::vector<std::string> parts;
    if (l.grid) parts.push_back("grid " + formatDim(*l.grid));
    if (l.block) parts.push_back("block " + formatDim(*l.block));
    parts.push_back(l.registers ? str(*l.registers) + " registers" : "registers unknown");
    if (l.sharedMemoryTotal) parts.push_back(withThousands(*l.sharedMemoryTotal) + " B shared memory");
    if (l.staticSmem) parts.push_back(withThousands(*l.staticSmem) + " B static smem");
    if (l.dynamicSmem) parts.push_back(withThousands(*l.dynamicSmem) + " B dynamic smem");
    if (l.stackBytes) parts.push_back(withThousands(*l.stackBytes) + " B stack");
    if (l.spillStoreBytes && l.spillLoadBytes)
        parts.push_back(*l.spillStoreBytes + *l.spillLoadBytes == 0 ? std::string("no spills")
                                                                    : withThousands(*l.spillStoreBytes) + " B spill stores, " +
                                                                          withThousands(*l.spillLoadBytes) + " B spill loads");
    return joinList(parts);
}

std::string whereText(const ReportedLaunch& l, LaunchReportKind kind) {
    std::vector<std::string> parts;
    if (l.line > 0) parts.push_back("line " + str(l.line));
    if (!l.arch.empty()) parts.push_back(kind == LaunchReportKind::NcuCsv ? "profiled on cc " + l.arch : l.arch);
    if (l.count > 1) parts.push_back(str(l.count) + " launches");
    return joinList(parts);
}

void printText(const std::string& input, const LaunchReport& report, const std::vector<KernelCheck>& checks, int cudaRuntime) {
    std::cout << (input == "-" ? std::string("standard input") : input) << ": " << launchReportKindName(report.kind) << ", "
              << report.launches.size() << (report.launches.size() == 1 ? " kernel" : " kernels") << "; launch errors as the CUDA "
              << cudaRuntime << " runtime names them\n";
    for (const std::string& note : report.notes) std::cout << "note: " << note << '\n';
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const KernelCheck& check = checks[i];
        const ReportedLaunch& l = *check.launch;
        std::cout << "\n[" << i + 1 << "] " << l.displayName << '\n';
        if (l.displayName != l.name) std::cout << "    symbol   " << l.name << '\n';
        const std::string where = whereText(l, report.kind);
        if (!where.empty()) std::cout << "    from     " << where << '\n';
        std::cout << "    figures  " << figuresText(l) << '\n';
        if (!l.toolError.empty()) std::cout << "    ptxas    " << l.toolError << '\n';
        for (const std::string& a : check.assumptions) std::cout << "    assumed  " << a << '\n';
        std::cout << "    " << summaryLine(check) << '\n';
        if (check.results.empty()) continue;
        std::vector<std::vector<std::string>> rows{{"    device", "verdict", "block", "limit", "error / occupancy"}};
        for (const DeviceResult& r : check.results) {
            const LaunchPlan& p = r.plan;
            std::string detail;
            if (p.ok() && p.occupancy) {
                char occupancy[96];
                std::snprintf(occupancy, sizeof occupancy, "%.1f %% (%d blocks/SM, %s)", p.occupancy->occupancyPct,
                              p.occupancy->activeBlocksPerSm, joinList(p.occupancy->limiterNames()).c_str());
                detail = occupancy;
            } else if (!p.ok()) {
                detail = p.message;
                if (p.cudaError) detail += " (" + std::string(p.cudaError->name) + ")";
            }
            rows.push_back({"    " + r.device->id, std::string(verdictName(p.verdict)),
                            p.hasLaunch() ? str(p.threadsPerBlock()) : std::string("-"), limitText(p), detail});
        }
        printTable(std::cout, rows);
    }
    std::size_t clean = 0;
    std::vector<std::string> failing;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        if (checks[i].unchecked.empty() && failures(checks[i]).empty()) ++clean;
        else failing.push_back("[" + str(static_cast<std::int64_t>(i + 1)) + "]");
    }
    std::cout << "\nsummary: " << clean << " of " << checks.size() << " kernels launch on every device checked";
    if (!failing.empty()) std::cout << "; not: " << joinList(failing);
    std::cout << '\n';
}

int runCheckLaunch(const CheckLaunchOptions& o, const KernelFamily& family) {
    const KernelChoice kernel{&family, 0};
    const auto run = runLaunchCheck(o, family);
    if (o.json) std::cout << checksJson(o.input, run->report, run->checks, run->cudaRuntime, run->devices, kernel).dump(2) << '\n';
    else printText(o.input, run->report, run->checks, run->cudaRuntime);
    return run->pass ? kExitOk : kExitFails;
}

}  // namespace

void addCheckLaunchCommand(CLI::App& app, int& exitCode) {
    // The command checks reported launches as the family that takes a launch's own figures: none, no command.
    const KernelFamily* family = builtinKernels().launchFiguresFamily();
    if (!family) return;
    const std::string name(family->name());
    auto* command = app.add_subcommand(
        "check-launch",
        "Check the kernels of a build log or a profile (ptxas -v, ncu --csv, PyTorch profiler trace) on every database GPU.\n"
        "Exit 0 every kernel launches everywhere, 1 one fails on some device (or could not be checked), 2 usage or input error.");
    command->footer(
        "Inputs: ptxas reports (nvcc -Xptxas -v or --resource-usage; cuobjdump --dump-resource-usage), Nsight Compute CSV "
        "(ncu --csv --page details with the Launch Statistics section, or --page raw with the launch__* metrics) and "
        "PyTorch profiler traces (.json, .json.gz). Each kernel becomes a '" +
        name + "' launch (grid, block, registers, static and dynamic shared memory) checked on each device as 'plan -k " + name +
        "' would. A kernel whose shared memory passes a device's 48 KB default is taken to opt in (one that ran with more did).");
    auto o = std::make_shared<CheckLaunchOptions>();
    command->add_option("input", o->input, "the log, CSV or trace; - reads standard input (not for a trace)")->required();
    command->add_option("--format", o->format, "ptxas, ncu or kineto (default: detected from the content)");
    command->add_option("--block", o->block,
                        "x[,y[,z]] block for kernels whose report has none (ptxas). Without it each device gets the "
                        "largest block (a multiple of 32 threads) the kernel's registers allow");
    command->add_option("--grid", o->grid, "x[,y[,z]] grid for kernels whose report has none (ptxas; default 1,1,1)");
    command->add_option("--devices", o->devices, "'all' (default) or database ids / device .json files, comma-separated");
    command->add_option("--cuda", o->cuda,
                        "CUDA runtime major version whose launch errors to predict: 12 or 13 (default: the local runtime "
                        "with a GPU, else this build's toolkit, " +
                            std::to_string(toolkitCudaRuntime()) + ")");
    command->add_flag("--json", o->json,
                      "{\"input\", \"format\", \"cuda_runtime\", \"devices\", \"notes\", \"kernels\": [{..., \"fails_on\", "
                      "\"results\": [per device]}], \"pass\"}");
    command->callback([=, &exitCode] { exitCode = runCheckLaunch(*o, *family); });
}

}  // namespace tilescope::cli

// `check-launch`: kernels from a build log or a profile (ptxas -v, Nsight Compute CSV, PyTorch
// profiler trace) made launches of the family that takes a launch's own figures, each checked on
// every database device.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
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

using nlohmann::ordered_json;

struct CheckLaunchOptions {
    std::string input;
    std::string format;
    std::string block;
    std::string grid;
    std::string devices = "all";
    std::string cuda;
    bool json = false;
};

template <typename T>
T orInputError(Result<T> result) {
    if (!result) throw UsageError{result.error()};
    return std::move(result).value();
}

// "256" / "32,8" / "16,16,1" -> a Dim3 (missing trailing dimensions are 1).
Dim3 parseDims(const std::string& text, std::string_view option) {
    std::int64_t values[3] = {1, 1, 1};
    std::size_t count = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        if (count == 3) throw UsageError{std::string(option) + ": at most three dimensions x,y,z"};
        auto value = parseInteger(std::string_view(text).substr(start, comma - start));
        if (!value || *value < 1) throw UsageError{std::string(option) + ": '" + text + "' is not x[,y[,z]] with positive integers"};
        values[count++] = *value;
        start = comma + 1;
    }
    return {values[0], values[1], values[2]};
}

std::vector<const DeviceSpec*> chosenDevices(const std::string& text, std::vector<DeviceSpec>& storage) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    if (text == "all") {
        storage = database.devices();
    } else {
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            storage.push_back(orInputError(resolveDevice(text.substr(start, comma - start), database)));
            start = comma + 1;
        }
    }
    std::vector<const DeviceSpec*> devices;
    for (const DeviceSpec& d : storage) devices.push_back(&d);
    return devices;
}

bool isGzip(const std::string& text) {
    return text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b;
}

bool looksLikeJson(const std::string& text) {
    for (const char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        return c == '{' || c == '[';
    }
    return false;
}

LaunchReport readReport(const CheckLaunchOptions& o) {
    std::optional<LaunchReportKind> kind;
    if (!o.format.empty()) kind = orInputError(parseLaunchReportKind(o.format));
    std::string text;
    if (kind != LaunchReportKind::Kineto) text = readInput(o.input);
    if (!kind && (isGzip(text) || looksLikeJson(text))) kind = LaunchReportKind::Kineto;
    if (!kind) kind = detectLaunchReportKind(text);
    if (!kind)
        throw UsageError{(o.input == "-" ? std::string("standard input") : o.input) +
                         ": not a ptxas report (nvcc -Xptxas -v), an Nsight Compute CSV (ncu --csv) or a PyTorch profiler "
                         "trace; --format forces one"};
    switch (*kind) {
        case LaunchReportKind::Ptxas: return orInputError(readPtxasReport(text));
        case LaunchReportKind::NcuCsv: return orInputError(readNcuCsv(text));
        case LaunchReportKind::Kineto:
            if (o.input == "-") throw UsageError{"a PyTorch profiler trace is read from a file, not standard input"};
            return orInputError(readKinetoLaunches(o.input));
    }
    throw UsageError{"unknown input kind"};
}

// What one device does with one kernel.
struct DeviceResult {
    const DeviceSpec* device = nullptr;
    LaunchPlan plan;
};

struct KernelCheck {
    const ReportedLaunch* launch = nullptr;
    std::string unchecked;  // why it was not checked (figures missing), else empty
    std::vector<DeviceResult> results;
    std::vector<std::string> assumptions;  // what the shape took that the report did not say
};

KernelCheck checkKernel(const ReportedLaunch& launch, const KernelChoice& kernel, const std::vector<const DeviceSpec*>& devices,
                        const std::optional<Dim3>& blockOption, const std::optional<Dim3>& gridOption) {
    KernelCheck check;
    check.launch = &launch;
    const ParameterList& parameters = kernel.family->parameters();
    const LaunchFigureParameters& figures = *kernel.family->launchFigureParameters();
    if (!launch.registers) {
        check.unchecked = "the report gives no registers per thread";
        return check;
    }
    Shape shape = Shape::defaults(parameters);
    const Dim3 grid = launch.grid ? *launch.grid : gridOption.value_or(Dim3{1, 1, 1});
    if (!launch.grid)
        check.assumptions.push_back(gridOption ? "grid from --grid" : "grid (1, 1, 1): the report gives none, --grid sets one");
    shape[figures.gridX] = grid.x;
    shape[figures.gridY] = grid.y;
    shape[figures.gridZ] = grid.z;
    const std::optional<Dim3> block = launch.block ? launch.block : blockOption;
    if (block) {
        if (!launch.block) check.assumptions.push_back("block from --block");
        shape[figures.blockX] = block->x;
        shape[figures.blockY] = block->y;
        shape[figures.blockZ] = block->z;
    } else {
        check.assumptions.push_back(
            "block: the largest (a multiple of 32 threads) whose registers fit each device, as "
            "__launch_bounds__ could ask; --block sets one");
    }
    shape[figures.registers] = *launch.registers;
    std::int64_t staticSmem = launch.staticSmem.value_or(0);
    std::int64_t dynamicSmem = launch.dynamicSmem.value_or(0);
    if (launch.sharedMemoryTotal) {
        dynamicSmem = *launch.sharedMemoryTotal;
        check.assumptions.push_back("shared memory: the trace gives static + dynamic together, checked as dynamic");
    } else if (!launch.dynamicSmem && launch.line > 0 && launch.grid) {
        check.assumptions.push_back("dynamic shared memory unknown: taken as 0");
    }
    shape[figures.staticSmem] = staticSmem;
    shape[figures.dynamicSmem] = dynamicSmem;
    for (int p = 0; p < static_cast<int>(parameters.size()); ++p) {
        if (auto valid = checkParameterValue(parameters[static_cast<std::size_t>(p)], shape[p]); !valid) {
            check.unchecked = valid.error();
            return check;
        }
    }
    for (const DeviceSpec* device : devices) {
        Shape deviceShape = shape;
        // A kernel that ran with more than the default limit opted in; one that did not need it may not have.
        // (Opting in raises the dynamic limit only: static shared memory past 48 KB never builds.)
        deviceShape[figures.smemOptin] = dynamicSmem > 0 && staticSmem + dynamicSmem > device->smemPerBlock ? 1 : 0;
        if (!block) deviceShape[figures.blockX] = largestBlockWhoseRegistersFit(*kernel.family, deviceShape, *device);
        DeviceResult result{device, kernel.family->plan(kernel.variant, deviceShape, *device, PlanDetail::Full)};
        attachFix(result.plan, kernel, *device, nullptr);
        // A compiler's refusal names the function it compiled, not the family's label.
        if (!result.plan.ok()) result.plan.message = kernel.family->refusalFor(result.plan, launch.name);
        check.results.push_back(std::move(result));
    }
    bool optedIn = false;
    for (const DeviceResult& r : check.results) optedIn = optedIn || r.plan.optsIntoLargeSmem;
    if (optedIn)
        check.assumptions.push_back(
            "smem_optin=1 wherever static + dynamic shared memory passes the device's default "
            "limit (a kernel that ran with more had opted in)");
    return check;
}

std::string limitText(const LaunchPlan& plan) {
    if (!plan.limit) return {};
    return std::string(plan.limit->name) + " " + withThousands(plan.limit->actual) + " > " + withThousands(plan.limit->limit);
}

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

std::vector<const DeviceResult*> failures(const KernelCheck& check) {
    std::vector<const DeviceResult*> failed;
    for (const DeviceResult& r : check.results)
        if (!r.plan.ok()) failed.push_back(&r);
    return failed;
}

std::string summaryLine(const KernelCheck& check) {
    if (!check.unchecked.empty()) return "not checked: " + check.unchecked;
    const auto failed = failures(check);
    const std::size_t total = check.results.size();
    if (failed.empty()) return "launches on all " + str(static_cast<std::int64_t>(total)) + " devices";
    std::vector<std::string> names;
    for (const DeviceResult* r : failed) names.push_back(r->device->id + " (" + limitText(r->plan) + ")");
    return "fails on " + str(static_cast<std::int64_t>(failed.size())) + " of " + str(static_cast<std::int64_t>(total)) +
           " devices: " + joinList(names);
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

ordered_json dimJson(const std::optional<Dim3>& d) {
    if (!d) return nullptr;
    return ordered_json::array({d->x, d->y, d->z});
}

template <typename T>
ordered_json optionalJson(const std::optional<T>& value) {
    return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json checksJson(const std::string& input, const LaunchReport& report, const std::vector<KernelCheck>& checks, int cudaRuntime,
                        const std::vector<const DeviceSpec*>& devices, const KernelChoice& kernel) {
    ordered_json kernels = ordered_json::array();
    bool pass = true;
    for (const KernelCheck& check : checks) {
        const ReportedLaunch& l = *check.launch;
        ordered_json results = ordered_json::array();
        ordered_json failsOn = ordered_json::array();
        for (const DeviceResult& r : check.results) {
            const LaunchPlan& p = r.plan;
            ordered_json entry{{"device", r.device->id}, {"verdict", verdictName(p.verdict)}};
            entry["block"] = p.hasLaunch() ? ordered_json::array({p.block.x, p.block.y, p.block.z}) : ordered_json(nullptr);
            entry["limit"] = p.limit ? ordered_json{{"name", p.limit->name}, {"limit", p.limit->limit}, {"actual", p.limit->actual}}
                                     : ordered_json(nullptr);
            entry["message"] = p.message.empty() ? ordered_json(nullptr) : ordered_json(p.message);
            entry["cuda_error"] = p.cudaError ? ordered_json(describeCudaError(p, r.device->cudaRuntime)) : ordered_json(nullptr);
            entry["occupancy_pct"] = p.occupancy ? ordered_json(p.occupancy->occupancyPct) : ordered_json(nullptr);
            entry["shape"] = formatShape(p.shape, kernel.family->parameters());
            entry["fix"] = p.fix.empty() ? ordered_json(nullptr) : ordered_json(p.fix);
            if (!p.ok()) failsOn.push_back(r.device->id);
            results.push_back(std::move(entry));
        }
        pass = pass && failsOn.empty() && check.unchecked.empty();
        kernels.push_back({{"name", l.name},
                           {"display_name", l.displayName},
                           {"line", l.line > 0 ? ordered_json(l.line) : ordered_json(nullptr)},
                           {"arch", l.arch.empty() ? ordered_json(nullptr) : ordered_json(l.arch)},
                           {"count", l.count},
                           {"grid", dimJson(l.grid)},
                           {"block", dimJson(l.block)},
                           {"registers", optionalJson(l.registers)},
                           {"static_smem", optionalJson(l.staticSmem)},
                           {"dynamic_smem", optionalJson(l.dynamicSmem)},
                           {"shared_memory_total", optionalJson(l.sharedMemoryTotal)},
                           {"stack_bytes", optionalJson(l.stackBytes)},
                           {"spill_store_bytes", optionalJson(l.spillStoreBytes)},
                           {"spill_load_bytes", optionalJson(l.spillLoadBytes)},
                           {"tool_error", l.toolError.empty() ? ordered_json(nullptr) : ordered_json(l.toolError)},
                           {"assumptions", check.assumptions},
                           {"unchecked", check.unchecked.empty() ? ordered_json(nullptr) : ordered_json(check.unchecked)},
                           {"summary", summaryLine(check)},
                           {"fails_on", failsOn},
                           {"results", results}});
    }
    ordered_json deviceIds = ordered_json::array();
    for (const DeviceSpec* d : devices) deviceIds.push_back(d->id);
    return {{"input", input},
            {"format", launchReportKindName(report.kind)},
            {"cuda_runtime", cudaRuntime},
            {"devices", deviceIds},
            {"notes", report.notes},
            {"kernels", kernels},
            {"pass", pass}};
}

int runCheckLaunch(const CheckLaunchOptions& o, const KernelFamily& family) {
    const KernelChoice kernel{&family, 0};
    const std::optional<Dim3> block = o.block.empty() ? std::nullopt : std::optional<Dim3>(parseDims(o.block, "--block"));
    const std::optional<Dim3> grid = o.grid.empty() ? std::nullopt : std::optional<Dim3>(parseDims(o.grid, "--grid"));
    const int cudaRuntime = o.cuda.empty() ? defaultCudaRuntime() : orInputError(parseCudaRuntime(o.cuda));
    std::vector<DeviceSpec> storage;
    const std::vector<const DeviceSpec*> devices = chosenDevices(o.devices, storage);
    for (DeviceSpec& d : storage) d.cudaRuntime = cudaRuntime;
    const LaunchReport report = readReport(o);
    std::vector<KernelCheck> checks;
    for (const ReportedLaunch& launch : report.launches) checks.push_back(checkKernel(launch, kernel, devices, block, grid));
    bool pass = true;
    for (const KernelCheck& c : checks) pass = pass && c.unchecked.empty() && failures(c).empty();
    if (o.json) std::cout << checksJson(o.input, report, checks, cudaRuntime, devices, kernel).dump(2) << '\n';
    else printText(o.input, report, checks, cudaRuntime);
    return pass ? kExitOk : kExitFails;
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

// Moved from app/cli/commands_check_launch.cpp unchanged (see launch_check.h).
#include "app/frontend/launch_check.h"

#include "app/frontend/frontend.h"
#include "core/model/fitting_block.h"
#include "core/model/fix_finder.h"
#include "core/model/launch_checks.h"
#include "core/model/text_format.h"
#include "kernels/runtime/device_query.h"

namespace tilescope::frontend {

using nlohmann::ordered_json;

namespace {

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
    if (kind != LaunchReportKind::Kineto) text = o.text && o.input == "-" ? *o.text : readInput(o.input);
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

ordered_json dimJson(const std::optional<Dim3>& d) {
    if (!d) return nullptr;
    return ordered_json::array({d->x, d->y, d->z});
}

template <typename T>
ordered_json optionalJson(const std::optional<T>& value) {
    return value ? ordered_json(*value) : ordered_json(nullptr);
}

}  // namespace

std::string limitText(const LaunchPlan& plan) {
    if (!plan.limit) return {};
    return std::string(plan.limit->name) + " " + withThousands(plan.limit->actual) + " > " + withThousands(plan.limit->limit);
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

std::unique_ptr<LaunchCheckRun> runLaunchCheck(const CheckLaunchOptions& o, const KernelFamily& family) {
    auto run = std::make_unique<LaunchCheckRun>();
    const KernelChoice kernel{&family, 0};
    const std::optional<Dim3> block = o.block.empty() ? std::nullopt : std::optional<Dim3>(parseDims(o.block, "--block"));
    const std::optional<Dim3> grid = o.grid.empty() ? std::nullopt : std::optional<Dim3>(parseDims(o.grid, "--grid"));
    run->cudaRuntime = o.cuda.empty() ? defaultCudaRuntime() : orInputError(parseCudaRuntime(o.cuda));
    run->devices = chosenDevices(o.devices, run->storage);
    for (DeviceSpec& d : run->storage) d.cudaRuntime = run->cudaRuntime;
    run->report = readReport(o);
    for (const ReportedLaunch& launch : run->report.launches) run->checks.push_back(checkKernel(launch, kernel, run->devices, block, grid));
    for (const KernelCheck& c : run->checks) run->pass = run->pass && c.unchecked.empty() && failures(c).empty();
    return run;
}

}  // namespace tilescope::frontend

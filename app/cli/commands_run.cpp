// GPU subcommands: `run` (one shape on the live GPU, traced with CUPTI) and the cells of
// `sweep --run`. Exit 0 ok, 1 the kernel failed (CUDA error, planner refusal, wrong output),
// 2 usage, 3 no GPU. A sticky CUDA error or a hung kernel ends the process with a message.
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/series/calibration.h"
#include "core/model/fix_finder.h"
#include "core/trace/json_io.h"
#include "core/model/launch_checks.h"
#include "core/model/sweep.h"
#include "kernels/builtin_kernels.h"
#include "kernels/runtime/device_query.h"
#include "kernels/runtime/gpu_launcher.h"
#include "kernels/runtime/roofline_probe.h"

namespace tilescope::cli {

namespace {

using nlohmann::ordered_json;

struct RunCommandOptions {
    std::string kernel, variant, shape, dtype = "fp16", trace;
    std::string calibration;  // --calibration FILE from `calibrate --json`
    int gpu = 0;
    int repeat = 20;
    bool check = true;
    bool json = false;
    bool flushL2 = false;
    bool cupti = true;  // off under ncu / compute-sanitizer, which instrument the process themselves
};

template <typename T>
T orUsage(Result<T> result) {
    if (!result) throw UsageError{result.error()};
    return std::move(result).value();
}

ordered_json outcomeToJson(const CudaOutcome& o) { return {{"name", o.errorName}, {"text", o.errorText}, {"code", o.code}}; }

// Plan against what CUPTI saw for the first launch: the figures the GPU check compares.
struct Comparison {
    bool grid = false, block = false, smem = false, registers = false;
    bool all() const { return grid && block && smem && registers; }
};
std::optional<Comparison> compareWithRecord(const LaunchPlan& plan, const GpuOutcome& outcome) {
    if (outcome.records.empty()) return std::nullopt;
    const KernelRecord& r = outcome.records.front();
    Comparison c;
    c.grid = r.grid == plan.grid;
    c.block = r.block == plan.block;
    c.smem = r.staticSmem == plan.staticSmem && r.dynamicSmem == plan.dynamicSmem;
    c.registers = plan.registers && r.registersPerThread == plan.registers;
    return c;
}

// The CUDA error the plan predicted against the one raised (launch, or the opt-in attribute).
bool predictionHeld(const LaunchPlan& plan, const GpuOutcome& outcome) {
    if (plan.ok()) return outcome.launch.ok();
    return plan.cudaError && outcome.launch.code == plan.cudaError->code;
}

double roofline(const LaunchPlan& plan, const DeviceSpec& device) {  // µs at full memory bandwidth
    return device.memoryBandwidthGBps ? plan.bytesMoved / (*device.memoryBandwidthGBps * 1e3) : 0.0;
}

ordered_json runToJson(const RunResult& r, const KernelChoice& kernel, const DeviceSpec& device, const Roofline& ceilings,
                       RooflineDtype dtype) {
    ordered_json j{{"kernel", kernel.family->name()},
                   {"variant", kernel.variantName()},
                   {"device", device.name},
                   {"shape", shapeToJson(r.plan.shape, kernel.family->parameters())}};
    j["plan"] = planToJson(r.plan, kernel.family->parameters());
    // What Nsight Compute's launch statistics show per resource, for the GPU check's comparison.
    if (r.plan.occupancy) {
        const Occupancy& o = *r.plan.occupancy;
        auto limit = [](int blocks) { return blocks == INT_MAX ? ordered_json(nullptr) : ordered_json(blocks); };
        j["occupancy_limits"] = {{"warps", limit(o.blockLimitWarps)},
                                 {"registers", limit(o.blockLimitRegisters)},
                                 {"shared_memory", limit(o.blockLimitSharedMemory)},
                                 {"blocks", limit(o.blockLimitBlocks)},
                                 {"allocated_smem_per_block", o.allocatedSmemPerBlock}};
    }
    j["launched"] = r.launched;
    j["refusal"] = r.refusal;
    j["symbol"] = r.symbol;
    j["predicted_error"] =
        r.plan.cudaError ? ordered_json{{"name", r.plan.cudaError->name}, {"code", r.plan.cudaError->code}} : ordered_json(nullptr);
    j["cuda_runtime"] = device.cudaRuntime;  // the local runtime: the one the prediction is for
    if (r.outcome) {
        const GpuOutcome& o = *r.outcome;
        j["launch"] = outcomeToJson(o.launch);
        j["synchronize"] = outcomeToJson(o.synchronize);
        j["prediction_held"] = predictionHeld(r.plan, o);
        ordered_json records = ordered_json::array();
        for (const auto& rec : o.records) records.push_back(recordToJson(rec));
        j["records"] = records;
        if (auto c = compareWithRecord(r.plan, o))
            j["plan_matches_record"] = {{"grid", c->grid}, {"block", c->block}, {"smem", c->smem}, {"registers", c->registers}};
        j["check"] = o.check ? ordered_json{{"max_relative_error", o.check->maxRelativeError},
                                            {"bound", o.check->bound},
                                            {"passed", o.check->passed},
                                            {"rows", r.checkedRows}}
                             : ordered_json(nullptr);
        if (o.timing) {
            j["timing_us"] = {{"repeats", o.timing->repeats}, {"min", o.timing->minUs},     {"median", o.timing->medianUs},
                              {"mean", o.timing->meanUs},     {"source", o.timing->source}, {"l2_flushed", o.timing->l2Flushed}};
            j["roofline_us"] = roofline(r.plan, device);
            j["roofline"] = rooflineToJson(ceilings);
            j["achieved"] = achievedToJson(achievedFigures(r.plan, o.timing->medianUs, ceilings, dtype));
        }
        ordered_json api = ordered_json::array();
        for (const auto& a : r.apiRecords)
            api.push_back({{"name", a.name}, {"return", a.returnValue}, {"correlation_id", a.correlationId}});
        j["runtime_api"] = api;
        j["dropped_records"] = r.droppedRecords;
    }
    auto optional = [](const auto& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    j["function_attributes"] = {{"registers", optional(r.functionRegisters)},
                                {"static_smem", optional(r.functionStaticSmem)},
                                {"local_bytes", optional(r.functionLocalBytes)},
                                {"registers_match_table", r.functionRegisters && r.functionRegisters == r.plan.registers},
                                {"static_smem_matches_plan", r.functionStaticSmem && *r.functionStaticSmem == r.plan.staticSmem}};
    j["fatal"] = r.fatal;
    return j;
}

void printRun(const RunResult& r, const KernelChoice& kernel, const DeviceSpec& device, const Roofline& ceilings, RooflineDtype dtype) {
    const LaunchPlan& p = r.plan;
    std::vector<std::vector<std::string>> rows{{"", "plan", "GPU (CUPTI)"}};
    rows.push_back({"kernel", std::string(kernel.family->name()) + " / " + std::string(kernel.variantName()), r.symbol});
    rows.push_back({"device", device.name + " (" + device.archName() + ")", ""});
    rows.push_back({"shape", formatShape(p.shape, kernel.family->parameters()), ""});
    const KernelRecord* rec = r.outcome && !r.outcome->records.empty() ? &r.outcome->records.front() : nullptr;
    rows.push_back({"verdict", std::string(verdictName(p.verdict)), r.launched ? "" : "not launched: " + r.refusal});
    rows.push_back({"cuda error", p.cudaError ? describeCudaError(p, device.cudaRuntime) : "cudaSuccess",
                    r.outcome
                        ? r.outcome->launch.errorName + " (" + std::to_string(r.outcome->launch.code) + "): " + r.outcome->launch.errorText
                        : ""});
    if (r.outcome && !r.outcome->synchronize.ok())
        rows.push_back({"synchronize", "", r.outcome->synchronize.errorName + ": " + r.outcome->synchronize.errorText});
    if (r.launched || rec) {
        rows.push_back({"grid", formatDim(p.grid), rec ? formatDim(rec->grid) : "-"});
        rows.push_back({"block", formatDim(p.block), rec ? formatDim(rec->block) : "-"});
        rows.push_back(
            {"static smem", withThousands(p.staticSmem) + " B", rec && rec->staticSmem ? withThousands(*rec->staticSmem) + " B" : "-"});
        rows.push_back(
            {"dynamic smem", withThousands(p.dynamicSmem) + " B", rec && rec->dynamicSmem ? withThousands(*rec->dynamicSmem) + " B" : "-"});
        rows.push_back({"registers", p.registers ? std::to_string(*p.registers) + " (ptxas table)" : "unknown",
                        (rec && rec->registersPerThread ? std::to_string(*rec->registersPerThread) : "-") +
                            (r.functionRegisters ? "; cudaFuncGetAttributes " + std::to_string(*r.functionRegisters) : "")});
        rows.push_back(
            {"local memory", "", rec && rec->localMemoryPerThread ? std::to_string(*rec->localMemoryPerThread) + " B/thread" : "-"});
    }
    if (r.outcome && r.outcome->check) {
        char text[160];
        std::snprintf(text, sizeof text, "%s: max relative error %.3g (bound %.3g), %s", r.outcome->check->passed ? "passed" : "FAILED",
                      r.outcome->check->maxRelativeError, r.outcome->check->bound, r.checkedRows.c_str());
        rows.push_back({"check", "", text});
    }
    if (r.outcome && r.outcome->timing) {
        char text[256];
        const double bound = roofline(p, device);
        const Timing& t = *r.outcome->timing;
        std::snprintf(text, sizeof text, "median %.2f us, min %.2f us over %d (%s%s); memory roofline %.2f us", t.medianUs, t.minUs,
                      t.repeats, t.source == "cupti" ? "CUPTI kernel time" : "CUDA events, launch overhead included",
                      t.l2Flushed ? ", L2 flushed" : "", bound);
        rows.push_back({"time", "", text});
        rows.push_back({"achieved", "", formatAchieved(achievedFigures(p, t.medianUs, ceilings, dtype))});
        rows.push_back({"roofline", "", formatRoofline(ceilings)});
    }
    printTable(std::cout, rows);
    if (r.outcome && r.outcome->records.empty() && r.launched && r.outcome->launch.ok())
        std::cout << "note: CUPTI delivered no kernel record for this launch\n";
    if (r.droppedRecords > 0) std::cout << "warning: CUPTI dropped " << r.droppedRecords << " records\n";
}

bool runPassed(const RunResult& r) {
    return r.launched && r.outcome && r.outcome->launch.ok() && r.outcome->synchronize.ok() &&
           (!r.outcome->check || r.outcome->check->passed);
}

// Ends the process when the context is unusable: CUDA teardown after a sticky error can hang.
void exitIfFatal(const RunResult& r) {
    if (!r.fatal) return;
    std::cout.flush();
    std::cerr << "tilescope-cli: the GPU context is unusable after this run ("
              << (r.outcome ? r.outcome->synchronize.errorName + ": " + r.outcome->synchronize.errorText : std::string("unknown"))
              << "); exiting\n";
    std::cerr.flush();
    std::_Exit(kExitFails);
}

struct Gpu {
    DeviceSpec device;
    std::unique_ptr<CuptiTracer> tracer;
};

// Exit 3 with one line when there is no usable GPU.
std::optional<Gpu> openGpu(int ordinal, bool cupti = true) {
    const GpuAvailability gpu = probeGpu();
    if (!gpu.available) {
        std::cerr << "no CUDA device: " << gpu.reason << '\n';
        return std::nullopt;
    }
    auto device = liveDeviceSpec(ordinal, DeviceDatabase::embedded());
    if (!device) {
        std::cerr << "no CUDA device: " << device.error() << '\n';
        return std::nullopt;
    }
    if (auto used = useDevice(ordinal); !used) {
        std::cerr << "no CUDA device: " << used.error() << '\n';
        return std::nullopt;
    }
    Gpu g{*device, nullptr};
    if (!cupti) return g;
    if (auto tracer = CuptiTracer::start()) g.tracer = std::move(*tracer);
    else std::cerr << "warning: CUPTI tracing unavailable (" << tracer.error() << "); running without kernel records\n";
    return g;
}

// A family or variant that only models launches has nothing to launch: refused before a GPU is opened.
void requireDeviceCode(const KernelChoice& kernel) {
    if (kernel.hasDeviceCode()) return;
    if (kernel.family->hasDeviceCode())
        throw UsageError{"variant '" + std::string(kernel.family->name()) + " / " + std::string(kernel.variantName()) +
                         "' has no device code: Tilescope plans upstream's kernel for it but builds none, there is nothing to run on a GPU "
                         "(use 'plan' to check it against any device)"};
    throw UsageError{"kernel '" + std::string(kernel.family->name()) +
                     "' has no device code: it checks a launch from its figures only, there is nothing to run on a GPU "
                     "(use 'plan' or 'check-launch' to check it against any device)"};
}

// The families whose kernels have bf16 twins (`run --dtype bf16`), ", "-joined.
std::string bf16FamilyNames() {
    std::vector<std::string> names;
    for (const auto& family : builtinKernels().families())
        if (family->hasBf16Kernels()) names.emplace_back(family->name());
    return joinList(names);
}

// --dtype bf16 on a family without bf16 twins: where it applies, and the one type each other runnable family has.
std::string bf16RefusalText() {
    std::vector<std::string> others;
    for (const auto& family : builtinKernels().families())
        if (family->hasDeviceCode() && !family->hasBf16Kernels())
            others.push_back(std::string(family->name()) + " is " + (family->elementType() == ElementType::Bf16 ? "bf16" : "fp16"));
    return "--dtype bf16 applies to " + bf16FamilyNames() + " only (" + joinList(others) + ")";
}

}  // namespace

Result<Calibration> readCalibrationFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return makeError("cannot open calibration file " + path);
    std::ostringstream text;
    text << file.rdbuf();
    auto calibration = calibrationFromJson(text.str());
    if (!calibration) return makeError(path + ": " + calibration.error());
    return calibration;
}

Roofline rooflineForGpu(const DeviceSpec& device, const std::string& calibrationPath) {
    if (calibrationPath.empty()) return datasheetRoofline(device, DeviceDatabase::embedded());
    Calibration calibration = orUsage(readCalibrationFile(calibrationPath));
    if (calibration.gpuName != device.name)
        throw UsageError{"calibration " + calibrationPath + " was measured on " + calibration.gpuName + ", this GPU is " + device.name};
    return calibration.roofline;
}

namespace {

int runCommand(const RunCommandOptions& o) {
    const KernelChoice kernel = orUsage(resolveKernel(builtinKernels(), o.kernel, o.variant));
    requireDeviceCode(kernel);
    const Shape shape = orUsage(parseShape(o.shape, kernel.family->parameters()));
    if (o.dtype != "fp16" && o.dtype != "bf16") throw UsageError{"--dtype must be fp16 or bf16"};
    if (o.dtype == "bf16" && !kernel.family->hasBf16Kernels()) throw UsageError{bf16RefusalText()};
    auto gpu = openGpu(o.gpu, o.cupti);
    if (!gpu) return kExitNoGpu;
    const LaunchPlan plan = planWithFix(kernel, shape, gpu->device, &DeviceDatabase::embedded());
    RunOptions options;
    options.repeats = o.repeat;
    options.check = o.check;
    options.bf16 = o.dtype == "bf16";
    options.flushL2 = o.flushL2;
    options.tracer = gpu->tracer.get();
    const RunResult result = runOnGpu(kernel, plan, options);
    const Roofline ceilings = rooflineForGpu(gpu->device, o.calibration);
    const RooflineDtype dtype = o.dtype == "bf16" ? RooflineDtype::Bf16 : kernel.family->elementType();
    if (o.json) std::cout << runToJson(result, kernel, gpu->device, ceilings, dtype).dump(2) << '\n';
    else printRun(result, kernel, gpu->device, ceilings, dtype);
    // Saved before a fatal exit: a run that broke the context is the one worth keeping.
    if (!o.trace.empty()) saveRunTrace(result.plan, kernel, gpu->device, result.outcome, o.trace);
    exitIfFatal(result);
    return runPassed(result) ? kExitOk : kExitFails;
}

}  // namespace

int runSweepOnGpu(const KernelChoice& kernel, const Shape& base, const SweepAxis& x, const std::optional<SweepAxis>& y, int repeat,
                  bool check, bool flushL2, const std::string& calibrationPath) {
    requireDeviceCode(kernel);
    auto gpu = openGpu(0);
    if (!gpu) return kExitNoGpu;
    const Roofline ceilings = rooflineForGpu(gpu->device, calibrationPath);
    const std::size_t height = y ? y->values.size() : 1;
    std::uint64_t launchId = 0;
    bool allPassed = true;
    for (std::size_t iy = 0; iy < height; ++iy)
        for (std::size_t ix = 0; ix < x.values.size(); ++ix) {
            Shape shape = base;
            setAxisValue(shape, x, ix);
            if (y) setAxisValue(shape, *y, iy);
            const LaunchPlan plan = planWithFix(kernel, shape, gpu->device, &DeviceDatabase::embedded());
            RunOptions options;
            options.repeats = repeat;
            options.check = check;
            options.flushL2 = flushL2;
            options.tracer = gpu->tracer.get();
            options.launchId = ++launchId;
            const RunResult result = runOnGpu(kernel, plan, options);
            ordered_json line = runToJson(result, kernel, gpu->device, ceilings, kernel.family->elementType());
            line["cell"] = {{"x", ix}, {"y", iy}, {"total", x.values.size() * height}};
            std::cout << line.dump() << std::endl;  // one line per finished cell: the GUI's progress
            exitIfFatal(result);
            allPassed = allPassed && runPassed(result);
        }
    return allPassed ? kExitOk : kExitFails;
}

namespace {

void printCalibration(const Calibration& c) {
    auto figure = [](const std::optional<double>& value, const char* unit, const char* how) {
        if (!value) return std::string("unknown");
        char text[96];
        std::snprintf(text, sizeof text, "%.1f %s (%s)", *value, unit, how);
        return std::string(text);
    };
    std::vector<std::vector<std::string>> rows{{"GPU", c.gpuName},
                                               {"driver", c.driverVersion},
                                               {"measured", c.measuredAt},
                                               {"bandwidth", figure(c.roofline.bandwidthGBps, "GB/s", "device-to-device copy")},
                                               {"fp16", figure(c.roofline.fp16Tflops, "TFLOP/s", "cuBLAS GEMM 8192^3, fp32 accumulate")},
                                               {"bf16", figure(c.roofline.bf16Tflops, "TFLOP/s", "cuBLAS GEMM 8192^3, fp32 accumulate")},
                                               {"provenance", c.roofline.provenance}};
    printTable(std::cout, rows);
}

int calibrateCommand(int ordinal, bool json) {
    const GpuAvailability gpu = probeGpu();
    if (!gpu.available) {
        std::cerr << "no CUDA device: " << gpu.reason << '\n';
        return kExitNoGpu;
    }
    if (ordinal >= gpu.deviceCount) {
        std::cerr << "no CUDA device: ordinal " << ordinal << " of " << gpu.deviceCount << " devices\n";
        return kExitNoGpu;
    }
    auto calibration = measureRoofline(ordinal, [](std::string_view step) { std::cerr << "calibrate: " << step << "\n"; });
    if (!calibration) {
        std::cerr << "tilescope-cli: calibrate: " << calibration.error() << '\n';
        return kExitFails;
    }
    if (json) std::cout << calibrationToJson(*calibration);
    else printCalibration(*calibration);
    return kExitOk;
}

}  // namespace

void addCalibrateCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("calibrate",
                                       "Measure the local GPU's roofline: device-to-device copy bandwidth and cuBLAS fp16 / bf16\n"
                                       "dense GEMM peaks (progress on stderr). --json writes the file --calibration reads.\n"
                                       "Exit 0 ok, 1 nothing could be measured, 3 no GPU.");
    auto ordinal = std::make_shared<int>(0);
    auto json = std::make_shared<bool>(false);
    command->add_option("--gpu", *ordinal, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
    command->add_flag("--json", *json, "the calibration as JSON (for --calibration FILE and the GUI)");
    command->callback([ordinal, json, &exitCode] { exitCode = calibrateCommand(*ordinal, *json); });
}

void addRunCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("run",
                                       "Run one kernel call on the local GPU, traced with CUPTI: the plan next to what the GPU did.\n"
                                       "Exit 0 ok, 1 the kernel failed (CUDA error, planner refusal, wrong output), 3 no GPU.");
    auto o = std::make_shared<RunCommandOptions>();
    command->add_option("-k,--kernel", o->kernel, "kernel family (see 'tilescope-cli kernels')")->required();
    command->add_option("-v,--variant", o->variant, "variant of the family (default: its first)");
    command->add_option("-s,--shape", o->shape, "parameters as NAME=VALUE,... (others keep their defaults)");
    command->add_option("--gpu", o->gpu, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
    command->add_option("--repeat", o->repeat, "timed repeats after the checked launch")->check(CLI::Range(0, 100000));
    command->add_flag("--check,!--no-check", o->check, "compare the output with the CPU reference (default on)");
    command->add_flag("--cupti,!--no-cupti", o->cupti, "trace with CUPTI (default on; off under ncu or compute-sanitizer)");
    command->add_flag("--flush-l2", o->flushL2, "evict L2 before every timed repeat: weights cold, as in a real model's layer");
    command->add_option("--dtype", o->dtype, bf16FamilyNames() + ": fp16 (default) or bf16");
    command->add_option("--trace", o->trace,
                        "also save the run (measured, or the plan when nothing launched) as a trace FILE (X.tilescope.json)");
    command->add_flag("--json", o->json, "one JSON object: plan, CUDA errors, CUPTI records, check, timing, roofline, achieved");
    command->add_option(
        "--calibration", o->calibration,
        "hold the achieved figures against this GPU's measured roofline (a FILE from 'calibrate --json'; default: the datasheet)");
    command->callback([o, &exitCode] { exitCode = runCommand(*o); });
}

}  // namespace tilescope::cli

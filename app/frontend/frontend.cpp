// Moved from app/cli (commands_model.cpp, commands_diagnose.cpp, commands_trace.cpp) unchanged, so that
// the CLI and the Python module call the same functions.
#include "app/frontend/frontend.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "core/diagnosis/model_catalog.h"
#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "core/model/text_format.h"
#include "core/series/roofline.h"
#include "core/series/roofline_summary.h"
#include "core/trace/json_io.h"
#include "core/trace/trace_summary.h"
#include "kernels/builtin_kernels.h"
#include "kernels/runtime/device_query.h"

namespace tilescope::frontend {

using nlohmann::ordered_json;

namespace {
const DeviceDatabase& database() { return DeviceDatabase::embedded(); }
}  // namespace

std::string readInput(const std::string& path) {
    if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError{path + ": cannot open"};
    // A file of known size in one read (a server log runs to hundreds of MB); a pipe or device by the stream.
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size > 0) {
        std::string text(static_cast<std::size_t>(size), '\0');
        if (in.read(text.data(), size) && in.peek() == std::char_traits<char>::eof()) return text;
        in.clear();
        in.seekg(0, std::ios::beg);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// ---- devices, kernels, plan, sweep

namespace {

// The roofline's compute ceilings are not launch limits (deviceToJson, which traces embed, leaves
// them out), but `devices` is where a user looks for every figure of a GPU and its source.
ordered_json deviceWithPeaksToJson(const DeviceSpec& device) {
    ordered_json j = deviceToJson(device);
    j["fp16_tensor_tflops"] = device.fp16TensorTflops ? ordered_json(*device.fp16TensorTflops) : ordered_json(nullptr);
    j["bf16_tensor_tflops"] = device.bf16TensorTflops ? ordered_json(*device.bf16TensorTflops) : ordered_json(nullptr);
    j["peak_source"] = device.peakSource.empty() ? ordered_json(nullptr) : ordered_json(device.peakSource);
    return j;
}

}  // namespace

ordered_json devicesJson() {
    ordered_json list = ordered_json::array();
    for (const auto& d : database().devices()) list.push_back(deviceWithPeaksToJson(d));
    return {{"default", database().defaultId()}, {"devices", list}};
}

ordered_json deviceJson(const std::string& id) { return deviceWithPeaksToJson(orUsageError(resolveDevice(id, database()))); }

ordered_json kernelsJson(const std::string& name) {
    std::vector<const KernelFamily*> families;
    if (!name.empty()) {
        families.push_back(orUsageError(resolveKernel(builtinKernels(), name, "")).family);
    } else {
        for (const auto& f : builtinKernels().families()) families.push_back(f.get());
    }
    ordered_json list = ordered_json::array();
    for (const auto* f : families) list.push_back(familyToJson(*f));
    return {{"kernels", list}};
}

Resolved resolve(const KernelOptions& options) {
    Resolved r{orUsageError(resolveKernel(builtinKernels(), options.kernel, options.variant)), {}, {}};
    r.device = orUsageError(resolveDevice(options.device.empty() ? database().defaultId() : options.device, database()));
    r.shape = orUsageError(parseShape(options.shape, r.kernel.family->parameters()));
    r.device.cudaRuntime = options.cuda.empty() ? defaultCudaRuntime() : orUsageError(parseCudaRuntime(options.cuda));
    return r;
}

ordered_json planJson(const LaunchPlan& plan, const Resolved& r, bool withEstimate) {
    ordered_json j = planToJson(plan, r.kernel.family->parameters());
    if (withEstimate) {
        const Roofline ceilings = datasheetRoofline(r.device, database());
        const auto estimate = estimateTime(plan, ceilings, rooflineDtypeOf(plan.family, builtinKernels()));
        j["estimate"] = estimate ? estimateToJson(*estimate, ceilings.source) : ordered_json(nullptr);
        j["roofline"] = rooflineToJson(ceilings);
    }
    return j;
}

SweepAxes sweepAxes(const Resolved& r, const std::string& xText, const std::string& yText) {
    const auto& parameters = r.kernel.family->parameters();
    SweepAxis x = orUsageError(parseSweepAxis(xText, parameters));
    std::optional<SweepAxis> y;
    if (!yText.empty()) {
        y = orUsageError(parseSweepAxis(yText, parameters));
        if (y->parameter == x.parameter) throw UsageError{"--x and --y sweep the same parameter"};
    }
    tieFollowers(x, r.shape, parameters, y ? &*y : nullptr);
    if (y) tieFollowers(*y, r.shape, parameters, &x);
    return {std::move(x), std::move(y)};
}

// ---- diagnose, check-model

Diagnosis diagnoseInput(const std::string& text, const std::string& name, const std::string& modelPath) {
    DiagnosisOptions options;
    if (!modelPath.empty()) {
        auto model = catalogModelFromPath(modelPath);
        if (!model) throw UsageError{"--model: " + model.error()};
        options.model = std::move(*model);
    }
    auto diagnosis = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded(), options);
    if (!diagnosis) throw UsageError{name + ": " + diagnosis.error()};
    return std::move(diagnosis).value();
}

std::vector<std::int64_t> parseList(const std::string& text, const char* option) {
    std::vector<std::int64_t> values;
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        auto value = parseInteger(item);
        if (!value) throw UsageError{std::string(option) + ": " + value.error()};
        if (*value < 1) throw UsageError{std::string(option) + ": " + std::to_string(*value) + " must be at least 1"};
        values.push_back(*value);
    }
    if (values.empty()) throw UsageError{std::string(option) + ": give a comma-separated list such as 1,8,64"};
    return values;
}

namespace {

std::vector<std::string> splitIds(std::string_view text) {
    std::vector<std::string> ids;
    while (!text.empty()) {
        const auto comma = text.find(',');
        if (comma != 0) ids.emplace_back(text.substr(0, comma));
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return ids;
}

// The checkpoint's config: `configText` (a config's JSON) stands for the file when given.
ModelConfig readModelConfig(const std::string& configPath, const std::optional<std::string>& configText) {
    return orUsageError(configText ? parseModelConfig(*configText, std::nullopt, configPath) : loadModelConfig(configPath));
}

}  // namespace

ModelCheck modelCheck(const std::string& configPath, const std::optional<std::string>& configText, const std::string& device,
                      const std::string& batches, const std::string& seqs, const std::string& attentionVariant, const std::string& stack) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    const ModelConfig model = readModelConfig(configPath, configText);
    const DeviceSpec spec = orUsageError(resolveDevice(device.empty() ? database.defaultId() : device, database));
    ModelCheckOptions options;
    options.batches = parseList(batches, "--batch");
    options.seqs = parseList(seqs, "--seq");
    options.attentionVariant = attentionVariant;
    options.stack = stack;
    return orUsageError(checkModel(model, spec, options, builtinKernels(), &database));
}

std::string defaultAttentionVariant() {
    const KernelFamily* planner = builtinKernels().planning(ModelCall::Attention);
    return planner ? planner->variants().front().name : std::string();
}

BackendCheck backendCheck(const std::string& configPath, const std::optional<std::string>& configText, const std::string& deviceList,
                          const std::vector<std::int64_t>& batches, const std::vector<std::int64_t>& seqs, bool train) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    ModelConfig model = readModelConfig(configPath, configText);
    std::vector<DeviceSpec> devices;
    for (const auto& id : splitIds(deviceList.empty() ? kDefaultBackendDevices : deviceList))
        devices.push_back(orUsageError(resolveDevice(id, database)));
    if (devices.empty()) throw UsageError{"--devices: give device ids, comma-separated"};
    const KernelRegistry& kernels = builtinKernels();
    BackendMatrixOptions options;
    options.batches = batches;
    options.seqs = seqs;
    options.train = train;
    BackendMatrix matrix = orUsageError(backendMatrix(backendModel(model, kernels), devices, options, kernels));
    return {std::move(model), std::move(matrix)};
}

// ---- traces

Trace openTrace(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
    KinetoImportOptions options;
    options.progress = progress;
    auto trace = openTraceFile(path, builtinKernels(), options);
    if (!trace) throw UsageError{trace.error()};
    return std::move(trace).value();
}

ordered_json traceSummaryJson(const Trace& t, const std::vector<Calibration>& calibrations, bool cliffs) {
    const DeviceDatabase& database = DeviceDatabase::embedded();
    ordered_json j = traceSummaryToJson(t);
    ordered_json achieved = rooflineFiguresToJson(t, builtinKernels(), database, calibrations);
    if (!achieved.empty()) j["achieved"] = std::move(achieved);
    if (cliffs) j["cliffs"] = cliffsToJson(t, builtinKernels(), database, calibrations);
    return j;
}

namespace {
ordered_json findingToJson(const LaunchConfigFinding& f) {
    auto optional = [](const auto& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    ordered_json j;
    j["name"] = f.name;
    j["device"] = f.device;
    j["grid"] = {f.grid.x, f.grid.y, f.grid.z};
    j["block"] = {f.block.x, f.block.y, f.block.z};
    j["registers"] = optional(f.registers);
    j["shared_memory"] = optional(f.sharedMemory);
    j["kineto_occupancy_pct"] = optional(f.kinetoOccupancyPct);
    j["occupancy_pct"] = optional(f.occupancyPct);
    j["est_achieved_occupancy_pct"] = optional(f.estAchievedOccupancyPct);
    j["limiter"] = f.limiter.empty() ? ordered_json(nullptr) : ordered_json(f.limiter);
    j["violation"] = f.violation.empty() ? ordered_json(nullptr) : ordered_json(f.violation);
    j["count"] = f.count;
    return j;
}
}  // namespace

ordered_json kinetoImportJson(const std::string& file, const KinetoImport& k) {
    ordered_json j;
    j["file"] = file;
    j["bytes"] = k.bytes;
    j["events"] = k.eventCount;
    ordered_json devices = ordered_json::array();
    for (const auto& d : k.devices)
        devices.push_back({{"ordinal", d.ordinal},
                           {"id", d.spec.id},
                           {"name", d.spec.name},
                           {"compute_capability", d.checkable ? ordered_json(d.spec.computeCapability.toString()) : ordered_json(nullptr)},
                           {"checked", d.checkable},
                           {"filled_from_architecture_table", d.filled},
                           {"why_not_checked", d.checkable ? ordered_json(nullptr) : ordered_json(d.why)}});
    j["devices"] = devices;
    j["kernels"] = k.kernelCount;
    j["distinct_configurations"] = k.distinctConfigurations;
    j["linked_launches"] = k.linkedLaunches;
    j["unchecked_kernels"] = k.uncheckedKernels;
    ordered_json violations = ordered_json::array(), corrections = ordered_json::array();
    for (const auto& f : k.launchViolations) violations.push_back(findingToJson(f));
    for (const auto& f : k.occupancyCorrections) corrections.push_back(findingToJson(f));
    j["launch_violations"] = violations;
    j["occupancy_corrections"] = corrections;
    j["notes"] = k.notes;
    return j;
}

KinetoImport importKineto(const std::string& file, const std::string& device, bool keepRecords,
                          const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
    KinetoImportOptions options;
    options.progress = progress;
    options.keepRecords = keepRecords;
    if (!device.empty()) {
        auto resolved = resolveDevice(device, DeviceDatabase::embedded());
        if (!resolved) throw UsageError{resolved.error()};
        options.assumedDevice = std::move(resolved).value();
    }
    auto imported = importKinetoFile(file, options);
    if (!imported) throw UsageError{imported.error()};
    return std::move(imported).value();
}

}  // namespace tilescope::frontend

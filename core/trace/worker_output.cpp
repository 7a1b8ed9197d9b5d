#include "core/trace/worker_output.h"

#include <memory>

#include "core/trace/json_io.h"

namespace tilescope {

namespace {

using nlohmann::ordered_json;

template <typename T>
std::optional<T> optionalField(const ordered_json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    return j[key].get<T>();
}

Dim3 dimField(const ordered_json& j, const char* key) {
    if (!j.contains(key) || !j[key].is_array() || j[key].size() != 3) return {0, 0, 0};
    return {j[key][0].get<std::int64_t>(), j[key][1].get<std::int64_t>(), j[key][2].get<std::int64_t>()};
}

CudaOutcome outcomeField(const ordered_json& j, const char* key) {
    CudaOutcome o;
    if (!j.contains(key) || !j[key].is_object()) return o;
    o.errorName = j[key].value("name", o.errorName);
    o.errorText = j[key].value("text", o.errorText);
    o.code = j[key].value("code", 0);
    return o;
}

}  // namespace

Result<Run> runFromWorkerJson(const ordered_json& j, const KernelRegistry& registry) {
    try {
        if (!j.is_object() || !j.contains("kernel") || !j.contains("plan"))
            return Error{"worker output: an object with \"kernel\" and \"plan\" expected"};
        auto kernel = resolveKernel(registry, j["kernel"].get<std::string>(), j.value("variant", std::string()));
        if (!kernel) return Error{"worker output: " + kernel.error()};
        const ParameterList& parameters = kernel->family->parameters();
        auto strings = std::make_shared<StringPool>();
        auto plan = planFromJson(j["plan"], parameters, *strings, "/plan");
        if (!plan) return Error{"worker output: " + plan.error()};
        if (!j.contains("launch")) {  // the planner refused: nothing ran
            Run run = Run::predicted(*plan, parameters);
            run.strings = strings;
            return run;
        }
        GpuOutcome gpu;
        gpu.deviceName = j.value("device", std::string());
        gpu.launch = outcomeField(j, "launch");
        gpu.synchronize = outcomeField(j, "synchronize");
        StringInterner kernelNames;  // a run's repeats share their kernel's name
        if (j.contains("records"))
            for (const auto& r : j["records"]) {
                KernelRecord record;
                record.name = kernelNames.intern(r.value("name", std::string()));
                record.startNs = r.value("start_ns", std::int64_t{0});
                record.endNs = r.value("end_ns", std::int64_t{0});
                record.device = r.value("device", 0);
                record.stream = r.value("stream", std::int64_t{0});
                record.correlationId = r.value("correlation_id", std::int64_t{0});
                record.externalId = optionalField<std::int64_t>(r, "external_id");
                record.grid = dimField(r, "grid");
                record.block = dimField(r, "block");
                // The key recordToJson writes; "registers" was read here before, and lost every count.
                record.registersPerThread = optionalField<int>(r, "registers_per_thread");
                record.staticSmem = optionalField<std::int64_t>(r, "static_smem");
                record.dynamicSmem = optionalField<std::int64_t>(r, "dynamic_smem");
                record.localMemoryPerThread = optionalField<std::int64_t>(r, "local_memory_per_thread");
                record.shmemLimitConfig = optionalField<int>(r, "shmem_limit_config");
                gpu.records.push_back(std::move(record));
            }
        if (j.contains("check") && j["check"].is_object())
            gpu.check = ReferenceCheck{j["check"].value("max_relative_error", 0.0), j["check"].value("bound", 0.0),
                                       j["check"].value("passed", false)};
        if (j.contains("timing_us") && j["timing_us"].is_object()) {
            const auto& t = j["timing_us"];
            gpu.timing = Timing{t.value("repeats", 0),
                                t.value("min", 0.0),
                                t.value("median", 0.0),
                                t.value("mean", 0.0),
                                t.value("source", std::string("events")),
                                t.value("l2_flushed", false)};
        }
        Run run = Run::measured(*plan, parameters, std::move(gpu));
        run.strings = strings;
        return run;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("worker output: ") + e.what()};
    }
}

Run failedWorkerRun(const LaunchPlan& plan, const ParameterList& parameters, const std::string& reason) {
    GpuOutcome gpu;
    gpu.launch = CudaOutcome{std::string(kWorkerFailedName), reason, kWorkerFailedCode};
    return Run::measured(plan, parameters, std::move(gpu));
}

}  // namespace tilescope

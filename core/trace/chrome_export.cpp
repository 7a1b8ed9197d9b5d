#include "core/trace/chrome_export.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/trace/json_io.h"

namespace tilescope {

using nlohmann::ordered_json;

std::string formatMicros(std::int64_t ns) {
    const bool negative = ns < 0;
    const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string fraction = std::to_string(magnitude % 1000);
    fraction.insert(0, 3 - fraction.size(), '0');
    return (negative ? "-" : "") + std::to_string(magnitude / 1000) + "." + fraction;
}

namespace {

// The device ordinal a plan's device id names ("local:1" -> 1); others draw on process 0.
int ordinalOf(const std::string& deviceId) {
    const auto colon = deviceId.rfind(':');
    if (colon == std::string::npos) return 0;
    try {
        return std::stoi(deviceId.substr(colon + 1));
    } catch (...) {
        return 0;
    }
}

ordered_json planArgs(const Run& run) {
    const LaunchPlan& p = run.plan;
    ordered_json j;
    j["kernel"] = p.family;
    j["variant"] = p.variant;
    j["shape"] = formatShape(p.shape, run.parameters);
    j["device"] = p.deviceId;
    j["verdict"] = verdictName(p.verdict);
    j["grid"] = {p.grid.x, p.grid.y, p.grid.z};
    j["block"] = {p.block.x, p.block.y, p.block.z};
    j["static_smem"] = p.staticSmem;
    j["dynamic_smem"] = p.dynamicSmem;
    j["registers"] = p.registers ? ordered_json(*p.registers) : ordered_json(nullptr);
    j["occupancy_pct"] = p.occupancy ? ordered_json(p.occupancy->occupancyPct) : ordered_json(nullptr);
    if (!p.message.empty()) j["message"] = p.message;
    // The call's later kernels (split-KV's combine), so each of its records shows the whole call.
    if (!p.extraLaunches.empty()) {
        ordered_json then = ordered_json::array();
        for (const ExtraLaunch& e : p.extraLaunches)
            if (e.chosenByLibrary())  // the library's kernel: its own records carry its launch
                then.push_back({{"role", e.role}, {"library", e.library}});
            else
                then.push_back({{"role", e.role},
                                {"kernel_symbol", e.kernelSymbol},
                                {"grid", {e.grid.x, e.grid.y, e.grid.z}},
                                {"block", {e.block.x, e.block.y, e.block.z}},
                                {"dynamic_smem", e.dynamicSmem},
                                {"registers", e.registers ? ordered_json(*e.registers) : ordered_json(nullptr)}});
        j["then"] = std::move(then);
    }
    return j;
}

ordered_json recordArgs(const KernelRecord& r) {
    ordered_json j;
    if (r.grid.x > 0 && r.grid.y > 0 && r.grid.z > 0) j["grid"] = {r.grid.x, r.grid.y, r.grid.z};
    if (r.block.x > 0 && r.block.y > 0 && r.block.z > 0) j["block"] = {r.block.x, r.block.y, r.block.z};
    if (r.registersPerThread) j["registers per thread"] = *r.registersPerThread;
    if (r.sharedMemory) j["shared memory"] = *r.sharedMemory;
    if (r.staticSmem) j["static shared memory"] = *r.staticSmem;
    if (r.dynamicSmem) j["dynamic shared memory"] = *r.dynamicSmem;
    if (r.localMemoryPerThread) j["local memory per thread"] = *r.localMemoryPerThread;
    j["correlation"] = r.correlationId;
    if (r.externalId) j["External id"] = *r.externalId;
    if (r.kinetoOccupancyPct) j["est. achieved occupancy % (Kineto)"] = *r.kinetoOccupancyPct;
    if (!r.launchApi.empty()) j["launched by"] = r.launchApi;
    return j;
}

class ChromeWriter {
public:
    explicit ChromeWriter(std::ostream& out) : m_out(out) { m_out << "{\"traceEvents\": [\n"; }

    void event(const std::string& body) {
        m_out << (m_first ? "" : ",\n") << '{' << body << '}';
        m_first = false;
    }
    void finish() { m_out << "\n],\n\"displayTimeUnit\": \"ns\"\n}\n"; }

private:
    std::ostream& m_out;
    bool m_first = true;
};

std::string kernelEvent(const KernelRecord& r, const ordered_json& args) {
    return "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": " + ordered_json(r.name).dump() + ", \"pid\": " + std::to_string(r.device) +
           ", \"tid\": " + std::to_string(r.stream) + ", \"ts\": " + formatMicros(r.startNs) +
           ", \"dur\": " + formatMicros(r.durationNs()) + ", \"args\": " + args.dump();
}

}  // namespace

void writeChromeTrace(const Trace& trace, std::ostream& out) {
    // Processes (devices) and threads (streams) first, named through metadata events.
    std::set<int> devices;
    std::set<std::pair<int, std::int64_t>> streams;
    auto note = [&](int device, std::int64_t stream) {
        devices.insert(device);
        streams.insert({device, stream});
    };
    // Failed launches have no stream: their own track, on a thread id no CUDA stream handle takes
    // (Perfetto wants non-negative ids).
    constexpr std::int64_t kLaunchThread = 0x7fffffff;
    for (const auto& run : trace.runs) {
        if (!run.gpu) continue;
        for (const auto& r : run.gpu->records) note(r.device, r.stream);
        if (!run.gpu->launch.ok() || !run.gpu->synchronize.ok()) note(ordinalOf(run.plan.deviceId), kLaunchThread);
    }
    for (const auto& r : trace.records) note(r.device, r.stream);

    ChromeWriter writer(out);
    for (int device : devices) {
        const DeviceSpec* spec = trace.deviceForRecord(device);
        const std::string name = "GPU " + std::to_string(device) + (spec ? ": " + spec->name : "");
        writer.event("\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(device) +
                     ", \"tid\": 0, \"args\": {\"name\": " + ordered_json(name).dump() + "}");
        writer.event("\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " + std::to_string(device) +
                     ", \"tid\": 0, \"args\": {\"sort_index\": " + std::to_string(device) + "}");
    }
    for (const auto& [device, stream] : streams) {
        const std::string name = stream == kLaunchThread ? "failed launches" : "stream " + std::to_string(stream);
        writer.event("\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(device) +
                     ", \"tid\": " + std::to_string(stream) + ", \"args\": {\"name\": " + ordered_json(name).dump() + "}");
    }

    // A failed launch left no record: it is drawn where that device's timeline had got to.
    std::map<int, std::int64_t> cursor;
    for (const auto& run : trace.runs) {
        if (!run.gpu) continue;
        const ordered_json plan = planArgs(run);
        for (const auto& r : run.gpu->records) {
            ordered_json args = recordArgs(r);
            args["plan"] = plan;
            writer.event(kernelEvent(r, args));
            cursor[r.device] = std::max(cursor[r.device], r.endNs);
        }
        const CudaOutcome* failure = !run.gpu->launch.ok()        ? &run.gpu->launch
                                     : !run.gpu->synchronize.ok() ? &run.gpu->synchronize
                                                                  : nullptr;
        if (failure) {
            const int device = ordinalOf(run.plan.deviceId);
            ordered_json args;
            args["cuda_error"] = {{"name", failure->errorName}, {"code", failure->code}, {"text", failure->errorText}};
            args["failed_in"] = failure == &run.gpu->launch ? "launch" : "synchronize";
            args["plan"] = plan;
            const std::string name =
                std::string(run.plan.kernelSymbol.empty() ? run.plan.family : run.plan.kernelSymbol) + ": " + failure->errorName;
            writer.event("\"ph\": \"i\", \"s\": \"t\", \"cat\": \"failed launch\", \"name\": " + ordered_json(name).dump() +
                         ", \"pid\": " + std::to_string(device) + ", \"tid\": " + std::to_string(kLaunchThread) +
                         ", \"ts\": " + formatMicros(cursor[device]) + ", \"args\": " + args.dump());
        }
    }
    for (const auto& r : trace.records) writer.event(kernelEvent(r, recordArgs(r)));
    writer.finish();
}

std::string chromeTraceText(const Trace& trace) {
    std::ostringstream out;
    writeChromeTrace(trace, out);
    return out.str();
}

}  // namespace tilescope

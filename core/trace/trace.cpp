#include "core/trace/trace.h"

#include <algorithm>

#include "core/model/build_info.h"

namespace tilescope {

BuildInfo BuildInfo::current() {
    BuildInfo info;
    info.toolVersion = TILESCOPE_VERSION;
    info.gitRevision = tilescope::gitRevision();
#ifdef TILESCOPE_CUDA_TOOLKIT_VERSION
    info.cudaVersion = TILESCOPE_CUDA_TOOLKIT_VERSION;  // the toolkit built against (ptxas register tables)
#endif
    return info;
}

std::string_view StringPool::intern(std::string_view text) {
    if (text.empty()) return {};
    return m_strings.emplace_back(text);
}

std::string_view runKindName(RunKind kind) { return kind == RunKind::Measured ? "measured" : "predicted"; }

Run Run::predicted(const LaunchPlan& plan, const ParameterList& parameters) {
    Run run;
    run.kind = RunKind::Predicted;
    run.parameters = parameters;
    run.plan = plan;
    return run;
}

Run Run::measured(const LaunchPlan& plan, const ParameterList& parameters, GpuOutcome gpu) {
    Run run = predicted(plan, parameters);
    run.kind = RunKind::Measured;
    run.gpu = std::move(gpu);
    return run;
}

void Trace::addDevice(const DeviceSpec& device) {
    if (!findDevice(device.id)) devices.push_back(device);
}

const DeviceSpec* Trace::findDevice(std::string_view id) const {
    auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceSpec& d) { return d.id == id; });
    return it == devices.end() ? nullptr : &*it;
}

const DeviceSpec* Trace::deviceForRecord(int ordinal) const {
    const std::string suffix = ":" + std::to_string(ordinal);
    for (const char* prefix : {"local", "kineto"})
        if (const auto* d = findDevice(prefix + suffix)) return d;
    return nullptr;
}

}  // namespace tilescope

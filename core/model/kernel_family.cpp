#include "core/model/kernel_family.h"

#include "core/model/device_spec.h"

namespace tilescope {

int KernelFamily::variantIndex(std::string_view variantName) const {
    const auto& list = variants();
    for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].name == variantName) return static_cast<int>(i);
    return -1;
}

std::string KernelFamily::refusalFor(const LaunchPlan& plan, std::string_view /*function*/) const { return plan.message; }

LaunchPlan KernelFamily::startPlan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan;
    plan.family = name();
    plan.variant = variants()[static_cast<std::size_t>(variant)].name;
    if (detail == PlanDetail::Full) plan.deviceId = device.id;
    plan.shape = shape;
    return plan;
}

void KernelRegistry::add(std::unique_ptr<KernelFamily> family) { m_families.push_back(std::move(family)); }

const KernelFamily* KernelRegistry::find(std::string_view name) const {
    for (const auto& family : m_families)
        if (family->name() == name) return family.get();
    return nullptr;
}

const KernelFamily* KernelRegistry::launchFiguresFamily() const {
    for (const auto& family : m_families)
        if (family->launchFigureParameters()) return family.get();
    return nullptr;
}

const KernelFamily* KernelRegistry::planning(ModelCall call) const {
    if (call == ModelCall::None) return nullptr;
    for (const auto& family : m_families)
        if (family->modelCall() == call) return family.get();
    return nullptr;
}

std::string KernelRegistry::names() const {
    std::string out;
    for (const auto& family : m_families) out += (out.empty() ? "" : ", ") + std::string(family->name());
    return out;
}

Result<KernelChoice> resolveKernel(const KernelRegistry& registry, std::string_view family, std::string_view variant) {
    const KernelFamily* found = registry.find(family);
    if (!found) return makeError("unknown kernel '" + std::string(family) + "'; kernels: " + registry.names());
    if (variant.empty()) return KernelChoice{found, 0};
    const int index = found->variantIndex(variant);
    if (index < 0) {
        std::string accepted;
        for (const auto& v : found->variants()) accepted += (accepted.empty() ? "" : ", ") + v.name;
        return makeError("unknown variant '" + std::string(variant) + "' of " + std::string(family) + "; variants: " + accepted);
    }
    return KernelChoice{found, index};
}

}  // namespace tilescope

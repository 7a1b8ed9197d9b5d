#include "core/kernel_resources.h"

namespace tilescope {

std::optional<KernelResources> KernelResourceTable::find(std::string_view symbol, ComputeCapability cc) const {
    const KernelResourceEntry* best = nullptr;
    const int wanted = cc.smVersion();
    for (const auto& entry : m_entries) {
        if (entry.symbol != symbol || entry.smVersion / 10 != cc.major || entry.smVersion > wanted) continue;
        if (!best || entry.smVersion > best->smVersion) best = &entry;
    }
    if (!best) return std::nullopt;
    return best->resources;
}

}  // namespace tilescope

#include "core/kernel_resources.h"

namespace tilescope {

KernelResourceTable::KernelResourceTable(std::span<const KernelResourceEntry> entries) : m_entries(entries) {
    for (const auto& entry : m_entries) m_bySymbol[entry.symbol].push_back(&entry);
}

std::optional<KernelResources> KernelResourceTable::find(std::string_view symbol, ComputeCapability cc) const {
    const auto found = m_bySymbol.find(symbol);
    if (found == m_bySymbol.end()) return std::nullopt;
    const KernelResourceEntry* best = nullptr;
    const int wanted = cc.smVersion();
    for (const KernelResourceEntry* entryPointer : found->second) {
        const KernelResourceEntry& entry = *entryPointer;
        if (entry.smVersion / 10 != cc.major || entry.smVersion > wanted) continue;
        if (!best || entry.smVersion > best->smVersion) best = &entry;
    }
    if (!best) return std::nullopt;
    return best->resources;
}

}  // namespace tilescope

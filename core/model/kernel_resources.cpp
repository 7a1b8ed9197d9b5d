#include "core/model/kernel_resources.h"

#include <algorithm>

#include <array>
#include <atomic>

namespace tilescope {

namespace {

std::uint64_t nextTableId() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

// A sweep asks for the same one to four symbols on one device for every cell; hashing the
// (long, mangled-length) symbol each time cost more than the rest of the lookup. The memo keeps
// a thread's last few answers; `symbol` views the name in the table's entries and is only read
// after the table id matched, that is while a table over those entries is alive.
struct LookupMemo {
    std::uint64_t tableId = 0;
    int smVersion = 0;
    std::string_view symbol;
    std::optional<KernelResources> resources;
};

}  // namespace

KernelResourceTable::KernelResourceTable() : m_id(nextTableId()) {}

KernelResourceTable::KernelResourceTable(std::span<const KernelResourceEntry> entries) : m_entries(entries), m_id(nextTableId()) {
    for (const auto& entry : m_entries) m_bySymbol[entry.symbol].push_back(&entry);
}

std::optional<KernelResources> KernelResourceTable::find(std::string_view symbol, ComputeCapability cc) const {
    constexpr std::size_t kMemoEntries = 4;
    thread_local std::array<LookupMemo, kMemoEntries> memo;
    thread_local std::size_t nextMemo = 0;
    const int wanted = cc.smVersion();
    for (const LookupMemo& m : memo)
        if (m.tableId == m_id && m.smVersion == wanted && m.symbol == symbol) return m.resources;

    const auto found = m_bySymbol.find(symbol);
    if (found == m_bySymbol.end()) return std::nullopt;
    const std::optional<KernelResources> resources = lookUp(found->second, cc);
    memo[nextMemo] = {m_id, wanted, found->first, resources};
    nextMemo = (nextMemo + 1) % kMemoEntries;
    return resources;
}

std::vector<int> KernelResourceTable::compiledSmVersions(std::string_view symbol) const {
    std::vector<int> versions;
    if (const auto found = m_bySymbol.find(symbol); found != m_bySymbol.end())
        for (const KernelResourceEntry* entry : found->second) versions.push_back(entry->smVersion);
    std::sort(versions.begin(), versions.end());
    versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
    return versions;
}

std::optional<KernelResources> KernelResourceTable::lookUp(const std::vector<const KernelResourceEntry*>& candidates,
                                                           ComputeCapability cc) {
    const KernelResourceEntry* best = nullptr;
    const int wanted = cc.smVersion();
    for (const KernelResourceEntry* entryPointer : candidates) {
        const KernelResourceEntry& entry = *entryPointer;
        if (entry.smVersion / 10 != cc.major || entry.smVersion > wanted) continue;
        if (!best || entry.smVersion > best->smVersion) best = &entry;
    }
    if (!best) return std::nullopt;
    return best->resources;
}

}  // namespace tilescope

// Per-kernel, per-architecture resources reported by the compiler (ptxas --resource-usage).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/device_spec.h"

namespace tilescope {

struct KernelResources {
    int registers = 0;
    std::int64_t staticSmem = 0;
    std::int64_t localBytes = 0;  // stack frame
    std::int64_t spillStoreBytes = 0;
    std::int64_t spillLoadBytes = 0;
};

struct KernelResourceEntry {
    std::string_view symbol;  // LaunchPlan::kernelSymbol
    int smVersion = 0;        // 89 for sm_89
    KernelResources resources;
};

class KernelResourceTable {
public:
    KernelResourceTable();
    explicit KernelResourceTable(std::span<const KernelResourceEntry> entries);

    // The SASS the driver would load: the exact arch, else the highest compiled arch of the same
    // major below it (sm_87 runs sm_86 code). nullopt: not compiled for this device.
    std::optional<KernelResources> find(std::string_view symbol, ComputeCapability cc) const;
    // The archs `symbol` was compiled for, oldest first (sm versions: 75, 80, ...); empty when the table
    // does not hold it. The newest is also in the fatbinary as PTX, which the driver JITs for newer GPUs.
    std::vector<int> compiledSmVersions(std::string_view symbol) const;
    std::span<const KernelResourceEntry> entries() const { return m_entries; }
    bool empty() const { return m_entries.empty(); }

private:
    // The entry for `cc` among one symbol's entries.
    static std::optional<KernelResources> lookUp(const std::vector<const KernelResourceEntry*>& candidates, ComputeCapability cc);

    std::span<const KernelResourceEntry> m_entries;
    // Names this table's contents in each thread's memo of recent answers (find()); never reused.
    std::uint64_t m_id = 0;
    // Entries grouped by symbol: a sweep looks a symbol up for every cell.
    std::unordered_map<std::string_view, std::vector<const KernelResourceEntry*>> m_bySymbol;
};

}  // namespace tilescope

#include "core/trace/record_flags.h"

#include <cmath>
#include <map>
#include <tuple>

#include "core/trace/kineto_checks.h"

namespace tilescope {

std::vector<RecordFlags> flagRecords(const Trace& trace, const std::vector<KernelRecord>& records) {
    KinetoImport context;
    for (const auto& r : records) {
        bool known = false;
        for (const auto& d : context.devices) known = known || d.ordinal == r.device;
        if (known) continue;
        if (const DeviceSpec* spec = trace.deviceForRecord(r.device)) {
            KinetoDevice device;
            device.ordinal = r.device;
            device.spec = *spec;
            device.checkable = true;
            context.devices.push_back(device);
        }
    }
    // One check per distinct configuration, as the import does.
    using Key =
        std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, std::int64_t, double>;
    std::map<Key, std::size_t> index;
    std::vector<LaunchConfigFinding> configs;
    std::vector<std::size_t> configOf;
    configOf.reserve(records.size());
    for (const auto& r : records) {
        std::optional<std::int64_t> smem = r.sharedMemory;
        if (!smem && (r.staticSmem || r.dynamicSmem)) smem = r.staticSmem.value_or(0) + r.dynamicSmem.value_or(0);
        const Key key{r.device,          r.grid.x,
                      r.grid.y,          r.grid.z,
                      r.block.x,         r.block.y,
                      r.block.z,         r.registersPerThread.value_or(-1),
                      smem.value_or(-1), r.kinetoOccupancyPct.value_or(-1.0)};
        auto [it, inserted] = index.try_emplace(key, configs.size());
        if (inserted) configs.push_back(launchConfigOf(r, smem));
        configs[it->second].count += 1;
        configOf.push_back(it->second);
    }
    checkLaunchConfigurations(configs, std::nullopt, context);

    std::vector<RecordFlags> flags(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const LaunchConfigFinding& c = configs[configOf[i]];
        RecordFlags& f = flags[i];
        f.violation = c.violation;
        f.occupancyPct = c.occupancyPct;
        f.estAchievedOccupancyPct = c.estAchievedOccupancyPct;
        f.checked = c.occupancyPct.has_value() || !c.violation.empty();
        f.occupancyCorrected = c.kinetoOccupancyPct && c.estAchievedOccupancyPct &&
                               std::abs(*c.kinetoOccupancyPct - *c.estAchievedOccupancyPct) > kOccupancyTolerancePct;
    }
    return flags;
}

}  // namespace tilescope

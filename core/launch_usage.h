// LaunchUsage: each launch figure of a plan next to the device limit it is checked against,
// in the order the runtime checks them (what the GUI's Launch page draws as bars).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/launch_plan.h"

namespace tilescope {

struct DeviceSpec;

struct LaunchUsage {
    std::string label;               // "grid.y"
    std::string limitName;           // "max_grid_dim_y"; empty when the figure has no limit
    std::optional<double> value;     // nullopt: unknown (e.g. registers before the ptxas table)
    std::optional<double> limit;     // nullopt: no device limit applies
    std::string unit;                // "bytes", "blocks", ...
    bool over() const { return value && limit && *value > *limit; }
    // value / limit, nullopt when either is unknown or the limit is zero.
    std::optional<double> fraction() const;
};

// Grid, block, threads, static/dynamic/total shared memory, registers per thread and per
// block, and waves. Limits follow core/launch_checks.cpp (the opt-in ceiling only when the
// plan opts in).
std::vector<LaunchUsage> launchUsage(const LaunchPlan& plan, const DeviceSpec& device);

}  // namespace tilescope

// LaunchUsage: each launch figure of a plan next to the device limit it is checked against,
// in the order the runtime checks them (what the GUI's Launch page draws as bars).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/launch_plan.h"

namespace tilescope {

struct DeviceSpec;

struct LaunchUsage {
    std::string label;                   // "grid.y"
    std::string limitName;               // "max_grid_dim_y"; empty when the figure has no limit
    std::optional<double> value;         // nullopt: unknown (e.g. registers before the ptxas table)
    std::optional<double> limit;         // nullopt: no device limit applies
    std::string unit;                    // "bytes", "blocks", ...
    std::string unknownWhy = {};         // why value is unknown, in words ("needs the register count")
    std::optional<double> minimum = {};  // grid and block dimensions must be at least 1
    bool over() const { return value && limit && *value > *limit; }
    bool under() const { return value && minimum && *value < *minimum; }
    bool fails() const { return over() || under(); }
    // value / limit, nullopt when either is unknown or the limit is zero.
    std::optional<double> fraction() const;
    // fraction() as a percentage with enough decimals that a figure over its limit never reads as
    // 100.0 % (65,536 of 65,535 is "100.002 %"); empty when fraction() is unknown.
    std::string percentText() const;
};

// Grid, block, threads, static/dynamic/total shared memory, registers per thread and per
// block, and waves. Limits follow core/model/launch_checks.cpp (the opt-in ceiling only when the
// plan opts in). Empty when the plan has no launch (LaunchPlan::hasLaunch).
std::vector<LaunchUsage> launchUsage(const LaunchPlan& plan, const DeviceSpec& device);

// The limit a failing plan hit, in words, for every front-end: "max_grid_dim_y = 65,535, actual
// 86,016"; a divisibility check ("group_size % 32") says what it needs and by how much it misses:
// "group_size must be a multiple of 32, actual 138 (138 % 32 = 10)" (it read "group_size % 32 = 32").
std::string describeLimit(const LimitHit& hit);

// The shared memory a plan refused before it set a launch, as the Shared memory page draws it (one
// bar of the bytes asked for): the limit hit when it is a shared-memory one (its name holds "smem":
// static_smem_per_block, smem_per_block_optin ...); none when the refusal is about something else or
// the plan has a launch (its own figures say it). 65,536 B of static shared memory read
// "static 0 B + dynamic 0 B" (issue 31 item 4).
std::optional<LimitHit> refusedSharedMemory(const LaunchPlan& plan);

}  // namespace tilescope

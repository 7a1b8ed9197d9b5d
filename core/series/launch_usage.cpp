#include "core/series/launch_usage.h"

#include <cstdio>
#include <cstdlib>

#include "core/model/device_spec.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

// Mirrors kRegisterAllocationUnit of core/model/launch_checks.cpp: registers are granted per warp
// in units of 256 (cuda_occupancy.h, cudaOccRegAllocationGranularity for cc >= 7.5).
constexpr std::int64_t kRegisterAllocationUnit = 256;

std::optional<double> known(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

std::optional<double> LaunchUsage::fraction() const {
    if (!value || !limit || *limit <= 0.0) return std::nullopt;
    return *value / *limit;
}

std::string LaunchUsage::percentText() const {
    const auto f = fraction();
    if (!f) return {};
    const double pct = *f * 100.0;
    int decimals = pct < 1.0 ? 3 : 1;
    char text[64];
    for (;; ++decimals) {
        std::snprintf(text, sizeof text, "%.*f %%", decimals, pct);
        // Stop once the rounded text keeps the side of the limit the figure is on.
        const double shown = std::strtod(text, nullptr);
        const bool sameSide = over() ? shown > 100.0 : (shown <= 100.0);
        if (sameSide || decimals >= 9) break;
    }
    return text;
}

std::vector<LaunchUsage> launchUsage(const LaunchPlan& plan, const DeviceSpec& device) {
    std::vector<LaunchUsage> rows;
    if (!plan.hasLaunch()) return rows;
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    const std::int64_t grid[] = {plan.grid.x, plan.grid.y, plan.grid.z};
    const std::int64_t block[] = {plan.block.x, plan.block.y, plan.block.z};
    // A zero dimension is refused like an oversized one (core/model/launch_checks.cpp, min_grid_dim_*).
    for (std::size_t i = 0; i < 3; ++i)
        rows.push_back({std::string("grid.") + kAxes[i],
                        std::string("max_grid_dim_") + kAxes[i],
                        known(grid[i]),
                        known(device.maxGridDim[i]),
                        "blocks",
                        {},
                        1.0});
    for (std::size_t i = 0; i < 3; ++i)
        rows.push_back({std::string("block.") + kAxes[i],
                        std::string("max_block_dim_") + kAxes[i],
                        known(block[i]),
                        known(device.maxBlockDim[i]),
                        "threads",
                        {},
                        1.0});
    rows.push_back(
        {"threads per block", "max_threads_per_block", known(plan.threadsPerBlock()), known(device.maxThreadsPerBlock), "threads"});

    const std::int64_t smemLimit = plan.optsIntoLargeSmem ? device.smemPerBlockOptin : device.smemPerBlock;
    const std::string smemLimitName = plan.optsIntoLargeSmem ? "smem_per_block_optin" : "smem_per_block";
    rows.push_back({"static shared memory", "smem_per_block", known(plan.staticSmem), known(device.smemPerBlock), "bytes"});
    rows.push_back(
        {"dynamic shared memory", smemLimitName + " - static", known(plan.dynamicSmem), known(smemLimit - plan.staticSmem), "bytes"});
    rows.push_back({"shared memory per block", smemLimitName, known(plan.totalSmem()), known(smemLimit), "bytes"});

    LaunchUsage regs{"registers per thread", "max_regs_per_thread", std::nullopt, known(device.maxRegsPerThread), "registers"};
    LaunchUsage regsBlock{"registers per block", "regs_per_block", std::nullopt, known(device.regsPerBlock), "registers"};
    if (plan.registers) {
        regs.value = *plan.registers;
        const std::int64_t warps = (plan.threadsPerBlock() + device.warpSize - 1) / device.warpSize;
        const std::int64_t perWarp = (static_cast<std::int64_t>(*plan.registers) * device.warpSize + kRegisterAllocationUnit - 1) /
                                     kRegisterAllocationUnit * kRegisterAllocationUnit;
        regsBlock.value = static_cast<double>(perWarp * warps);
    } else {
        regs.unknownWhy = regsBlock.unknownWhy = "not in this build's ptxas register table";
    }
    rows.push_back(regs);
    rows.push_back(regsBlock);

    LaunchUsage waves{"waves", "", std::nullopt, std::nullopt, "waves"};
    if (plan.occupancy) waves.value = plan.occupancy->waves;
    else if (!plan.registers) waves.unknownWhy = "needs occupancy, which needs the register count";
    else if (plan.verdict != Verdict::Ok) waves.unknownWhy = "the launch fails (" + std::string(verdictName(plan.verdict)) + ")";
    else waves.unknownWhy = "not one block fits on an SM";
    rows.push_back(waves);
    return rows;
}

std::string describeLimit(const LimitHit& hit) {
    const std::string name(hit.name);
    const auto modulo = name.find(" % ");
    if (modulo == std::string::npos || hit.limit <= 0)
        return name + " = " + withThousands(hit.limit) + ", actual " + withThousands(hit.actual);
    // "N % group_size" names its divisor; "head_dim % 8" is its own divisor.
    const std::string divided = name.substr(0, modulo), divisor = name.substr(modulo + 3);
    const bool divisorIsANumber = divisor == std::to_string(hit.limit);
    return divided + " must be a multiple of " + (divisorIsANumber ? "" : divisor + " = ") + withThousands(hit.limit) + ", actual " +
           withThousands(hit.actual) + " (" + withThousands(hit.actual) + " % " + withThousands(hit.limit) + " = " +
           withThousands(hit.actual % hit.limit) + ")";
}

std::optional<LimitHit> refusedSharedMemory(const LaunchPlan& plan) {
    if (plan.hasLaunch() || !plan.limit || plan.limit->name.find("smem") == std::string_view::npos) return std::nullopt;
    return plan.limit;
}

}  // namespace tilescope

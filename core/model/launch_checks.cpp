#include "core/model/launch_checks.h"

#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"

namespace tilescope {

void failPlan(LaunchPlan& plan, Verdict verdict, LimitHit limit, int failingParameter, PlanDetail detail, std::string_view message) {
    plan.verdict = verdict;
    plan.limit = limit;
    plan.failingParameter = failingParameter;
    if (detail == PlanDetail::Full) plan.message = std::string(message);
}

LaunchRejection launchConfigurationRejection(int cudaRuntime) {
    if (cudaRuntime >= kFirstCudaRuntimeWithInvalidValueLaunch) return {kCudaErrorInvalidValue, kInvalidValueText};
    return {kCudaErrorInvalidConfiguration, kInvalidConfigurationText};
}

Result<int> parseCudaRuntime(std::string_view text) {
    for (const int choice : kCudaRuntimeChoices)
        if (text == std::to_string(choice)) return choice;
    std::string choices;
    for (const int choice : kCudaRuntimeChoices) choices += (choices.empty() ? "" : ", ") + std::to_string(choice);
    return makeError("unknown CUDA runtime '" + std::string(text) + "'; choices: " + choices +
                     " (the major version: launch errors differ between them)");
}

bool errorDependsOnCudaRuntime(const LaunchPlan& plan) {
    if (plan.verdict != Verdict::InvalidLaunch || !plan.limit) return false;
    const std::string_view name = plan.limit->name;
    return name.starts_with("max_grid_dim") || name.starts_with("min_grid_dim") || name.starts_with("max_block_dim") ||
           name == "max_threads_per_block";
}

std::string describeCudaError(const LaunchPlan& plan, int cudaRuntime) {
    if (!plan.cudaError) return {};
    auto named = [](const CudaErrorCode& e) { return std::string(e.name) + " (" + std::to_string(e.code) + ")"; };
    std::string text = named(*plan.cudaError);
    if (!errorDependsOnCudaRuntime(plan)) return text;
    text += " on the CUDA " + std::to_string(cudaRuntime) + " runtime";
    for (const int other : kCudaRuntimeChoices) {
        const CudaErrorCode error = launchConfigurationRejection(other).error;
        if (error.code != plan.cudaError->code) text += "; CUDA " + std::to_string(other) + ": " + named(error);
    }
    return text;
}

namespace {

constexpr int kRegisterAllocationUnit = 256;  // registers are allocated per warp in units of 256
// The hardware checks a block's registers as if its warps were spread evenly over the SM's register
// sub-partitions (cuda_occupancy.h cudaOccSubPartitionsPerMultiprocessor: 4 from cc 7.0).
constexpr std::int64_t kRegisterSubPartitions = 4;

bool checkBlock(LaunchPlan& plan, const DeviceSpec& device, PlanDetail detail) {
    static constexpr std::string_view kNames[] = {"max_block_dim_x", "max_block_dim_y", "max_block_dim_z"};
    const std::int64_t dims[] = {plan.block.x, plan.block.y, plan.block.z};
    for (std::size_t i = 0; i < 3; ++i) {
        if (dims[i] < 1 || dims[i] > device.maxBlockDim[i]) {
            const LaunchRejection rejection = launchConfigurationRejection(device.cudaRuntime);
            failPlan(plan, Verdict::InvalidLaunch, {kNames[i], device.maxBlockDim[i], dims[i]}, -1, detail, rejection.message);
            plan.cudaError = rejection.error;
            return false;
        }
    }
    if (plan.threadsPerBlock() > device.maxThreadsPerBlock) {
        const LaunchRejection rejection = launchConfigurationRejection(device.cudaRuntime);
        failPlan(plan, Verdict::InvalidLaunch, {"max_threads_per_block", device.maxThreadsPerBlock, plan.threadsPerBlock()}, -1, detail,
                 rejection.message);
        plan.cudaError = rejection.error;
        return false;
    }
    return true;
}

bool checkGrid(LaunchPlan& plan, const DeviceSpec& device, PlanDetail detail) {
    static constexpr std::string_view kMaxNames[] = {"max_grid_dim_x", "max_grid_dim_y", "max_grid_dim_z"};
    static constexpr std::string_view kMinNames[] = {"min_grid_dim_x", "min_grid_dim_y", "min_grid_dim_z"};
    const std::int64_t dims[] = {plan.grid.x, plan.grid.y, plan.grid.z};
    for (std::size_t i = 0; i < 3; ++i) {
        const bool tooSmall = dims[i] < 1;
        if (tooSmall || dims[i] > device.maxGridDim[i]) {
            const LimitHit hit = tooSmall ? LimitHit{kMinNames[i], 1, dims[i]} : LimitHit{kMaxNames[i], device.maxGridDim[i], dims[i]};
            const LaunchRejection rejection = launchConfigurationRejection(device.cudaRuntime);
            failPlan(plan, Verdict::InvalidLaunch, hit, plan.gridParameter[i], detail, rejection.message);
            plan.cudaError = rejection.error;
            return false;
        }
    }
    return true;
}

bool checkSharedMemory(LaunchPlan& plan, const DeviceSpec& device, PlanDetail detail) {
    // Without the opt-in attribute the launch may use the default limit only; with it, the
    // attribute itself is refused above smem_per_block_optin (cudaErrorInvalidValue, "invalid
    // argument", from cudaFuncSetAttribute on every runtime; sources in KERNELS.md "Corrections":
    // flash-attention hopper flash_fwd_launch_template.h, sglang issue #38980).
    const std::int64_t limit = plan.optsIntoLargeSmem ? device.smemPerBlockOptin : device.smemPerBlock;
    if (plan.totalSmem() <= limit) return true;
    failPlan(
        plan, Verdict::InvalidLaunch,
        {plan.optsIntoLargeSmem ? std::string_view("smem_per_block_optin") : std::string_view("smem_per_block"), limit, plan.totalSmem()},
        plan.smemParameter, detail, kInvalidValueText);
    plan.cudaError = kCudaErrorInvalidValue;
    return false;
}

bool checkRegisters(LaunchPlan& plan, const DeviceSpec& device, PlanDetail detail) {
    if (!plan.registers) return true;
    const std::int64_t warps = (plan.threadsPerBlock() + device.warpSize - 1) / device.warpSize;
    const std::int64_t perWarp = (static_cast<std::int64_t>(*plan.registers) * device.warpSize + kRegisterAllocationUnit - 1) /
                                 kRegisterAllocationUnit * kRegisterAllocationUnit;
    const std::int64_t checkedWarps = (warps + kRegisterSubPartitions - 1) / kRegisterSubPartitions * kRegisterSubPartitions;
    const std::int64_t perBlock = perWarp * checkedWarps;
    if (perBlock <= device.regsPerBlock) return true;
    failPlan(plan, Verdict::OutOfResources, {"regs_per_block", device.regsPerBlock, perBlock}, -1, detail, kOutOfResourcesText);
    plan.cudaError = kCudaErrorLaunchOutOfResources;
    return false;
}

// The driver loads a kernel's SASS for the device's arch (or an older one of the same major) or JITs
// the PTX of the newest arch for a newer GPU; with neither the launch fails. The bundled kernels are
// compiled for TILESCOPE_CUDA_ARCHS (sm_75 and newer: CUDA 13 compiles nothing older), so a P100
// (sm_60) or V100 (sm_70) planned as launching was wrong. A symbol the table does not hold (a
// model-only family, a build without the table) is not judged.
bool checkKernelImage(LaunchPlan& plan, const DeviceSpec& device, const KernelResourceTable& resources, PlanDetail detail) {
    if (plan.kernelSymbol.empty() || plan.registers) return true;  // registers found: the build has its SASS
    const std::vector<int> compiled = resources.compiledSmVersions(plan.kernelSymbol);
    const int sm = device.computeCapability.smVersion();
    if (compiled.empty() || sm > compiled.back()) return true;  // unknown, or JIT from the newest arch's PTX
    const int needed = sm < compiled.front() ? compiled.front() : compiled.back();
    failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", needed, sm}, -1, detail, kNoKernelImageText);
    plan.cudaError = kCudaErrorNoKernelImageForDevice;
    if (detail == PlanDetail::Full) {
        std::string archs;
        for (const int version : compiled) archs += (archs.empty() ? "sm_" : ", sm_") + std::to_string(version);
        plan.alternative = "this build's kernels are compiled for " + archs +
                           " (TILESCOPE_CUDA_ARCHS; CUDA 13 compiles nothing older than sm_75): plan it on a GPU of one of those "
                           "architectures";
    }
    return false;
}

bool checkMemory(LaunchPlan& plan, const DeviceSpec& device, PlanDetail detail) {
    if (plan.deviceMemoryBytes <= device.memoryBytes) return true;
    failPlan(plan, Verdict::OutOfMemory, {"memory_bytes", device.memoryBytes, plan.deviceMemoryBytes}, plan.memoryParameter, detail,
             kOutOfMemoryText);
    plan.cudaError = kCudaErrorMemoryAllocation;
    return false;
}

}  // namespace

void finishLaunch(LaunchPlan& plan, const DeviceSpec& device, const KernelResourceTable& resources, PlanDetail detail) {
    if (!plan.kernelSymbol.empty()) {
        if (auto found = resources.find(plan.kernelSymbol, device.computeCapability)) plan.registers = found->registers;
    }
    if (!checkKernelImage(plan, device, resources, detail) || !checkBlock(plan, device, detail) || !checkGrid(plan, device, detail) ||
        !checkSharedMemory(plan, device, detail) || !checkRegisters(plan, device, detail) || !checkMemory(plan, device, detail)) {
        return;
    }
    plan.verdict = Verdict::Ok;
    if (plan.registers) {
        Occupancy occupancy;
        const OccupancyInput input{static_cast<int>(plan.threadsPerBlock()),
                                   *plan.registers,
                                   plan.staticSmem,
                                   plan.dynamicSmem,
                                   plan.optsIntoLargeSmem,
                                   plan.grid.volume()};
        if (computeOccupancy(device, input, occupancy)) plan.occupancy = occupancy;
    }
}

}  // namespace tilescope

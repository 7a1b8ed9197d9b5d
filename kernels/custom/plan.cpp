#include "kernels/custom/plan.h"

#include <cstdio>

#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// Registers come from the shape, never from this build's ptxas table: an empty table leaves them
// as the planner set them.
const KernelResourceTable& noCompiledResources() {
    static const KernelResourceTable table;
    return table;
}

// The parameter a rejected launch figure moves along, so the fix finder walks the right axis.
int parameterOfLimit(std::string_view limit) {
    if (limit == "max_block_dim_x" || limit == "max_threads_per_block") return CustomFamily::BlockX;
    if (limit == "max_block_dim_y") return CustomFamily::BlockY;
    if (limit == "max_block_dim_z") return CustomFamily::BlockZ;
    if (limit == "regs_per_block") return CustomFamily::Registers;
    return -1;
}

}  // namespace

std::string tooMuchSharedDataText(std::string_view function, std::int64_t bytes, std::int64_t cap) {
    char figures[64];
    std::snprintf(figures, sizeof figures, "(0x%llx bytes, 0x%llx max)", static_cast<unsigned long long>(bytes),
                  static_cast<unsigned long long>(cap));
    return "ptxas error   : Entry function '" + std::string(function) + "' uses too much shared data " + figures;
}

const std::vector<VariantInfo>& CustomFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"launch",
         "one launch as given: grid, block, registers per thread, static and dynamic shared memory, opt-in",
         "any kernel: the figures ptxas -v, Nsight Compute or a PyTorch profiler trace report",
         {"block_x", 32, 2048, 0},
         {"dynamic_smem", 0, 262144, 0}},
    };
    return list;
}

const ParameterList& CustomFamily::parameters() const {
    constexpr std::int64_t kGridMax = std::int64_t{1} << 32;  // past every device's 2^31 - 1, so maps show it
    static const ParameterList list{
        {"grid_x", "blocks along x (gridDim.x)", 1, kGridMax, 1024, AxisScale::Log2, false},
        {"grid_y", "blocks along y (gridDim.y; 65,535 at most on every GPU)", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"grid_z", "blocks along z (gridDim.z; 65,535 at most on every GPU)", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"block_x", "threads along x (blockDim.x)", 1, 4096, 256, AxisScale::Log2, false},
        {"block_y", "threads along y (blockDim.y)", 1, 2048, 1, AxisScale::Log2, false},
        {"block_z", "threads along z (blockDim.z; 64 at most)", 1, 256, 1, AxisScale::Log2, false},
        // ptxas allocates registers per thread in steps of 8 (256 per warp); 255 is every arch's ceiling.
        {"registers", "registers per thread, as ptxas reports them (Used N registers)", 1, 255, 168, AxisScale::Linear, false, 8},
        {"static_smem", "static shared memory per block in bytes (__shared__ arrays; ptxas caps it at 48 KB)", 0, 1 << 20, 0,
         AxisScale::Log2, false},
        {"dynamic_smem", "dynamic shared memory per block in bytes (the launch's third <<<>>> argument)", 0, 1 << 20, 32768,
         AxisScale::Log2, false},
        {"smem_optin", "1: the kernel calls cudaFuncSetAttribute(MaxDynamicSharedMemorySize) first, so it may use the opt-in limit", 0, 1,
         0, AxisScale::Linear, true},
    };
    return list;
}

std::vector<std::string_view> CustomFamily::kernelSymbols() const { return {kCustomKernelSymbol}; }

const LaunchFigureParameters* CustomFamily::launchFigureParameters() const {
    static constexpr LaunchFigureParameters figures{GridX,  GridY,     GridZ,      BlockX,      BlockY,
                                                    BlockZ, Registers, StaticSmem, DynamicSmem, SmemOptin};
    return &figures;
}

std::string CustomFamily::refusalFor(const LaunchPlan& plan, std::string_view function) const {
    if (plan.limit && plan.limit->name == "static_smem_per_block")
        return tooMuchSharedDataText(function, plan.limit->actual, plan.limit->limit);
    return plan.message;
}

LaunchPlan CustomFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);

    // Static shared memory past the per-block cap never builds: ptxas refuses the entry function,
    // so there is no launch to check.
    if (shape[StaticSmem] > device.smemPerBlock) {
        failPlan(plan, Verdict::UnsupportedShape, {"static_smem_per_block", device.smemPerBlock, shape[StaticSmem]}, StaticSmem, detail,
                 detail == PlanDetail::Full ? tooMuchSharedDataText(kCustomKernelSymbol, shape[StaticSmem], device.smemPerBlock)
                                            : std::string());
        if (detail == PlanDetail::Full)
            plan.alternative =
                "move the arrays to dynamic shared memory (extern __shared__) with smem_optin=1: only "
                "dynamic shared memory may pass 48 KB";
        return plan;
    }

    plan.kernelSymbol = kCustomKernelSymbol;
    plan.grid = {shape[GridX], shape[GridY], shape[GridZ]};
    plan.gridParameter = {GridX, GridY, GridZ};
    plan.block = {shape[BlockX], shape[BlockY], shape[BlockZ]};
    plan.staticSmem = shape[StaticSmem];
    plan.dynamicSmem = shape[DynamicSmem];
    plan.smemParameter = DynamicSmem;
    plan.optsIntoLargeSmem = shape[SmemOptin] != 0;
    plan.registers = static_cast<int>(shape[Registers]);
    finishLaunch(plan, device, noCompiledResources(), detail);
    if (plan.failingParameter < 0 && plan.limit) plan.failingParameter = parameterOfLimit(plan.limit->name);
    if (detail == PlanDetail::Full && plan.limit && plan.limit->name == "smem_per_block" && !plan.optsIntoLargeSmem &&
        plan.totalSmem() <= device.smemPerBlockOptin)
        plan.alternative = "set smem_optin=1: cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, " +
                           str(plan.dynamicSmem) + ") raises the limit to " + str(device.smemPerBlockOptin) + " B on this device";
    return plan;
}

}  // namespace tilescope

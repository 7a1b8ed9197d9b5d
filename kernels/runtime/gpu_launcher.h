// GpuLauncher: runs one planned kernel call on the live GPU. The plan (the planner's, on the live
// DeviceSpec) gives grid, block and shared memory; the launcher allocates and fills the inputs,
// launches through cudaLaunchKernelExC (CUPTI's runtime records see it; CUDA 13's <<<>>> path
// they do not), records the CUDA error, synchronises with a timeout, checks the output against
// the CPU reference and times repeats: the median of the repeats' CUPTI kernel records (events
// around each launch only when CUPTI gave none), with L2 optionally evicted before each repeat.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/kernel_family.h"
#include "core/trace/kernel_record.h"
#include "kernels/runtime/cupti_tracer.h"

namespace tilescope {

struct RunOptions {
    int repeats = 20;
    bool check = true;
    bool bf16 = false;  // the bf16 instantiation of the planned kernel (KernelFamily::hasBf16Kernels)
    std::uint64_t seed = 1;
    double timeoutSeconds = 60.0;  // a kernel still running after this is reported as hung
    CuptiTracer* tracer = nullptr;
    std::uint64_t launchId = 1;  // external correlation id of this run's CUPTI records
    bool flushL2 = false;        // evict L2 before each timed repeat (a real layer's weights are not in L2)
};

struct RunResult {
    LaunchPlan plan;
    bool launched = false;  // false: refused before launching (planner shape check, memory)
    std::string refusal;    // why it was not launched
    std::optional<GpuOutcome> outcome;
    std::vector<RuntimeApiRecord> apiRecords;
    std::string symbol;  // device function launched
    std::string checkedRows;
    bool fatal = false;  // sticky CUDA error or hang: the process must end, the context is unusable
    // cudaFuncGetAttributes of the launched function: the loaded SASS's figures, to compare with
    // the ptxas table the planner read. nullopt when the query failed.
    std::optional<int> functionRegisters;
    std::optional<std::int64_t> functionStaticSmem;
    std::optional<std::int64_t> functionLocalBytes;
    std::uint64_t droppedRecords = 0;
};

RunResult runOnGpu(const KernelChoice& kernel, const LaunchPlan& plan, const RunOptions& options);

// The device function for a planner symbol (with "_bf16" for a bf16 instantiation).
const void* findDeviceKernel(std::string_view symbol);

}  // namespace tilescope

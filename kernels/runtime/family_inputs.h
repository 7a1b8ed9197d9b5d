// Inputs of one real launch: random data for the family's buffers (device and, for the check,
// host), the kernel's parameter block, and the comparison of its output with the CPU reference.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/model/kernel_family.h"
#include "core/trace/kernel_record.h"
#include "core/model/result.h"

namespace tilescope {

class LaunchInputs {
public:
    virtual ~LaunchInputs() = default;
    virtual void* parameterBlock() = 0;  // args[0] of cudaLaunchKernelExC: the kernels take one struct
    // Downloads the output and compares a sample of its rows (all when affordable) with the reference.
    virtual Result<ReferenceCheck> check() = 0;
    virtual std::string checkedRows() const = 0;  // "all 4096 rows", "rows 0..31 of 32768"
    // A launch of the plan that a library makes (ExtraLaunch::chosenByLibrary: cuBLAS's GEMM after an AWQ
    // stack's dequantize), on the legacy default stream after the kernels before it; the inputs hold
    // its operands.
    virtual Result<void> launchLibrary(const ExtraLaunch& launch) {
        return makeError("these inputs make no " + std::string(launch.library) + " launch (" + std::string(launch.role) + ")");
    }
};

// What each family with device code provides (kernels/<family>/inputs.cpp, named by INPUTS_FACTORY in
// its family.cmake): allocates and fills its buffers for the plan; bf16 only where the family has
// bf16 kernels (KernelFamily::hasBf16Kernels).
using LaunchInputsFactory = Result<std::unique_ptr<LaunchInputs>> (*)(const KernelChoice& kernel, const LaunchPlan& plan, bool bf16,
                                                                      std::uint64_t seed, bool withReference);

// Fails (before any cudaMalloc that would not fit) with a message naming the bytes needed; then
// asks the family's factory (device_families.h).
Result<std::unique_ptr<LaunchInputs>> prepareInputs(const KernelChoice& kernel, const LaunchPlan& plan, bool bf16, std::uint64_t seed,
                                                    bool withReference);

}  // namespace tilescope

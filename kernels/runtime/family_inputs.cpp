#include "kernels/runtime/family_inputs.h"

#include <cuda_runtime.h>

#include "kernels/runtime/device_families.h"

namespace tilescope {

Result<std::unique_ptr<LaunchInputs>> prepareInputs(const KernelChoice& kernel, const LaunchPlan& plan, bool bf16, std::uint64_t seed,
                                                    bool withReference) {
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaError_t e = cudaMemGetInfo(&freeBytes, &totalBytes); e != cudaSuccess)
        return makeError(std::string("cudaMemGetInfo: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
    if (plan.deviceMemoryBytes > static_cast<std::int64_t>(freeBytes))
        return makeError("out of memory: the buffers need " + std::to_string(plan.deviceMemoryBytes) + " B, the GPU has " +
                         std::to_string(freeBytes) + " B free; nothing was allocated");
    const DeviceFamily* family = findDeviceFamily(kernel.family->name());
    if (!family) return makeError("no GPU launcher for kernel family " + std::string(kernel.family->name()));
    return family->prepareInputs(kernel, plan, bf16, seed, withReference);
}

}  // namespace tilescope

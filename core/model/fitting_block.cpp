#include "core/model/fitting_block.h"

#include "core/model/device_spec.h"

namespace tilescope {

std::int64_t largestBlockWhoseRegistersFit(const KernelFamily& family, Shape shape, const DeviceSpec& device) {
    const LaunchFigureParameters& figures = *family.launchFigureParameters();
    for (std::int64_t threads = device.maxThreadsPerBlock; threads >= device.warpSize; threads -= device.warpSize) {
        shape[figures.blockX] = threads;
        shape[figures.blockY] = 1;
        shape[figures.blockZ] = 1;
        if (family.plan(0, shape, device, PlanDetail::Brief).verdict != Verdict::OutOfResources) return threads;
    }
    return device.warpSize;
}

}  // namespace tilescope

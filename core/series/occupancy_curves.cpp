#include "core/series/occupancy_curves.h"

#include <algorithm>

#include "core/model/device_spec.h"

namespace tilescope {

namespace {

double warpsAt(const DeviceSpec& device, const OccupancyInput& input) {
    Occupancy occupancy;
    return computeOccupancy(device, input, occupancy) ? occupancy.activeWarpsPerSm : 0.0;
}

OccupancyInput baseInput(const OccupancyCurveInput& in) {
    return OccupancyInput{in.threadsPerBlock, in.registersPerThread, in.staticSmem, in.dynamicSmem, in.optIn, 0};
}

}  // namespace

OccupancyCurves occupancyCurves(const DeviceSpec& device, const OccupancyCurveInput& input) {
    OccupancyCurves curves;
    curves.maxWarpsPerSm = device.maxWarpsPerSm();

    for (int threads = device.warpSize; device.warpSize > 0 && threads <= device.maxThreadsPerBlock; threads += device.warpSize) {
        OccupancyInput in = baseInput(input);
        in.threadsPerBlock = threads;
        curves.blockSize.x.push_back(threads);
        curves.blockSize.activeWarps.push_back(warpsAt(device, in));
    }
    for (int regs = 1; regs <= device.maxRegsPerThread; ++regs) {
        OccupancyInput in = baseInput(input);
        in.registersPerThread = regs;
        curves.registers.x.push_back(regs);
        curves.registers.activeWarps.push_back(warpsAt(device, in));
    }
    // Static shared memory is fixed by the kernel; only the dynamic part can vary.
    const std::int64_t ceiling = input.optIn ? device.smemPerBlockOptin : device.smemPerBlock;
    for (std::int64_t total = input.staticSmem; total <= ceiling; total += kSharedMemoryCurveStep) {
        OccupancyInput in = baseInput(input);
        in.dynamicSmem = total - input.staticSmem;
        curves.sharedMemory.x.push_back(static_cast<double>(total));
        curves.sharedMemory.activeWarps.push_back(warpsAt(device, in));
    }

    Occupancy current;
    if (computeOccupancy(device, baseInput(input), current) && current.activeBlocksPerSm > 0) curves.current = current;
    return curves;
}

std::string limiterText(const Occupancy& occupancy) {
    std::string text;
    for (const auto& name : occupancy.limiterNames()) text += (text.empty() ? "" : ", ") + name;
    return text.empty() ? "none" : text;
}

}  // namespace tilescope

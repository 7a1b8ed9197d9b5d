// The block a reported kernel's launch can take at most when the report gives none (a ptxas
// entry): what `check-launch` checks each device with, as __launch_bounds__ could request.
#pragma once

#include <cstdint>

#include "core/model/kernel_family.h"
#include "core/model/shape.h"

namespace tilescope {

struct DeviceSpec;

// The largest block (a multiple of the warp size, x only: block_y = block_z = 1) whose registers
// fit `device`, asked of `family`'s planner size by size from the device's threads-per-block limit
// down, the rest of `shape` (grid, registers, shared memory) as given. Only the planner's
// out_of_resources verdict makes a size too large: a shape that fails a rule checked before the
// registers (grid, shared memory: launch_checks) gets the device's threads-per-block limit, and its
// plan names that failure. When no size fits, the warp size (whose plan names the register limit).
// `family` takes a launch's own figures (KernelFamily::launchFigureParameters is non-null).
std::int64_t largestBlockWhoseRegistersFit(const KernelFamily& family, Shape shape, const DeviceSpec& device);

}  // namespace tilescope

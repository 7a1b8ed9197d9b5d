// Turns a failing plan into a concrete fix: the nearest passing value along the failing
// parameter, the planner's alternative kernel, and the known devices that accept the shape.
#pragma once

#include <cstdint>
#include <optional>

#include "core/model/kernel_family.h"

namespace tilescope {

class DeviceDatabase;

// The value of `parameter` closest to shape[parameter] at which the plan is ok, other
// parameters fixed; nullopt when none exists in the parameter's range.
std::optional<std::int64_t> nearestPassingValue(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, int parameter);

// Fills plan.fix and plan.fixShape. `database` may be null (no device suggestions).
void attachFix(LaunchPlan& plan, const KernelChoice& kernel, const DeviceSpec& device, const DeviceDatabase* database);

// plan() at Full detail followed by attachFix(): what the CLI and the GUI show for one shape.
LaunchPlan planWithFix(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, const DeviceDatabase* database);

}  // namespace tilescope

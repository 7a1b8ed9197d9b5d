// The checks behind the Kineto import: a trace's deviceProperties as DeviceSpecs (gaps filled
// from the architecture table), and each distinct launch configuration checked against its
// device's limits with its occupancy recomputed by cuda_occupancy.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/kineto_import.h"

namespace tilescope {

// `deviceProperties`: the raw JSON array of a Kineto trace (empty: none recorded).
Result<std::vector<KinetoDevice>> kinetoDevicesFromJson(std::string_view deviceProperties);

// Fills each configuration's occupancy, limiter and violation, and out's launchViolations,
// occupancyCorrections, uncheckedKernels, distinctConfigurations and notes. `out.devices` must be set.
void checkLaunchConfigurations(std::vector<LaunchConfigFinding>& configs, const std::optional<DeviceSpec>& assumedDevice,
                               KinetoImport& out);

std::string joinKinetoNames(const std::vector<std::string>& names);  // "a, b, c"

}  // namespace tilescope

// JSON forms of the core value types, shared by the CLI (--json) and the trace files.
#pragma once

#include <nlohmann/json.hpp>

#include "core/device_spec.h"
#include "core/kernel_family.h"
#include "core/launch_plan.h"
#include "core/sweep.h"

namespace tilescope {

nlohmann::ordered_json deviceToJson(const DeviceSpec& device);
nlohmann::ordered_json shapeToJson(const Shape& shape, const ParameterList& parameters);
nlohmann::ordered_json occupancyToJson(const std::optional<Occupancy>& occupancy);
// The `plan --json` contract: kernel, variant, device, shape, verdict, message, limit, fix,
// launch {grid, block, static_smem, dynamic_smem, registers}, tile, occupancy, and more keys after.
nlohmann::ordered_json planToJson(const LaunchPlan& plan, const ParameterList& parameters);
nlohmann::ordered_json familyToJson(const KernelFamily& family);
nlohmann::ordered_json boundaryMapToJson(const BoundaryMap& map);

}  // namespace tilescope

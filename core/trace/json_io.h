// JSON forms of the core value types, shared by the CLI (--json) and the trace files.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/trace/kernel_record.h"
#include "core/model/launch_plan.h"
#include "core/model/sweep.h"

namespace tilescope {

nlohmann::ordered_json deviceToJson(const DeviceSpec& device);
nlohmann::ordered_json shapeToJson(const Shape& shape, const ParameterList& parameters);
nlohmann::ordered_json occupancyToJson(const std::optional<Occupancy>& occupancy);
// The `plan --json` contract: kernel, variant, device, shape, verdict, message, limit, fix,
// launch {grid, block, static_smem, dynamic_smem, registers}, tile, occupancy, and more keys after
// (extra_launches: the kernels the call launches after the main one, each with its own launch figures).
nlohmann::ordered_json planToJson(const LaunchPlan& plan, const ParameterList& parameters);
nlohmann::ordered_json familyToJson(const KernelFamily& family);
nlohmann::ordered_json boundaryMapToJson(const BoundaryMap& map);

// ---- Readers beside the writers (trace files). `pointer` is the JSON pointer of the value read,
// so an error says where: "at /runs/3/plan/launch/grid/1: expected an integer in [0, ...], got ...".
// Unknown keys are ignored; missing or mistyped ones are errors.

class StringPool;

Result<DeviceSpec> deviceFromJson(const nlohmann::ordered_json& j, const std::string& pointer);
// A shape object {"M": 1, ...}: every parameter present and known, each in its range.
Result<Shape> shapeFromJson(const nlohmann::ordered_json& j, const ParameterList& parameters, const std::string& pointer);
// The parameter names of a shape object, in file order: for a family this build does not know.
Result<ParameterList> parametersFromShapeJson(const nlohmann::ordered_json& j, const std::string& pointer);
// Plan fields the `plan --json` contract leaves out, appended so that a saved plan reads back whole.
void addPlanDetailJson(nlohmann::ordered_json& j, const LaunchPlan& plan, const ParameterList& parameters);
// Reads planToJson (+ addPlanDetailJson); the plan's string_views point into `strings`.
Result<LaunchPlan> planFromJson(const nlohmann::ordered_json& j, const ParameterList& parameters, StringPool& strings,
                                const std::string& pointer);
nlohmann::ordered_json recordToJson(const KernelRecord& record);
Result<KernelRecord> recordFromJson(const nlohmann::ordered_json& j, const std::string& pointer);
nlohmann::ordered_json gpuOutcomeToJson(const GpuOutcome& outcome);
Result<GpuOutcome> gpuOutcomeFromJson(const nlohmann::ordered_json& j, const std::string& pointer);
// boundaryMapToJson (cells may carry "tile_index"; "splits" defaults to 1), evaluated on `device`;
// the family comes from `registry`.
Result<BoundaryMap> boundaryMapFromJson(const nlohmann::ordered_json& j, const KernelRegistry& registry, const DeviceSpec& device,
                                        const std::string& pointer);

}  // namespace tilescope

// The GPU worker's output read back: each JSON object `tilescope-cli run --json` or
// `sweep --run` prints becomes a measured Run, and a worker that crashed, hung or exited with an
// error becomes a Run recorded as failed with the reason, so a trace never loses an attempt.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/kernel_family.h"
#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

// Names the failure a worker's end gives a run (CudaOutcome::errorName); code kWorkerFailedCode.
inline constexpr std::string_view kWorkerFailedName = "tilescope worker failed";
inline constexpr int kWorkerFailedCode = -1;

// One object of the worker's output (its "kernel", "variant", "shape", "plan", "launch",
// "synchronize", "records", "check", "timing_us", "device").
Result<Run> runFromWorkerJson(const nlohmann::ordered_json& j, const KernelRegistry& registry);

// A run that never reported: `plan` is the model's plan for the shape, `reason` what happened to
// the worker ("crashed (signal 11) after 2 of 6 cells", "timed out after 60 s; killed").
Run failedWorkerRun(const LaunchPlan& plan, const ParameterList& parameters, const std::string& reason);

}  // namespace tilescope

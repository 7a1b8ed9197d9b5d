// `trace summary`'s and the report's text of a trace's measured runs: the GB/s, TFLOP/s and % of
// roofline each achieved (core/performance_series: a calibration of its GPU, else its datasheet,
// labelled) and the cliffs of the measured sweeps it holds, each with the plan change that explains it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/series/calibration.h"
#include "core/model/kernel_family.h"
#include "core/trace/trace.h"

namespace tilescope {

// Empty text / an empty array when the trace has no measured run with a time. `registry`: the
// families the runs are read against (runFigures).
std::string rooflineFiguresText(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                const std::vector<Calibration>& calibrations);
nlohmann::ordered_json rooflineFiguresToJson(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                             const std::vector<Calibration>& calibrations);

// One entry per line of each measured sweep (a GPU, and a value of a 2-D sweep's second parameter).
std::string cliffsText(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                       const std::vector<Calibration>& calibrations);
nlohmann::ordered_json cliffsToJson(const Trace& trace, const KernelRegistry& registry, const DeviceDatabase& database,
                                    const std::vector<Calibration>& calibrations);

}  // namespace tilescope

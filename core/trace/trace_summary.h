// Summaries of a Trace: CSV (one row per run or kernel record), Markdown tables, and the
// overview `tilescope-cli trace summary` prints (text or JSON).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/occupancy.h"
#include "core/trace/trace.h"

namespace tilescope {

// Theoretical occupancy of a recorded kernel on `device` (cuda_occupancy.h, opt-in limit when its
// shared memory is above the default one); nullopt when a figure is missing.
std::optional<Occupancy> recordOccupancy(const KernelRecord& record, const DeviceSpec& device);

// Columns: kind, kernel, variant, shape, device, verdict, outcome, grid, block, smem, registers,
// occupancy_pct, duration_us. RFC 4180 quoting. A run whose call launches further kernels
// (split-KV's combine) has one more row per launch, its variant "<variant> / <role>".
std::string traceToCsv(const Trace& trace);
// Devices, notes, runs, sweeps and the recorded kernels grouped by launch configuration.
std::string traceToMarkdown(const Trace& trace);

nlohmann::ordered_json traceSummaryToJson(const Trace& trace);
std::string traceSummaryText(const Trace& trace);

}  // namespace tilescope

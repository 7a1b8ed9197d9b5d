// Per-record checks of a Trace's kernel records, for the views that mark rows: the limit a
// launch breaks, and where the profiler's occupancy figure differs from cuda_occupancy.h's.
// The same checks as the Kineto import (checkLaunchConfigurations), applied record by record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/trace/trace.h"

namespace tilescope {

struct RecordFlags {
    std::string violation;                          // empty: the launch breaks no limit (or unchecked)
    std::optional<double> occupancyPct;             // theoretical, cuda_occupancy.h
    std::optional<double> estAchievedOccupancyPct;  // Kineto's estimate recomputed with ours
    bool occupancyCorrected = false;                // Kineto's figure is off by more than the tolerance
    bool checked = false;                           // a device and every figure were known

    bool flagged() const { return !violation.empty() || occupancyCorrected; }
};

// One entry per record of `records`, checked against the trace's device for each ordinal.
std::vector<RecordFlags> flagRecords(const Trace& trace, const std::vector<KernelRecord>& records);

}  // namespace tilescope

// Timing of a run's timed repeats, from samples or from the run's CUPTI kernel records. Pure: the
// GPU launcher feeds it, tests feed it recorded values.
#pragma once

#include <optional>
#include <vector>

#include "core/trace/kernel_record.h"

namespace tilescope {

// Median (upper median for an even count), min and mean of per-repeat times in µs.
Timing timingOfSamples(std::vector<double> us);

// Timing of `repeats` timed calls from a run's CUPTI kernel records: the records are ordered by
// start, the first call (the checked launch, which also warms caches and the instruction
// cache) is dropped, and each call's time is the sum of its `kernelsPerCall` kernels (split-KV
// kernels launch two). nullopt when the records do not cover every call exactly.
std::optional<Timing> timingFromRecords(std::vector<KernelRecord> records, int repeats, int kernelsPerCall, bool l2Flushed);

}  // namespace tilescope

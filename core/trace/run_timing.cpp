#include "core/trace/run_timing.h"

#include <algorithm>
#include <cstddef>

namespace tilescope {

Timing timingOfSamples(std::vector<double> us) {
    Timing t;
    t.repeats = static_cast<int>(us.size());
    if (us.empty()) return t;
    std::sort(us.begin(), us.end());
    t.minUs = us.front();
    t.medianUs = us[us.size() / 2];
    double sum = 0;
    for (double v : us) sum += v;
    t.meanUs = sum / static_cast<double>(us.size());
    return t;
}

std::optional<Timing> timingFromRecords(std::vector<KernelRecord> records, int repeats, int kernelsPerCall, bool l2Flushed) {
    if (repeats <= 0 || kernelsPerCall <= 0) return std::nullopt;
    const auto perCall = static_cast<std::size_t>(kernelsPerCall);
    const auto calls = static_cast<std::size_t>(repeats) + 1;
    if (records.size() != calls * perCall) return std::nullopt;
    std::sort(records.begin(), records.end(), [](const KernelRecord& a, const KernelRecord& b) { return a.startNs < b.startNs; });
    std::vector<double> us;
    for (std::size_t call = 1; call < calls; ++call) {
        std::int64_t ns = 0;
        for (std::size_t k = 0; k < perCall; ++k) ns += records[call * perCall + k].durationNs();
        us.push_back(static_cast<double>(ns) / 1000.0);
    }
    Timing t = timingOfSamples(std::move(us));
    t.source = "cupti";
    t.l2Flushed = l2Flushed;
    return t;
}

}  // namespace tilescope

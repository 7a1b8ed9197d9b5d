// Cliffs: steps in measured time between neighbouring cells of a sweep, each matched with the
// plan change (tile, bucket cell, split, kernel, waves, occupancy) that explains it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"

namespace tilescope {

// One measured point of a 1-D sweep (or a row/column of a 2-D one), in axis order.
struct SweepPoint {
    std::int64_t x = 0;  // swept parameter value
    double timeUs = 0;
    LaunchPlan plan;  // plan of that cell (tile, bucketCell, splitK, occupancy->waves, kernelSymbol, variant)
};

struct Cliff {
    std::size_t before = 0, after = 0;  // indices into the points
    double ratio = 1;                   // time(after) / time(before)
    std::string explanation;            // "tile m16n128k32 -> m32n128k32", "bucket cell 32 -> 64",
                                        // "split-K 1 -> 8", "waves 1 -> 2", "dispatch: dequantize +
                                        // GEMM from M = 1024" (a stack's switch to a library), or "unexplained"
    bool explained = false;
};

// `family` below: the family every point's plan belongs to, which names what LaunchPlan::splitK
// counts; null for a family this build does not know (a trace from another build): "split-K".

// Steps of more than `threshold` (0.25 = 25 %) between neighbours, up or down, each matched with
// the plan change between the two cells that explains it.
std::vector<Cliff> findCliffs(const std::vector<SweepPoint>& points, const KernelFamily* family, double threshold = 0.25);

// The plan changes along the axis (drawn as vertical markers even where time did not jump).
// `index` is the point after the change.
struct PlanChange {
    std::size_t index = 0;
    std::string what;
};
std::vector<PlanChange> planChanges(const std::vector<SweepPoint>& points, const KernelFamily* family);

// What changed between two plans, "; "-joined; empty when nothing the cliffs look at changed.
std::string planDifference(const LaunchPlan& before, const LaunchPlan& after, const KernelFamily* family);

}  // namespace tilescope

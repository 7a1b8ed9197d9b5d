#include "core/tile_series.h"

#include <algorithm>

namespace tilescope {

TileSeries tileSeries(const KernelChoice& kernel, const DeviceSpec& device, const Shape& base, const SweepAxis& axis) {
    TileSeries series;
    series.axis = axis;
    for (const std::int64_t value : axis.values) {
        Shape shape = base;
        shape[axis.parameter] = value;
        const LaunchPlan plan = kernel.family->plan(kernel.variant, shape, device, PlanDetail::Full);
        TilePoint point;
        point.value = value;
        point.verdict = plan.verdict;
        point.bucketCell = plan.bucketCell;
        point.paddingWaste = plan.paddingWaste;
        point.totalSmem = plan.totalSmem();
        if (!plan.tile.empty()) {
            const auto found = std::find(series.tileNames.begin(), series.tileNames.end(), plan.tile);
            point.tileId = static_cast<int>(found - series.tileNames.begin());
            if (found == series.tileNames.end()) series.tileNames.emplace_back(plan.tile);
        }
        series.points.push_back(point);
    }
    return series;
}

}  // namespace tilescope

#include "core/series/tile_series.h"

#include <algorithm>
#include <cstdio>

namespace tilescope {

namespace {

TileFigures tileFigures(std::string_view name, const TilePoint& point, int smCount) {
    TileFigures f{point.workTiles, point.operandsSwapped, point.ctas, std::string(name) + ": "};
    if (point.workTiles > 0) f.text += std::to_string(point.workTiles) + " tiles, ";
    if (point.operandsSwapped) f.text += "operands swapped, ";
    f.text += std::to_string(point.ctas) + " CTAs on " + std::to_string(smCount) + " SMs";
    if (smCount > 0) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, " (%.2f per SM)", static_cast<double>(point.ctas) / smCount);
        f.text += ratio;
    }
    return f;
}

}  // namespace

TileSeries tileSeries(const KernelChoice& kernel, const DeviceSpec& device, const Shape& base, const SweepAxis& axis) {
    TileSeries series;
    series.axis = axis;
    series.smCount = device.smCount;
    tieFollowers(series.axis, base, kernel.family->parameters());
    for (std::size_t i = 0; i < series.axis.values.size(); ++i) {
        const std::int64_t value = series.axis.values[i];
        Shape shape = base;
        setAxisValue(shape, series.axis, i);
        const LaunchPlan plan = kernel.family->plan(kernel.variant, shape, device, PlanDetail::Full);
        TilePoint point;
        point.value = value;
        point.verdict = plan.verdict;
        point.bucketCell = plan.bucketCell;
        point.paddingWaste = plan.paddingWaste;
        point.totalSmem = plan.totalSmem();
        point.workTiles = plan.workTiles;
        point.operandsSwapped = plan.operandsSwapped;
        point.ctas = plan.grid.volume();
        if (!plan.tile.empty()) {
            const auto found = std::find(series.tileNames.begin(), series.tileNames.end(), plan.tile);
            point.tileId = static_cast<int>(found - series.tileNames.begin());
            if (found == series.tileNames.end()) {
                series.tileNames.emplace_back(plan.tile);
                series.figures.push_back(tileFigures(plan.tile, point, device.smCount));
            }
        }
        series.points.push_back(point);
    }
    return series;
}

}  // namespace tilescope

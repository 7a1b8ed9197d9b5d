// The tile or bucket a planner chooses along one parameter axis, with padding waste: the
// series behind the GUI's "Tiles & buckets" page (e.g. M -> gemm_bucket cell staircase).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_family.h"
#include "core/sweep.h"

namespace tilescope {

struct TilePoint {
    std::int64_t value = 0;  // the axis parameter's value
    Verdict verdict = Verdict::Ok;
    int tileId = -1;  // index into TileSeries::tileNames; -1 when the plan chose none
    std::optional<std::int64_t> bucketCell;
    double paddingWaste = 0.0;  // fraction, 0..1
    std::int64_t totalSmem = 0;
};

struct TileSeries {
    SweepAxis axis;
    std::vector<std::string> tileNames;  // in order of first appearance along the axis
    std::vector<TilePoint> points;       // one per axis value
};

TileSeries tileSeries(const KernelChoice& kernel, const DeviceSpec& device, const Shape& base, const SweepAxis& axis);

}  // namespace tilescope

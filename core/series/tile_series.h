// The tile or bucket a planner chooses along one parameter axis, with padding waste: the
// series behind the GUI's "Tiles & buckets" page (e.g. the staircase of M -> a bucketed GEMM's cell).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/kernel_family.h"
#include "core/model/sweep.h"

namespace tilescope {

struct TilePoint {
    std::int64_t value = 0;  // the axis parameter's value
    Verdict verdict = Verdict::Ok;
    int tileId = -1;  // index into TileSeries::tileNames; -1 when the plan chose none
    std::optional<std::int64_t> bucketCell;
    double paddingWaste = 0.0;  // fraction, 0..1
    std::int64_t totalSmem = 0;
    std::int64_t workTiles = 0;  // output tiles the CTAs share out (0: the planner does not say)
    bool operandsSwapped = false;
    std::int64_t ctas = 0;  // grid blocks
};

// One tile or bucket as first met along the axis: its tiles, swap and CTAs against the SM count.
struct TileFigures {
    std::int64_t workTiles = 0;
    bool operandsSwapped = false;
    std::int64_t ctas = 0;
    std::string text;  // "cell 32: 112 tiles, operands swapped, 112 CTAs on 132 SMs (0.85 per SM)"
};

struct TileSeries {
    SweepAxis axis;                      // with its followers tied from the base shape (tieFollowers)
    std::vector<std::string> tileNames;  // in order of first appearance along the axis
    std::vector<TilePoint> points;       // one per axis value
    std::vector<TileFigures> figures;    // one per tile name
    std::int64_t smCount = 0;            // the device's, for CTAs per SM
};

TileSeries tileSeries(const KernelChoice& kernel, const DeviceSpec& device, const Shape& base, const SweepAxis& axis);

}  // namespace tilescope

// What a boundary map looks like, computed without Qt: one colour per verdict kind, the map as
// an ARGB image, the outline between passing and failing cells (for a second device), and the
// lines and labels of the regions where the launch splits its work differently (split-KV).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/sweep.h"
#include "core/model/verdict.h"

namespace tilescope {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    std::uint32_t argb() const { return 0xFF000000u | (std::uint32_t{r} << 16) | (std::uint32_t{g} << 8) | b; }
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

// Okabe-Ito colours (distinguishable with the common colour-vision deficiencies); ok is green.
Rgb verdictColour(Verdict verdict);

// width x height ARGB32 pixels, one per cell, first row = the highest y index (image order).
std::vector<std::uint32_t> verdictImage(const BoundaryMap& map);

// A straight piece of outline in cell coordinates: cell (ix, iy) is centred on (ix, iy), so
// edges lie on half-integers.
struct OutlineSegment {
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    friend bool operator==(const OutlineSegment&, const OutlineSegment&) = default;
};

// The edges between ok and failing neighbours, collinear neighbours merged. The outer border
// of the map is not an edge.
std::vector<OutlineSegment> okBoundaryOutline(const BoundaryMap& map);

// Split-KV / split-K regions: BoundaryCell::splits as the planner chose it (never recomputed here).
// The edges between neighbouring ok cells whose split counts differ, merged like okBoundaryOutline.
std::vector<OutlineSegment> splitBoundaryOutline(const BoundaryMap& map);
// A stack's dispatch (awq_gemm autoawq / vllm): the edges between ok cells of which one hands its GEMM to
// a library (BoundaryCell::callsLibrary) and the other runs the kernel alone.
std::vector<OutlineSegment> dispatchBoundaryOutline(const BoundaryMap& map);
// True when two ok cells of the map split differently (the split outline is not empty).
bool splitCountChanges(const BoundaryMap& map);
// The smallest and largest split count over the ok cells; {1, 1} when none is ok.
std::pair<int, int> splitCountRange(const BoundaryMap& map);

// One label per connected region (4-neighbours) of ok cells with one split count: the count, the
// region's size and the region's cell nearest its centroid, so that the label sits inside it.
struct SplitRegionLabel {
    int ix = 0, iy = 0;
    int splits = 1;
    std::int64_t cells = 0;
    friend bool operator==(const SplitRegionLabel&, const SplitRegionLabel&) = default;
};
// The `maxLabels` largest regions of at least `minCells` cells, largest first (ties: lower row, then column).
std::vector<SplitRegionLabel> splitRegionLabels(const BoundaryMap& map, std::int64_t minCells, std::size_t maxLabels);

}  // namespace tilescope

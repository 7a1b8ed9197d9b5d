// What a boundary map looks like, computed without Qt: one colour per verdict kind, the map as
// an ARGB image, and the outline between passing and failing cells (for a second device).
#pragma once

#include <cstdint>
#include <vector>

#include "core/sweep.h"
#include "core/verdict.h"

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

}  // namespace tilescope

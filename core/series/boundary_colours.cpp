#include "core/series/boundary_colours.h"

#include <algorithm>
#include <optional>

namespace tilescope {

Rgb verdictColour(Verdict verdict) {
    switch (verdict) {
        case Verdict::Ok: return {0x00, 0x9E, 0x73};                 // bluish green
        case Verdict::UnsupportedDevice: return {0x99, 0x99, 0x99};  // grey
        case Verdict::UnsupportedShape: return {0xCC, 0x79, 0xA7};   // reddish purple
        case Verdict::BucketOverflow: return {0xE6, 0x9F, 0x00};     // orange
        case Verdict::NoTileFits: return {0xF0, 0xE4, 0x42};         // yellow
        case Verdict::InvalidLaunch: return {0xD5, 0x5E, 0x00};      // vermillion
        case Verdict::OutOfResources: return {0x00, 0x72, 0xB2};     // blue
        case Verdict::OutOfMemory: return {0x56, 0xB4, 0xE9};        // sky blue
    }
    return {0, 0, 0};
}

std::vector<std::uint32_t> verdictImage(const BoundaryMap& map) {
    std::uint32_t lookup[kAllVerdicts.size()];
    for (std::size_t i = 0; i < kAllVerdicts.size(); ++i) lookup[i] = verdictColour(kAllVerdicts[i]).argb();
    const int w = map.width(), h = map.height();
    std::vector<std::uint32_t> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    for (int iy = 0; iy < h; ++iy) {
        std::uint32_t* row = pixels.data() + static_cast<std::size_t>(h - 1 - iy) * static_cast<std::size_t>(w);
        for (int ix = 0; ix < w; ++ix) row[ix] = lookup[static_cast<std::size_t>(map.cell(ix, iy).verdict)];
    }
    return pixels;
}

namespace {

// Edges between neighbours (a, b) for which `differ(a, b)` holds, collinear edges merged.
template <typename Differ>
std::vector<OutlineSegment> outlineWhere(const BoundaryMap& map, Differ differ) {
    const int w = map.width(), h = map.height();
    std::vector<OutlineSegment> segments;
    // Vertical edges between (ix, iy) and (ix + 1, iy), merged along y.
    for (int ix = 0; ix + 1 < w; ++ix) {
        int start = -1;
        for (int iy = 0; iy <= h; ++iy) {
            const bool edge = iy < h && differ(map.cell(ix, iy), map.cell(ix + 1, iy));
            if (edge && start < 0) start = iy;
            if (!edge && start >= 0) {
                segments.push_back({ix + 0.5, start - 0.5, ix + 0.5, iy - 0.5});
                start = -1;
            }
        }
    }
    // Horizontal edges between (ix, iy) and (ix, iy + 1), merged along x.
    for (int iy = 0; iy + 1 < h; ++iy) {
        int start = -1;
        for (int ix = 0; ix <= w; ++ix) {
            const bool edge = ix < w && differ(map.cell(ix, iy), map.cell(ix, iy + 1));
            if (edge && start < 0) start = ix;
            if (!edge && start >= 0) {
                segments.push_back({start - 0.5, iy + 0.5, ix - 0.5, iy + 0.5});
                start = -1;
            }
        }
    }
    return segments;
}

// Across a stack's dispatch the split counts belong to different launches (the GEMM kernel's split-K,
// then a dequantize kernel and cuBLAS): the dispatch outline marks that edge, not this one.
bool splitsDiffer(const BoundaryCell& a, const BoundaryCell& b) {
    return a.verdict == Verdict::Ok && b.verdict == Verdict::Ok && a.callsLibrary == b.callsLibrary && a.splits != b.splits;
}

}  // namespace

std::vector<OutlineSegment> okBoundaryOutline(const BoundaryMap& map) {
    return outlineWhere(
        map, [](const BoundaryCell& a, const BoundaryCell& b) { return (a.verdict == Verdict::Ok) != (b.verdict == Verdict::Ok); });
}

std::vector<OutlineSegment> splitBoundaryOutline(const BoundaryMap& map) { return outlineWhere(map, splitsDiffer); }

std::vector<OutlineSegment> dispatchBoundaryOutline(const BoundaryMap& map) {
    return outlineWhere(map, [](const BoundaryCell& a, const BoundaryCell& b) {
        return a.verdict == Verdict::Ok && b.verdict == Verdict::Ok && a.callsLibrary != b.callsLibrary;
    });
}

bool splitCountChanges(const BoundaryMap& map) {
    const int w = map.width(), h = map.height();
    for (int iy = 0; iy < h; ++iy)
        for (int ix = 0; ix < w; ++ix) {
            if (ix + 1 < w && splitsDiffer(map.cell(ix, iy), map.cell(ix + 1, iy))) return true;
            if (iy + 1 < h && splitsDiffer(map.cell(ix, iy), map.cell(ix, iy + 1))) return true;
        }
    return false;
}

std::pair<int, int> splitCountRange(const BoundaryMap& map) {
    std::optional<std::pair<int, int>> range;
    for (const BoundaryCell& cell : map.cells()) {
        if (cell.verdict != Verdict::Ok || cell.callsLibrary) continue;  // a library's split is unknown
        if (!range) range = {cell.splits, cell.splits};
        else range = {std::min(range->first, cell.splits), std::max(range->second, cell.splits)};
    }
    return range.value_or(std::pair{1, 1});
}

std::vector<SplitRegionLabel> splitRegionLabels(const BoundaryMap& map, std::int64_t minCells, std::size_t maxLabels) {
    const int w = map.width(), h = map.height();
    const auto at = [w](int ix, int iy) {
        return static_cast<std::size_t>(iy) * static_cast<std::size_t>(w) + static_cast<std::size_t>(ix);
    };
    std::vector<char> seen(static_cast<std::size_t>(map.cellCount()), 0);
    std::vector<SplitRegionLabel> labels;
    std::vector<std::pair<int, int>> region, stack;
    for (int iy0 = 0; iy0 < h; ++iy0) {
        for (int ix0 = 0; ix0 < w; ++ix0) {
            const BoundaryCell& first = map.cell(ix0, iy0);
            if (seen[at(ix0, iy0)] || first.verdict != Verdict::Ok) continue;
            // Flood fill over ok 4-neighbours with the same split count.
            region.clear();
            stack.assign(1, {ix0, iy0});
            seen[at(ix0, iy0)] = 1;
            double sx = 0, sy = 0;
            while (!stack.empty()) {
                const auto [ix, iy] = stack.back();
                stack.pop_back();
                region.push_back({ix, iy});
                sx += ix;
                sy += iy;
                const std::pair<int, int> next[] = {{ix - 1, iy}, {ix + 1, iy}, {ix, iy - 1}, {ix, iy + 1}};
                for (const auto& [nx, ny] : next) {
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h || seen[at(nx, ny)]) continue;
                    const BoundaryCell& c = map.cell(nx, ny);
                    if (c.verdict != Verdict::Ok || c.splits != first.splits) continue;
                    seen[at(nx, ny)] = 1;
                    stack.push_back({nx, ny});
                }
            }
            const auto size = static_cast<std::int64_t>(region.size());
            if (size < minCells) continue;
            const double cx = sx / static_cast<double>(size), cy = sy / static_cast<double>(size);
            // The region's cell nearest its centroid (a bent region's centroid may lie outside it).
            std::pair<int, int> best = region.front();
            double bestDistance = -1;
            for (const auto& [ix, iy] : region) {
                const double d = (ix - cx) * (ix - cx) + (iy - cy) * (iy - cy);
                if (bestDistance < 0 || d < bestDistance || (d == bestDistance && std::pair{iy, ix} < std::pair{best.second, best.first})) {
                    bestDistance = d;
                    best = {ix, iy};
                }
            }
            labels.push_back({best.first, best.second, first.splits, size});
        }
    }
    std::stable_sort(labels.begin(), labels.end(), [](const SplitRegionLabel& a, const SplitRegionLabel& b) { return a.cells > b.cells; });
    if (labels.size() > maxLabels) labels.resize(maxLabels);
    return labels;
}

}  // namespace tilescope

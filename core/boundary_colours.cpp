#include "core/boundary_colours.h"

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

std::vector<OutlineSegment> okBoundaryOutline(const BoundaryMap& map) {
    const int w = map.width(), h = map.height();
    auto ok = [&](int ix, int iy) { return map.cell(ix, iy).verdict == Verdict::Ok; };
    std::vector<OutlineSegment> segments;
    // Vertical edges between (ix, iy) and (ix + 1, iy), merged along y.
    for (int ix = 0; ix + 1 < w; ++ix) {
        int start = -1;
        for (int iy = 0; iy <= h; ++iy) {
            const bool edge = iy < h && ok(ix, iy) != ok(ix + 1, iy);
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
            const bool edge = ix < w && ok(ix, iy) != ok(ix, iy + 1);
            if (edge && start < 0) start = ix;
            if (!edge && start >= 0) {
                segments.push_back({start - 0.5, iy + 0.5, ix - 0.5, iy + 0.5});
                start = -1;
            }
        }
    }
    return segments;
}

}  // namespace tilescope

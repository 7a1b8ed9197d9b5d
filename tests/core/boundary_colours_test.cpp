#include "core/series/boundary_colours.h"

#include <gtest/gtest.h>

#include <set>

#include "kernels/builtin_kernels.h"

using namespace tilescope;

namespace {

// A map whose cells are set by hand (never evaluated), so the expected picture is known.
BoundaryMap handMap(int w, int h) {
    const KernelFamily* family = builtinKernels().find("awq_gemm");
    const ParameterList& p = family->parameters();
    SweepAxis x{0, {}, AxisScale::Linear, {}};
    for (int i = 0; i < w; ++i) x.values.push_back(i + 1);
    std::optional<SweepAxis> y;
    if (h > 1) {
        y = SweepAxis{1, {}, AxisScale::Linear, {}};
        for (int i = 0; i < h; ++i) y->values.push_back(64 * (i + 1));
    }
    return BoundaryMap(KernelChoice{family, 0}, DeviceDatabase::embedded().defaultDevice(), Shape::defaults(p), x, y);
}

}  // namespace

TEST(BoundaryColours, EveryVerdictHasItsOwnOpaqueColour) {
    std::set<std::uint32_t> seen;
    for (Verdict v : kAllVerdicts) {
        const std::uint32_t argb = verdictColour(v).argb();
        EXPECT_EQ(argb >> 24, 0xFFu);
        seen.insert(argb);
    }
    EXPECT_EQ(seen.size(), kAllVerdicts.size());
    EXPECT_EQ(verdictColour(Verdict::Ok), (Rgb{0x00, 0x9E, 0x73}));
}

TEST(BoundaryColours, ImageRowsRunFromTheTopOfTheMap) {
    BoundaryMap map = handMap(2, 2);
    map.cell(0, 0).verdict = Verdict::Ok;
    map.cell(1, 0).verdict = Verdict::InvalidLaunch;
    map.cell(0, 1).verdict = Verdict::NoTileFits;
    map.cell(1, 1).verdict = Verdict::BucketOverflow;
    const auto pixels = verdictImage(map);
    ASSERT_EQ(pixels.size(), 4u);
    EXPECT_EQ(pixels[0], verdictColour(Verdict::NoTileFits).argb());      // top-left = (0, 1)
    EXPECT_EQ(pixels[1], verdictColour(Verdict::BucketOverflow).argb());  // top-right = (1, 1)
    EXPECT_EQ(pixels[2], verdictColour(Verdict::Ok).argb());
    EXPECT_EQ(pixels[3], verdictColour(Verdict::InvalidLaunch).argb());
}

TEST(BoundaryColours, OutlineSeparatesOkFromFailingCellsOnly) {
    BoundaryMap map = handMap(3, 1);
    map.cell(0, 0).verdict = Verdict::Ok;
    map.cell(1, 0).verdict = Verdict::InvalidLaunch;
    map.cell(2, 0).verdict = Verdict::UnsupportedShape;  // two failure kinds: no edge between them
    const auto outline = okBoundaryOutline(map);
    ASSERT_EQ(outline.size(), 1u);
    EXPECT_EQ(outline[0], (OutlineSegment{0.5, -0.5, 0.5, 0.5}));
}

TEST(BoundaryColours, OutlineMergesCollinearEdges) {
    BoundaryMap map = handMap(2, 3);
    for (int iy = 0; iy < 3; ++iy) {
        map.cell(0, iy).verdict = Verdict::Ok;
        map.cell(1, iy).verdict = Verdict::InvalidLaunch;
    }
    auto outline = okBoundaryOutline(map);
    ASSERT_EQ(outline.size(), 1u);
    EXPECT_EQ(outline[0], (OutlineSegment{0.5, -0.5, 0.5, 2.5}));

    map.cell(1, 2).verdict = Verdict::Ok;  // top-right now passes: the edge shortens, a horizontal one appears
    outline = okBoundaryOutline(map);
    ASSERT_EQ(outline.size(), 2u);
    EXPECT_EQ(outline[0], (OutlineSegment{0.5, -0.5, 0.5, 1.5}));
    EXPECT_EQ(outline[1], (OutlineSegment{0.5, 1.5, 1.5, 1.5}));
}

TEST(BoundaryColours, UniformMapHasNoOutline) {
    BoundaryMap map = handMap(4, 4);
    EXPECT_TRUE(okBoundaryOutline(map).empty());
}

// Sweeping head_dim moves head_dim_v with it when the base shape holds them equal (issue 12):
// the rule (tieFollowers), the map, the tile series and the labels that say so.
#include <gtest/gtest.h>

#include "core/model/sweep.h"
#include "core/series/tile_series.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::kernel;

const KernelChoice& fa2() {
    static const KernelChoice k = kernel("attention", "fa2");
    return k;
}
const ParameterList& attention() { return fa2().family->parameters(); }
int index(std::string_view name) { return parameterIndex(attention(), name); }

SweepAxis axis(std::string_view text) {
    auto parsed = parseSweepAxis(text, attention());
    EXPECT_TRUE(parsed.ok()) << text;
    return parsed.ok() ? *parsed : SweepAxis{};
}

struct TieRow {
    const char* base;
    const char* x;
    const char* y;  // "" for none
    bool tied;
};

TEST(SweepTiedAxis, HeadDimVFollowsOnlyWhenEqualAndNotSweptItself) {
    const TieRow rows[] = {
        {"head_dim=128,head_dim_v=128", "head_dim=64:288:+32", "", true},
        {"head_dim=128,head_dim_v=64", "head_dim=64:288:+32", "", false},                        // unequal: the user set it apart
        {"head_dim=128,head_dim_v=128", "head_dim_v=64:256:+64", "", false},                     // the follower itself: nothing follows it
        {"head_dim=128,head_dim_v=128", "head_dim=64:256:+64", "head_dim_v=64:256:+64", false},  // swept on its own
        {"head_dim=128,head_dim_v=128", "seqlen_q=128:1024:x2", "", false},
    };
    for (const auto& row : rows) {
        SCOPED_TRACE(std::string(row.base) + " / " + row.x + " / " + row.y);
        SweepAxis x = axis(row.x);
        std::optional<SweepAxis> y;
        if (*row.y) y = axis(row.y);
        tieFollowers(x, test::shape(fa2(), row.base), attention(), y ? &*y : nullptr);
        EXPECT_EQ(x.followers, row.tied ? std::vector<int>{index("head_dim_v")} : std::vector<int>{});
    }
}

TEST(SweepTiedAxis, TheIssuesSweepLaunchesWhereHeadDimIsSupported) {
    // `sweep -k attention -v fa2 --x head_dim=64:288:+32`: before, head_dim_v stayed 128 and only
    // head_dim=128 passed; now every head_dim FA2 supports (<= 256) launches.
    BoundaryMap map(fa2(), device("h100-sxm"), Shape::defaults(attention()), axis("head_dim=64:288:+32"), std::nullopt);
    ASSERT_TRUE(evaluateBoundaryMap(map));
    EXPECT_EQ(map.xAxis().followers, std::vector<int>{index("head_dim_v")});
    for (int ix = 0; ix < map.width(); ++ix) {
        const Shape s = map.shapeAt(ix, 0);
        EXPECT_EQ(s[index("head_dim_v")], s[index("head_dim")]);
        const bool supported = s[index("head_dim")] <= 256;
        EXPECT_EQ(map.cell(ix, 0).verdict == Verdict::Ok, supported) << "head_dim " << s[index("head_dim")];
    }
    EXPECT_EQ(axisLabel(map.xAxis(), attention()), "head_dim (head_dim_v with it)");
    EXPECT_EQ(followerNote(map.xAxis(), attention()), "head_dim_v moves with head_dim (equal in the base shape)");
}

TEST(SweepTiedAxis, UntiedAxisKeepsItsPlainLabel) {
    const SweepAxis x = axis("seqlen_q=128:1024:x2");
    EXPECT_EQ(axisLabel(x, attention()), "seqlen_q");
    EXPECT_EQ(followerNote(x, attention()), "");
}

TEST(SweepTiedAxis, TileSeriesTiesToo) {
    const TileSeries series = tileSeries(fa2(), device("h100-sxm"), Shape::defaults(attention()), axis("head_dim=64:256:+64"));
    EXPECT_EQ(series.axis.followers, std::vector<int>{index("head_dim_v")});
    for (const TilePoint& p : series.points) EXPECT_EQ(p.verdict, Verdict::Ok) << p.value;
}

TEST(SweepTiedAxis, SetAxisValueMovesTheFollowers) {
    SweepAxis x = axis("head_dim=64:256:+64");
    Shape s = Shape::defaults(attention());
    tieFollowers(x, s, attention());
    setAxisValue(s, x, 2);
    EXPECT_EQ(s[index("head_dim")], 192);
    EXPECT_EQ(s[index("head_dim_v")], 192);
}

}  // namespace
}  // namespace tilescope

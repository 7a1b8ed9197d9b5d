// What a plan says about the rules it applied (issue #15 item 6): sm120_tile_search on a device that is
// not SM120 said "ok" without saying that upstream runs it on SM120 only, and accepted head_dim=283
// without saying it rounds head dims to 16 (fa2 refuses anything not a multiple of 8).
#include <gtest/gtest.h>

#include "test_support.h"

namespace tilescope {
namespace {

TEST(PlanNotes, Sm120TileSearchOnAnotherArchitectureSaysWhoseCapacityItSearched) {
    const LaunchPlan plan =
        test::plan("attention", "sm120_tile_search", "batch=1,seqlen_q=512,seqlen_k=512,heads=8,head_dim=128,head_dim_v=128", "h100-sxm");
    ASSERT_TRUE(plan.ok()) << plan.message;
    EXPECT_NE(plan.note.find("upstream runs this search on SM120 only"), std::string::npos) << plan.note;
    EXPECT_NE(plan.note.find("h100-sxm"), std::string::npos) << plan.note;
    const LaunchPlan onSm120 =
        test::plan("attention", "sm120_tile_search", "batch=1,seqlen_q=512,seqlen_k=512,heads=8,head_dim=128,head_dim_v=128", "rtx-5090");
    ASSERT_TRUE(onSm120.ok()) << onSm120.message;
    EXPECT_EQ(onSm120.note, "");
}

TEST(PlanNotes, Sm120TileSearchSaysHowItRoundedTheHeadDims) {
    const LaunchPlan plan =
        test::plan("attention", "sm120_tile_search", "batch=1,seqlen_q=512,seqlen_k=512,heads=8,head_dim=100,head_dim_v=100", "rtx-5090");
    ASSERT_TRUE(plan.ok()) << plan.message;
    EXPECT_NE(plan.note.find("(100, 100) -> (112, 112)"), std::string::npos) << plan.note;
    // 283 (the value) is past the SM120 capacity; the rounding it gets is said the same way on a larger device.
    const LaunchPlan large =
        test::plan("attention", "sm120_tile_search", "batch=1,seqlen_q=512,seqlen_k=512,heads=8,head_dim=283,head_dim_v=283", "h100-sxm");
    ASSERT_TRUE(large.ok()) << large.message;
    EXPECT_NE(large.note.find("(283, 283) -> (288, 288)"), std::string::npos) << large.note;
    const LaunchPlan fa2 =
        test::plan("attention", "fa2", "batch=1,seqlen_q=512,seqlen_k=512,heads=8,head_dim=100,head_dim_v=100", "rtx-5090");
    EXPECT_FALSE(fa2.ok());  // fa2's own rule: head_dim % 8
}

}  // namespace
}  // namespace tilescope

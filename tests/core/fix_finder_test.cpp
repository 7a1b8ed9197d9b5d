// The fix finder: the nearest passing value along the failing parameter, the planner's alternative,
// and the devices that accept the shape.
#include <gtest/gtest.h>

#include "test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::kernel;
using test::plan;
using test::shape;

std::optional<std::int64_t> nearest(std::string_view family, std::string_view variant, std::string_view shapeText,
                                    std::string_view deviceId, std::string_view parameter) {
    const KernelChoice k = kernel(family, variant);
    return nearestPassingValue(k, shape(k, shapeText), device(deviceId), parameterIndex(k.family->parameters(), parameter));
}

TEST(NearestPassingValue, LocalScanBothWays) {
    // legacy_grid_y at N=5376: M <= 24,960 launches (ceil(M/16) * 42 <= 65,535).
    EXPECT_EQ(nearest("awq_gemm", "legacy_grid_y", "M=24961,N=5376", "h100-sxm", "M"), 24960);
    // gemm_bucket M=513 -> 512, M=0 -> 1.
    EXPECT_EQ(nearest("gemm_bucket", "oproj", "M=513", "h100-sxm", "M"), 512);
    EXPECT_EQ(nearest("gemm_bucket", "oproj", "M=0", "h100-sxm", "M"), 1);
    // A passing value is its own nearest.
    EXPECT_EQ(nearest("gemm_bucket", "oproj", "M=300", "h100-sxm", "M"), 300);
}

TEST(NearestPassingValue, TiesGoToTheSmallerValue) {
    EXPECT_EQ(nearest("awq_gemv", "gemv", "N=4098", "h100-sxm", "N"), 4096);  // 4096 and 4100
    EXPECT_EQ(nearest("awq_gemv", "gemv", "N=4099", "h100-sxm", "N"), 4100);  // 4100 is 1 away
}

TEST(NearestPassingValue, FarBeyondTheLocalScan) {
    // legacy M=32768 is 7,808 above 24,960: found by doubling and bisection.
    EXPECT_EQ(nearest("awq_gemm", "legacy_grid_y", "M=32768,N=5376", "h100-sxm", "M"), 24960);
    // gemv N=2^20 -> grid.y 262,144; the largest N with N/4 <= 65,535 is 262,140.
    EXPECT_EQ(nearest("awq_gemv", "gemv", "N=1048576", "h100-sxm", "N"), 262140);
    // gemm_bucket at the top of M's range: 16,776,704 values above 512.
    EXPECT_EQ(nearest("gemm_bucket", "oproj", "M=16777216", "h100-sxm", "M"), 512);
}

TEST(NearestPassingValue, CrossesASecondFailureOnTheWay) {
    // attention batch 65,536 fails on grid.y; every batch from 65,535 down to 1,276 runs out of memory
    // (67,371,008 B per sequence, 80 GiB); 1,275 is the nearest value that launches.
    EXPECT_EQ(nearest("attention", "fa2", "batch=65536", "h100-sxm", "batch"), 1275);
    const LaunchPlan p = plan("attention", "fa2", "batch=65536", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.fix,
              "nearest passing batch: 1275 (batch=1275,seqlen_q=2048,seqlen_k=2048,heads=32,head_dim=128,"
              "head_dim_v=128,causal=0,num_splits=0,dropout=0,fa2_version=283)");
}

TEST(NearestPassingValue, NoneWhenNoValueOfTheParameterPasses) {
    // FA2 with head_dim_v = 264: head_dim must equal it, and 264 > 256.
    EXPECT_FALSE(nearest("attention", "fa2", "head_dim=264,head_dim_v=264", "h100-sxm", "head_dim"));
    // T4 refuses FlashAttention whatever the head_dim.
    EXPECT_FALSE(nearest("attention", "fa2", "", "t4", "head_dim"));
    // gemm_bucket on A100 at M=640 along N: no N makes M=640 fit a bucket.
    EXPECT_FALSE(nearest("gemm_bucket", "oproj", "M=640", "a100-80gb-sxm", "N"));
    // Parameters out of range.
    const KernelChoice k = kernel("gemm_bucket", "oproj");
    EXPECT_FALSE(nearestPassingValue(k, shape(k, "M=640"), device("h100-sxm"), -1));
    EXPECT_FALSE(nearestPassingValue(k, shape(k, "M=640"), device("h100-sxm"), 3));
}

TEST(AttachFix, OkPlansHaveNoFix) {
    const LaunchPlan p = plan("gemm_bucket", "oproj", "M=64", "h100-sxm");
    EXPECT_TRUE(p.fix.empty());
    EXPECT_FALSE(p.fixShape);
}

TEST(AttachFix, DevicesAreOnlySuggestedWithADatabaseAndNeverTheSameOne) {
    const KernelChoice k = kernel("awq_gemm", "prefill");
    const Shape s = shape(k, "M=128");
    LaunchPlan withDb = planWithFix(k, s, device("t4"), &DeviceDatabase::embedded());
    LaunchPlan without = planWithFix(k, s, device("t4"), nullptr);
    // An architecture every GPU of which runs it is named once; t4's own (sm_75: 65,536 B opt-in) does not run it.
    EXPECT_NE(withDb.fix.find("; or this shape runs on every database GPU of sm_80, sm_86,"), std::string::npos) << withDb.fix;
    EXPECT_EQ(withDb.fix.find("sm_75"), std::string::npos) << withDb.fix;
    EXPECT_EQ(withDb.fix.find("t4"), std::string::npos);
    EXPECT_EQ(without.fix, "nearest passing M: 129 (M=129,N=4096,K=4096,group_size=128)");
}

TEST(AttachFix, NoFailingParameterMeansNoNearestValue) {
    // unsupported_device names no parameter: only the alternative and the devices.
    const LaunchPlan p = plan("attention", "sm120_tile_search", "", "t4");
    EXPECT_EQ(p.failingParameter, -1);
    EXPECT_FALSE(p.fixShape);
    EXPECT_EQ(p.fix.rfind("run attention through PyTorch SDPA", 0), 0u);
}

// Issue #15 item 4: head_dim=100 fails "% 8", but no head_dim alone passes while head_dim_v stays
// 100 (FA2 needs them equal), so the fix was empty and "Move to the suggested shape" disabled.
TEST(AttachFix, ParametersThatMustStayEqualMoveTogether) {
    const LaunchPlan p = plan("attention", "fa2", "head_dim=100,head_dim_v=100", "h100-sxm");
    ASSERT_FALSE(p.ok());
    ASSERT_TRUE(p.fixShape);
    const KernelChoice k = kernel("attention", "fa2");
    const auto& parameters = k.family->parameters();
    EXPECT_EQ((*p.fixShape)[parameterIndex(parameters, "head_dim")], 96);
    EXPECT_EQ((*p.fixShape)[parameterIndex(parameters, "head_dim_v")], 96);
    EXPECT_NE(p.fix.find("nearest passing head_dim and head_dim_v: 96"), std::string::npos) << p.fix;
    // A parameter that can move alone still moves alone.
    const LaunchPlan alone = plan("awq_gemm", "gemm", "M=16,N=4096,K=4096,group_size=138", "h100-sxm");
    EXPECT_NE(alone.fix.find("nearest passing group_size: 128"), std::string::npos) << alone.fix;
}

// Issue #31 item 11: head_dim=100 with head_dim_v left at 128 suggested "nearest passing head_dim:
// 128" with no reason; 96 and 104 pass the "% 8" rule but fail FA2's head_dim_v == head_dim, so the
// fix names head_dim_v as the parameter that holds the answer at 128.
TEST(AttachFix, NamesTheParameterThatHoldsTheNearestValue) {
    const LaunchPlan p = plan("attention", "fa2", "head_dim=100", "h100-sxm");
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.fix.find("nearest passing head_dim: 128, given head_dim_v = 128 (nearer head_dim values fail with that head_dim_v) ("),
              std::string::npos)
        << p.fix;
    // The rule may name only the moved parameter while the other one sets its bound: sm120's shared
    // memory for (head_dim, head_dim_v) = (512, 512) (tests/cli/diagnose_golden/diagnose_fa4_sm120.txt).
    const LaunchPlan sm120 = plan("attention", "sm120_tile_search", "head_dim=512,head_dim_v=512", "rtx-5090");
    ASSERT_FALSE(sm120.ok());
    EXPECT_NE(sm120.fix.find("nearest passing head_dim: 128, given head_dim_v = 512 (nearer head_dim values fail with that head_dim_v) ("),
              std::string::npos)
        << sm120.fix;
    // When nearer values fail on the moved parameter itself, no other parameter is named.
    const LaunchPlan alone = plan("awq_gemm", "gemm", "M=16,N=4096,K=4096,group_size=138", "h100-sxm");
    EXPECT_EQ(alone.fix.find("given"), std::string::npos) << alone.fix;
    const LaunchPlan together = plan("attention", "fa2", "head_dim=100,head_dim_v=100", "h100-sxm");
    EXPECT_EQ(together.fix.find("given"), std::string::npos) << together.fix;
}

}  // namespace
}  // namespace tilescope

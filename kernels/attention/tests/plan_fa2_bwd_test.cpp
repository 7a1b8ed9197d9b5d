// attention fa2_bwd against flash-attn's mha_bwd checks per release and v2.8.3's backward launch.
#include <gtest/gtest.h>

#include <string>

#include "kernels/attention/plan.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

std::string bwd(int headDim, int version, bool dropout) {
    return "head_dim=" + std::to_string(headDim) + ",head_dim_v=" + std::to_string(headDim) + ",fa2_version=" + std::to_string(version) +
           ",dropout=" + (dropout ? "1" : "0");
}

// v2.4.3 flash_api.cpp:771-772 (mha_bwd, through v2.5.4): every head_dim > 192 needs sm80 or sm90.
TEST(AttentionFa2Bwd, V243_FlashApiCpp771_HeadDimOver192NeedsSm80OrSm90) {
    for (int d : {200, 224, 256}) {
        const LaunchPlan sm86 = plan("attention", "fa2_bwd", bwd(d, 243, false), "a10");
        EXPECT_EQ(sm86.verdict, Verdict::UnsupportedDevice) << d;
        EXPECT_EQ(sm86.message, "FlashAttention backward for head dim > 192 requires A100/A800 or H100/H800");
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(d, 243, false), "a100-80gb-sxm").verdict, Verdict::Ok) << d;
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(d, 243, false), "h100-sxm").verdict, Verdict::Ok) << d;
    }
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(192, 243, true), "rtx-4090").verdict, Verdict::Ok);
}

// v2.4.3 flash_api.cpp:729-732: is_sm8x (major 8) or is_sm90 (9.0 exactly): Blackwell is refused before v2.7.3.
TEST(AttentionFa2Bwd, V243_FlashApiCpp729_BlackwellRefusedBefore273) {
    const LaunchPlan old = plan("attention", "fa2_bwd", bwd(128, 243, false), "b200");
    EXPECT_EQ(old.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(old.message, "FlashAttention only supports Ampere GPUs or newer.");
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(128, 283, false), "b200").verdict, Verdict::Ok);
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(128, 283, false), "t4").verdict, Verdict::UnsupportedDevice);
}

// v2.5.5 flash_api.cpp:786-787 (the same text through v2.6.1, flash_api.cpp:868-869 there): (192, 224] always,
// 256 only with dropout.
TEST(AttentionFa2Bwd, V255ToV261_FlashApiCpp786_Hd224OrHd256WithDropout) {
    const std::string text =
        "FlashAttention backward for head dim 256 with dropout, or head dim 224 with/without dropout requires A100/A800 or H100/H800";
    for (int version : {255, 261}) {
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(224, version, false), "a10").message, text) << version;
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(256, version, true), "rtx-4090").message, text) << version;
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(256, version, false), "rtx-4090").verdict, Verdict::Ok) << version;
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(224, version, false), "a100-80gb-sxm").verdict, Verdict::Ok) << version;
    }
}

// v2.6.2 flash_api.cpp:879-880, the first tag with this text (v2.6.1 still has the 224 one), the same
// through v2.7.2 (flash_api.cpp:851-852 there): > 192 only with dropout. 270 reads as 262.
TEST(AttentionFa2Bwd, V262ToV272_FlashApiCpp879_Over192WithDropoutOnly) {
    for (int version : {262, 270, 272}) {
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(224, version, false), "a10").verdict, Verdict::Ok) << version;
        const LaunchPlan p = plan("attention", "fa2_bwd", bwd(224, version, true), "a10");
        EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice) << version;
        EXPECT_EQ(p.message, "FlashAttention backward for head dim > 192 with dropout requires A100/A800 or H100/H800") << version;
        EXPECT_EQ(plan("attention", "fa2_bwd", bwd(224, version, true), "a100-80gb-sxm").verdict, Verdict::Ok) << version;
    }
}

// v2.8.3 flash_bwd_launch_template.h:285-305 run_mha_bwd_hdim256: the kernel per opt-in shared memory,
// and none at all with dropout below 144 KB (no error raised). Smem from kernel_traits.h:278-290.
TEST(AttentionFa2Bwd, V283_FlashBwdLaunchTemplate285_Hdim256KernelPerOptin) {
    const LaunchPlan sm89 = plan("attention", "fa2_bwd", bwd(256, 283, false), "rtx-4090");
    ASSERT_EQ(sm89.verdict, Verdict::Ok) << sm89.message;
    EXPECT_EQ(sm89.dynamicSmem, 98304);  // the "99 KB" branch: 64x32, V in registers, one buffer
    EXPECT_EQ(sm89.grid.x, 2048 / 32);
    const LaunchPlan a100 = plan("attention", "fa2_bwd", bwd(256, 283, false), "a100-80gb-sxm");
    EXPECT_EQ(a100.dynamicSmem, 147456);  // 144 KB: no double buffering
    const LaunchPlan h100 = plan("attention", "fa2_bwd", bwd(256, 283, false), "h100-sxm");
    EXPECT_EQ(h100.dynamicSmem, 64 * 256 * 2 * 3 + 64 * 256 * 4 + 2 * 64 * 64 * 2);
    const LaunchPlan dropout = plan("attention", "fa2_bwd", bwd(224, 283, true), "a10");
    EXPECT_EQ(dropout.verdict, Verdict::NoTileFits);
    EXPECT_NE(dropout.message.find("launches no backward kernel"), std::string::npos);
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(224, 283, true), "a100-80gb-sxm").verdict, Verdict::Ok);
}

// v2.8.3 flash_api.cpp:829-830: the multiple-of-8 and at-most-256 texts of mha_bwd.
TEST(AttentionFa2Bwd, V283_FlashApiCpp829_HeadDimTexts) {
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(100, 283, false), "h100-sxm").message, "head_size should be a multiple of 8");
    EXPECT_EQ(plan("attention", "fa2_bwd", bwd(264, 283, false), "h100-sxm").message,
              "FlashAttention backward only supports head dimension at most 256");
}

// run_flash_bwd_seqk_parallel: grid_n(num_n_block, b, h): batch in grid.y, over 65,535 is refused.
TEST(AttentionFa2Bwd, V283_GridYIsBatch) {
    const LaunchPlan p = plan("attention", "fa2_bwd", bwd(128, 283, false) + ",batch=70000,seqlen_q=16,seqlen_k=16", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->name, "max_grid_dim_y");
}

// Tilescope builds no backward kernel: fa2_bwd is the one attention variant with nothing to run, so
// run, sweep --run and GPU > Run refuse it (KernelChoice::hasDeviceCode).
TEST(AttentionFa2Bwd, HasNoDeviceCodeUnlikeTheForward) {
    EXPECT_FALSE(test::kernel("attention", "fa2_bwd").hasDeviceCode());
    EXPECT_TRUE(test::kernel("attention", "fa2").hasDeviceCode());
    EXPECT_TRUE(test::kernel("attention", "sm120_tile_search").hasDeviceCode());
    EXPECT_FALSE(test::kernel("xformers", "memory_efficient").hasDeviceCode());
}

}  // namespace
}  // namespace tilescope

// fa3 against flash-attention v2.8.3 hopper/flash_api.cpp mha_fwd's checks.
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// hopper/flash_api.cpp:744-745: head_size <= 256.
TEST(Fa3, V283_HopperFlashApiCpp744_HeadDimAtMost256) {
    EXPECT_EQ(plan("fa3", "fwd", "head_dim=512,head_dim_v=512", "h100-sxm").message,
              "FlashAttention forward only supports head dimension at most 256");
    EXPECT_EQ(plan("fa3", "fwd", "head_dim=256,head_dim_v=256", "h100-sxm").verdict, Verdict::Ok);
}

// hopper/flash_api.cpp:747-752: different V head dim: DeepSeek's (192, 128) on Hopper only.
TEST(Fa3, V283_HopperFlashApiCpp747_DifferentVHeadDim) {
    EXPECT_EQ(plan("fa3", "fwd", "head_dim=192,head_dim_v=128", "h100-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("fa3", "fwd", "head_dim=192,head_dim_v=128", "a100-80gb-sxm").message, "Only Hopper supports different V headdim");
    EXPECT_EQ(plan("fa3", "fwd", "head_dim=128,head_dim_v=64", "h100-sxm").verdict, Verdict::UnsupportedShape);
}

// hopper/flash_api.cpp:676-685: sm80+, fp8 from sm90; 819-821: fp8 head dims % 16.
TEST(Fa3, V283_HopperFlashApiCpp676_ArchAndFp8) {
    EXPECT_EQ(plan("fa3", "fwd", "", "t4").message, "FlashAttention only supports Ampere GPUs or newer.");
    EXPECT_EQ(plan("fa3", "fwd", "dtype=2", "rtx-4090").message,
              "FlashAttention on Ampere/Ada cards only supports fp16 and bf16 data type");
    EXPECT_EQ(plan("fa3", "fwd", "dtype=2,head_dim=72,head_dim_v=72", "h100-sxm").message, "head_size should be a multiple of 16");
}

}  // namespace
}  // namespace tilescope

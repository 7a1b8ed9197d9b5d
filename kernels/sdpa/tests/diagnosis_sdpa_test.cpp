// diagnose on real PyTorch SDPA warnings: the flash head-dim filter and the efficient alignment filter.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/core/log_diagnosis.h"

namespace tilescope {
namespace {

// huggingface/transformers#39010: head dims 48 / 48 / 32 refused by check_head_dim_size_flash.
TEST(DiagnosisSdpa, Transformers39010_FlashHeadDimMismatch) {
    const Diagnosis d = test::diagnoseLog("sdpa_flash_head_dim.log");
    ASSERT_FALSE(d.findings.empty());
    const auto it = std::find_if(d.findings.begin(), d.findings.end(), [](const auto& f) { return f.signature == "sdpa.flash_head_dim"; });
    ASSERT_NE(it, d.findings.end());
    EXPECT_EQ(it->line, 3);
    EXPECT_EQ(test::findingValue(*it, "head_dim"), 48);
    EXPECT_EQ(test::findingValue(*it, "head_dim_v"), 32);
    ASSERT_TRUE(it->plan);
    EXPECT_EQ(it->plan->verdict, Verdict::UnsupportedShape);
}

// pytorch/pytorch#110630: the older alignment warning (no sizes): the efficient backend, alignment 8.
TEST(DiagnosisSdpa, Pytorch110630_MemEfficientAlignment) {
    const Diagnosis d = test::diagnoseLog("sdpa_mem_efficient_alignment.log");
    const auto it =
        std::find_if(d.findings.begin(), d.findings.end(), [](const auto& f) { return f.signature == "sdpa.mem_efficient_alignment"; });
    ASSERT_NE(it, d.findings.end());
    EXPECT_EQ(it->family, "sdpa");
    EXPECT_EQ(it->variant, "efficient");
}

}  // namespace
}  // namespace tilescope

// diagnose on real FlashInfer logs: head_dim 224's invalid configuration and decode group sizes.
#include <gtest/gtest.h>

#include "tests/core/log_diagnosis.h"

namespace tilescope {
namespace {

// flashinfer-ai/flashinfer#528: head_dim 224 compiled into a v0.1.x build: num_frags_y 14 = 224 / 16.
TEST(DiagnosisFlashInfer, FlashInfer528_InvalidConfigurationIsHeadDim224) {
    const Diagnosis d = test::diagnoseLog("flashinfer_hd224_invalid_configuration.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "flashinfer.invalid_configuration");
    EXPECT_EQ(f.family, "flashinfer");
    EXPECT_EQ(test::findingValue(f, "head_dim"), 224);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "failed to dispatch head_dim 224");
}

// flashinfer-ai/flashinfer#2896: decode without tensor cores, GQA group 7.
TEST(DiagnosisFlashInfer, FlashInfer2896_DecodeGroupSize7) {
    const Diagnosis d = test::diagnoseLog("flashinfer_decode_group7.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "flashinfer.group_size");
    EXPECT_EQ(f.variant, "decode");
    EXPECT_EQ(test::findingValue(f, "gqa_group_size"), 7);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedShape);
}

}  // namespace
}  // namespace tilescope

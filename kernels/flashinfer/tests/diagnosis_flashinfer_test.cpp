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

// flashinfer-ai/flashinfer#455: head_dim 96 (Phi-3-mini) through SGLang; v0.1.x's Python extension prints
// "<function> failed to dispatch head_dim 96" (python/csrc/pytorch_extension_utils.h:181-200).
TEST(DiagnosisFlashInfer, FlashInfer455_PytorchExtensionUtilsH187_FailedToDispatchHeadDim96) {
    const Diagnosis d = test::diagnoseLog("flashinfer455_head_dim96_title.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "flashinfer.head_dim");
    EXPECT_EQ(f.family, "flashinfer");
    EXPECT_EQ(test::findingValue(f, "head_dim"), 96);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "failed to dispatch head_dim 96");
    EXPECT_NE(f.fix.find("pad to 128"), std::string::npos) << f.fix;
}

// vllm-project/vllm#10154: Llama-3.2-3B (24 / 8 heads) on FlashInfer's CUDA-core decode, group size 3
// (v0.1.6 python/flashinfer/decode.py:514-521).
TEST(DiagnosisFlashInfer, Vllm10154_DecodePy518_UseTensorCoresForGroupSize3) {
    const Diagnosis d = test::diagnoseLog("vllm10154_flashinfer_group3_title.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "flashinfer.decode_group");
    EXPECT_EQ(f.variant, "decode");
    EXPECT_EQ(test::findingValue(f, "gqa_group_size"), 3);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(f.plan->message, "Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size 3.");
}

}  // namespace
}  // namespace tilescope

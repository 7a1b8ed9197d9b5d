// diagnose on a real flash-attn backward log: the head-dim x architecture gate maps to fa2_bwd.
#include <gtest/gtest.h>

#include "tests/core/log_diagnosis.h"

namespace tilescope {
namespace {

// Dao-AILab/flash-attention#775: Gemma (head_dim 256) on L40S (sm_89), flash-attn <= 2.5.4's wording.
TEST(DiagnosisFa2Bwd, FlashAttention775_L40sGemmaMapsToFa2BwdRule) {
    const Diagnosis d = test::diagnoseLog("fa2_bwd_l40s_gemma.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "attention.bwd_arch");
    EXPECT_EQ(f.family, "attention");
    EXPECT_EQ(f.variant, "fa2_bwd");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.line, 11);
    EXPECT_EQ(test::findingValue(f, "fa2_version"), 243);
    // The L40S of the first line ("8x L40S") is the device; the A100 / H100 the message names as
    // GPUs it requires must not be taken for the failing one.
    EXPECT_EQ(f.deviceId, "l40s");
    EXPECT_EQ(f.command.find(" -d a100"), std::string::npos);
    EXPECT_NE(f.command.find(" -d l40s"), std::string::npos);
    // The map it opens holds the version the log's wording gives, so it shows the refusal above 192.
    EXPECT_NE(f.sweepShape.find("fa2_version=243"), std::string::npos);
}

// unslothai/unsloth#326: the title is the error, the description names no GPU. The A100 / H100 the
// message requires are not the log's device (DeviceMention::required): nothing is planned on them or
// on the database default, and the finding asks for the GPU.
TEST(DiagnosisFa2Bwd, Unsloth326_OnlyRequiredGpusNamedPlansNothing) {
    const Diagnosis d = test::diagnoseLog("fa2_bwd_unsloth326_no_gpu.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "attention.bwd_arch");
    EXPECT_EQ(f.variant, "fa2_bwd");
    EXPECT_TRUE(f.deviceId.empty()) << f.deviceId;
    EXPECT_TRUE(f.deviceText.empty()) << f.deviceText;
    EXPECT_FALSE(f.plan);
    EXPECT_EQ(f.command.find(" -d "), std::string::npos) << f.command;
    EXPECT_NE(f.unknown.find("(A100, H100, H800: GPUs the text requires, which pass)"), std::string::npos) << f.unknown;
}

}  // namespace
}  // namespace tilescope

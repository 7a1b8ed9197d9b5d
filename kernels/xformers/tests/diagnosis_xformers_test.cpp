// diagnose on a real xFormers "No operator found" log: the inputs it prints, each operator's reasons,
// the GPU's capability from fa3F's reason, and cutlassF's attn_bias alignment.
#include <gtest/gtest.h>

#include "tests/core/log_diagnosis.h"

namespace tilescope {
namespace {

// facebookresearch/xformers#1263 (xformers v0.0.30: dispatch.py:76 "No operator found", cutlass.py:98-123
// _check_bias_alignment): a float16 call with a (.., 498, 498) tensor bias on a capability (8, 9) GPU.
TEST(DiagnosisXformers, Xformers1263_DispatchPy76_CutlassRefusesUnalignedBias) {
    const Diagnosis d = test::diagnoseLog("xformers_no_operator_1263.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "xformers.no_operator");
    EXPECT_EQ(f.family, "xformers");
    EXPECT_EQ(f.variant, "memory_efficient");
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    // query/key/value: shape=(2, 498, 8, 32) (torch.float16), lines 3-5.
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::int64_t>>{
             {"batch", 2}, {"seqlen_q", 498}, {"seqlen_k", 498}, {"heads", 8}, {"head_dim", 32}, {"head_dim_v", 32}, {"dtype", 0}})
        EXPECT_EQ(test::findingValue(f, name), value) << name;
    // "your GPU has capability (8, 9)", not fa3F's required "(9, 0)".
    EXPECT_EQ(f.arch, "sm_89");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->limit, 8);
    EXPECT_EQ(f.limit->actual, 248004);  // attn_bias.stride() = (1984032, 248004, 498, 1): 248004 % 8 = 4
    EXPECT_NE(f.title.find("cutlassF-pt: attn_bias.stride(-2) % 8 != 0"), std::string::npos) << f.title;
    EXPECT_NE(f.fix.find("padded to 504"), std::string::npos) << f.fix;
    // The planner models cutlassF's shape and device checks, which this call passes.
    EXPECT_NE(f.explanation.find("the xformers planner's checks pass"), std::string::npos) << f.explanation;
    EXPECT_NE(f.explanation.find("fa3F@0.0.0 (min(query.shape[-1], value.shape[-1]) < 64"), std::string::npos) << f.explanation;
    EXPECT_NE(f.command.find("-k xformers -v memory_efficient"), std::string::npos) << f.command;
}

}  // namespace
}  // namespace tilescope

// diagnose on vLLM's refusal of AWQ below its minimum compute capability, from the public reports in
// tests/data/diagnose_corpus: the GPU read from "Current capability", the vllm variant planned on it
// (where the planner refuses it with vLLM's own text), and a log whose own minimum is not the
// planner's (an older vLLM's 80) keeping its numbers without a plan that would contradict them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/diagnosis/diagnosis.h"
#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

DiagnosisFinding onlyFindingOf(const std::string& corpusLog) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/diagnose_corpus/" + corpusLog, std::ios::binary);
    EXPECT_TRUE(in) << corpusLog;
    std::ostringstream text;
    text << in.rdbuf();
    auto d = diagnoseText(text.str(), builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(d.ok());
    EXPECT_EQ(d->findings.size(), 1u) << corpusLog;
    return d->findings.empty() ? DiagnosisFinding{} : d->findings.front();
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// vllm-project/vllm#4202 (vLLM v0.4.0.post1, GPU 0: Tesla V100-SXM2-32GB).
TEST(DiagnosisAwqGemmVllm, Vllm4202_MinCapability75_V100) {
    const DiagnosisFinding f = onlyFindingOf("vllm4202_awq_v100_sxm2_32gb.log");
    EXPECT_EQ(f.signature, "awq_gemm.vllm_capability");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(f.variant, "vllm");
    EXPECT_EQ(f.deviceId, "v100-sxm2-32gb");
    EXPECT_EQ(f.arch, "sm_70");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "compute_capability");
    EXPECT_EQ(f.limit->limit, AwqGemmFamily::kVllmMinCapability);
    EXPECT_EQ(f.limit->actual, 70);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plannedDevice, "v100-sxm2-32gb");
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.plan->message, f.message) << "the planner refuses it with the log's own text";
    EXPECT_TRUE(contains(f.fix, "Turing (sm_75) or newer")) << f.fix;
    EXPECT_EQ(f.command, "tilescope-cli plan -k awq_gemm -v vllm -d v100-sxm2-32gb -s M=16,N=4096,K=4096,group_size=128");
}

// vllm-project/vllm#1488: "a v100 gpu" in the prose names every V100 of the database.
TEST(DiagnosisAwqGemmVllm, Vllm1488_MinCapability75_V100InTheProse) {
    const DiagnosisFinding f = onlyFindingOf("vllm1488_awq_v100.log");
    EXPECT_EQ(f.signature, "awq_gemm.vllm_capability");
    EXPECT_EQ(f.arch, "sm_70");
    EXPECT_TRUE(f.impliedDevices.empty()) << "the log names its GPU";
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(DeviceDatabase::embedded().find(f.plannedDevice)->computeCapability, (ComputeCapability{7, 0})) << f.plannedDevice;
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedDevice);
}

// vllm-project/vllm#1282: an older vLLM whose AWQ minimum was 80, on a cc 7.5 GPU. The message keeps the
// log's numbers; the planner's 75 passes sm_75, so no plan says otherwise; the fix is the upgrade.
TEST(DiagnosisAwqGemmVllm, Vllm1282_MinCapability80_OlderVllmOnTuring) {
    const DiagnosisFinding f = onlyFindingOf("vllm1282_awq_min80_t4.log");
    EXPECT_EQ(f.signature, "awq_gemm.vllm_capability");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.message,
              "The quantization method awq is not supported for the current GPU. Minimum capability: 80. Current capability: 75.");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->limit, 80);
    EXPECT_EQ(f.limit->actual, 75);
    EXPECT_EQ(f.arch, "sm_75");
    ASSERT_FALSE(f.impliedDevices.empty());
    EXPECT_EQ(f.impliedDevices.front(), "t4");
    EXPECT_FALSE(f.plan) << f.planNote;
    EXPECT_TRUE(contains(f.explanation, "This log's vLLM requires 80; the planner models 75")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "upgrade vLLM")) << f.fix;
    // The command shows what the fix says: the modelled vLLM launches on the implied T4.
    EXPECT_EQ(f.command, "tilescope-cli plan -k awq_gemm -v vllm -d t4");
    const auto kernel = resolveKernel(builtinKernels(), "awq_gemm", "vllm");
    ASSERT_TRUE(kernel.ok());
    const auto& db = DeviceDatabase::embedded();
    const LaunchPlan p = planWithFix(*kernel, Shape::defaults(kernel->family->parameters()), *db.find("t4"), &db);
    EXPECT_TRUE(p.ok()) << p.message;
}

// The same text with a method of no bundled family is core's, never this family's (sasha0552/pascal-pkgs-ci#9).
TEST(DiagnosisAwqGemmVllm, PascalPkgs9_BitsandbytesIsNotClaimed) {
    const DiagnosisFinding f = onlyFindingOf("pascalpkgs9_bitsandbytes_p100.log");
    EXPECT_EQ(f.signature, "vllm.quantization_capability");
    EXPECT_TRUE(f.family.empty());
    EXPECT_EQ(f.arch, "sm_60");
    EXPECT_FALSE(f.plan);
}

}  // namespace
}  // namespace tilescope

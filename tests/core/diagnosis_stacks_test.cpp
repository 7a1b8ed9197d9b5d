// diagnose on errors from stacks Tilescope does not bundle, one exact string each (issue 16): the
// limit, the figures, the devices the text implies and a ready command that replays the failure
// through the custom / triton families (run here, so a printed command is known to work).
#include <gtest/gtest.h>

#include <sstream>

#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_stacks.h"
#include "core/model/fix_finder.h"
#include "kernels/builtin_kernels.h"
#include "kernels/triton/diagnosis.h"

namespace tilescope {
namespace {

DiagnosisFinding only(const std::string& text) {
    auto d = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(d.ok());
    EXPECT_EQ(d->findings.size(), 1u) << text;
    return d->findings.empty() ? DiagnosisFinding{} : d->findings.front();
}

std::int64_t shapeValue(const DiagnosisFinding& f, std::string_view name) {
    for (const auto& v : f.shape)
        if (v.name == name) return v.value;
    ADD_FAILURE() << "no " << name;
    return -1;
}

// Plans a printed `tilescope-cli plan -k K [-v V] [-d D] -s S` as the CLI would.
LaunchPlan replay(const std::string& command) {
    std::istringstream words(command);
    std::string word, kernel, variant, device, shape;
    while (words >> word) {
        if (word == "-k") words >> kernel;
        if (word == "-v") words >> variant;
        if (word == "-d") words >> device;
        if (word == "-s") words >> shape;
    }
    auto choice = resolveKernel(builtinKernels(), kernel, variant);
    EXPECT_TRUE(choice.ok()) << command;
    auto parsed = parseShape(shape, choice->family->parameters());
    EXPECT_TRUE(parsed.ok()) << command << ": " << (parsed.ok() ? "" : parsed.error());
    const auto& db = DeviceDatabase::embedded();
    const DeviceSpec* spec = device.empty() ? &db.defaultDevice() : db.find(device);
    EXPECT_NE(spec, nullptr) << command;
    return planWithFix(*choice, *parsed, *spec, &db);
}

TEST(DiagnosisStacks, HexFiguresOfPtxas) {
    EXPECT_EQ(parseHexBytes("0xc980"), 51584);
    EXPECT_EQ(parseHexBytes("0xc000"), 49152);
    EXPECT_EQ(parseHexBytes("0XC400"), 50176);
    EXPECT_FALSE(parseHexBytes("c980"));
    EXPECT_FALSE(parseHexBytes("0x"));
    EXPECT_FALSE(parseHexBytes("0xc98g"));
}

TEST(DiagnosisStacks, DivisibilityNamesTheNearestMultiples) {
    EXPECT_EQ(divisibilityText(10944, 128),
              "10,944 = 85 x 128 + 64: the nearest multiples of 128 are 10,880 and 11,008; 10,944 is a multiple of 64");
}

// sglang #25484 (H20), as issue 16 quotes it: 0xc980 = 51,584 B of static shared memory, 0xc000 = 48 KB cap.
TEST(DiagnosisStacks, PtxasStaticSharedDataOverTheCap) {
    const auto f = only("ptxas error   : Entry function '...' uses too much shared data (0xc980 bytes, 0xc000 max)\n");
    EXPECT_EQ(f.signature, "ptxas.static_smem");
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_EQ(shapeValue(f, "static_smem"), 51584);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "static_smem_per_block");
    EXPECT_EQ(f.limit->limit, 49152);
    EXPECT_EQ(f.limit->actual, 51584);
    EXPECT_EQ(f.impliedDevices.size(), DeviceDatabase::embedded().devices().size()) << "the cap is every GPU's";
    // The command replays ptxas' refusal through the custom family, word for word.
    EXPECT_EQ(f.command, "tilescope-cli plan -k custom -d h100-sxm -s static_smem=51584");
    const LaunchPlan p = replay(f.command);
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_NE(p.message.find("uses too much shared data (0xc980 bytes, 0xc000 max)"), std::string::npos) << p.message;
}

// flash-attention #2750 (RTX 4090): sm_89 implies every database GPU of compute capability 8.9.
TEST(DiagnosisStacks, CuteLaunchCheckImpliesEveryGpuOfItsArchitecture) {
    const auto f = only("launch shared memory exceeds current GPU arch sm_89 allowed. Allocated: 131072 bytes. Max: 101376 bytes.\n");
    EXPECT_EQ(f.arch, "sm_89");
    EXPECT_EQ(f.impliedDevices, (std::vector<std::string>{"l4", "rtx-4090", "l40s", "rtx-4080", "rtx-4070-ti", "rtx-4070", "rtx-4060-ti",
                                                          "rtx-4060", "rtx-6000-ada", "l40", "l20"}));
    EXPECT_EQ(f.command, "tilescope-cli plan -k custom -d l4 -s dynamic_smem=131072,smem_optin=1");
    const LaunchPlan p = replay(f.command);
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->name, "smem_per_block_optin");
    EXPECT_EQ(p.limit->limit, 101376);
    EXPECT_EQ(p.limit->actual, 131072);
}

// vLLM #57712 (Quadro RTX 6000): "Hardware limit: 65536" is cc 7.5's opt-in limit, every Turing GPU's.
TEST(DiagnosisStacks, TritonHardwareLimitImpliesTheGpusWithThatOptinLimit) {
    const auto f = only(
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: "
        "65536. Reducing block sizes or `num_stages` may help.\n");
    EXPECT_EQ(f.impliedDevices, (std::vector<std::string>{"t4", "rtx-2080-ti", "rtx-2080", "rtx-2070", "rtx-2060", "titan-rtx",
                                                          "quadro-rtx-6000", "quadro-rtx-8000"}));
    EXPECT_EQ(f.command, "tilescope-cli plan -k custom -d t4 -s dynamic_smem=98304,smem_optin=1");
    EXPECT_FALSE(f.unknown.empty()) << "no config in the text: it says what would let it plan the triton family";
    const LaunchPlan p = replay(f.command);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->limit, 65536);
    EXPECT_EQ(p.limit->actual, 98304);
}

// The config in the same log (a kwargs dump) makes it a triton-family plan whose message is Triton's own.
TEST(DiagnosisStacks, TritonConfigInTheLogIsPlannedAsTheTritonFamily) {
    const auto f = only(
        "BLOCK_M=128 BLOCK_N=256 BLOCK_K=64 num_stages=4 num_warps=4\n"
        "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 196608, Hardware limit: "
        "166912. Reducing block sizes or `num_stages` may help.\n");
    EXPECT_EQ(f.family, "triton");
    EXPECT_EQ(shapeValue(f, "dtype_bytes"), 2);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message,
              "out of resource: shared memory, Required: 196608, Hardware limit: 166912. Reducing block sizes or `num_stages` may help.");
    EXPECT_EQ(replay(f.command).message, f.plan->message);
}

TEST(DiagnosisStacks, TritonConfigSpellings) {
    auto log = LogText::parse("triton.Config({'BLOCK_SIZE_M': 64, \"BLOCK_SIZE_N\": 32}, num_stages=2, num_warps=8)\nerror\n");
    ASSERT_TRUE(log.ok());
    const auto config = findTritonConfig(*log, 1, 5);
    ASSERT_EQ(config.size(), 4u);
    EXPECT_EQ(config[0].parameter, "BLOCK_M");
    EXPECT_EQ(config[0].value, 64);
    EXPECT_EQ(config[1].parameter, "BLOCK_N");
    EXPECT_EQ(config[1].value, 32);
    EXPECT_EQ(config[2].parameter, "num_stages");
    EXPECT_EQ(config[3].parameter, "num_warps");
    EXPECT_EQ(config[3].value, 8);
}

// Triton's "threads" OutOfResources, in the format compiler.py / errors.py print it (no public report
// quoted here; the figures are a 64-warp config against the 1,024-thread limit, and one under it).
TEST(DiagnosisStacks, TritonThreadsOverTheGpuLimitIsPlannedAsTheTritonFamily) {
    const auto f = only(
        "triton.runtime.errors.OutOfResources: out of resource: threads, Required: 2048, Hardware limit: 1024. "
        "Reducing block sizes or `num_stages` may help.\n");
    EXPECT_EQ(f.signature, "triton.threads");
    EXPECT_EQ(shapeValue(f, "num_warps"), 64);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "max_threads_per_block");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message,
              "out of resource: threads, Required: 2048, Hardware limit: 1024. Reducing block sizes or `num_stages` may help.");
    EXPECT_EQ(replay(f.command).message, f.plan->message);
    EXPECT_NE(f.fix.find("nearest passing num_warps: 32"), std::string::npos) << f.fix;
}

TEST(DiagnosisStacks, TritonThreadsUnderTheGpuLimitAreTheRegistersAndUnknown) {
    const auto f = only("out of resource: threads, Required: 1024, Hardware limit: 768. Reducing block sizes or `num_stages` may help.\n");
    EXPECT_EQ(f.signature, "triton.threads");
    EXPECT_FALSE(f.plan) << "registers decide a limit under 1,024, and Triton picks them";
    EXPECT_NE(f.explanation.find("registers set the limit"), std::string::npos) << f.explanation;
    EXPECT_EQ(f.fix, "num_warps=24 or fewer");
}

// vLLM #9913: recognised, but nothing in Tilescope models the Marlin kernel that checks it.
TEST(DiagnosisStacks, NotDivisibleIsRecognisedWithoutAModel) {
    const auto f = only(
        "ValueError: Weight input_size_per_partition = 10944 is not divisible by min_thread_k = 128. Consider "
        "reducing tensor_parallel_size or running with --quantization gptq.\n");
    EXPECT_EQ(f.signature, "tile.not_divisible");
    EXPECT_EQ(shapeValue(f, "input_size_per_partition"), 10944);
    EXPECT_EQ(shapeValue(f, "min_thread_k"), 128);
    EXPECT_TRUE(f.family.empty());
    EXPECT_TRUE(f.command.empty());
    EXPECT_FALSE(f.plan);
    EXPECT_NE(f.title.find("recognised, no model"), std::string::npos);
    EXPECT_NE(f.fix.find("10,880 and 11,008"), std::string::npos) << f.fix;
}

}  // namespace
}  // namespace tilescope

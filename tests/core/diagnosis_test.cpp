// diagnose: every signature, on the shared real-style logs and on variations of them (other
// numbers, log prefixes, colour codes, CRLF, wrapped lines).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

std::string readLog(const std::string& name) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/logs/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Diagnosis diagnose(const std::string& text) {
    auto result = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error());
    return result.ok() ? *result : Diagnosis{};
}

// The single finding of a log; fails the test when there is not exactly one.
DiagnosisFinding only(const std::string& text) {
    const Diagnosis d = diagnose(text);
    EXPECT_EQ(d.findings.size(), 1u) << text;
    return d.findings.empty() ? DiagnosisFinding{} : d.findings.front();
}

std::optional<std::int64_t> shapeValue(const DiagnosisFinding& f, std::string_view name) {
    for (const auto& v : f.shape)
        if (v.name == name) return v.value;
    return std::nullopt;
}

// ---- the shared logs (tests/data/logs) -----------------------------------------------------

TEST(DiagnosisLogs, AwqGemvBatchPointsAtTheRaisedErrorNotTheQuotedAssert) {
    const auto f = only(readLog("awq_gemv_batch.log"));
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_EQ(f.family, "awq_gemv");
    EXPECT_EQ(f.variant, "gemv");
    EXPECT_EQ(f.line, 6);  // AssertionError:, not the traceback's quoted source on line 5
    EXPECT_EQ(f.lines, (std::vector<int>{5, 6}));
    EXPECT_EQ(f.message, "AWQ GEMV kernel only supports batch size 1 (got batch size 2)");
    EXPECT_EQ(shapeValue(f, "M"), 2);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedShape);
    EXPECT_NE(f.fix.find("GEMM-packed"), std::string::npos);
    EXPECT_EQ(f.command.rfind("tilescope-cli plan -k awq_gemv -v gemv", 0), 0u);
}

TEST(DiagnosisLogs, GemvFastBatchTakesTheBatchFromTheLineBefore) {
    const auto f = only(readLog("gemv_fast_batch.log"));
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_EQ(f.family, "awq_gemv");
    EXPECT_EQ(f.variant, "gemv_fast");
    EXPECT_EQ(f.line, 2);
    EXPECT_EQ(shapeValue(f, "M"), 8);  // "8 sequences, 1 token each" -> 8 x 1 rows
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedShape);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->limit, 7);
}

TEST(DiagnosisLogs, AwqGemmOcWithoutShapeGivesASweep) {
    const auto f = only(readLog("awq_gemm_oc.log"));
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(f.variant, "gemm");
    EXPECT_EQ(f.line, 7);
    EXPECT_FALSE(f.plan);  // the log gives no out_features
    EXPECT_EQ(f.command.rfind("tilescope-cli sweep -k awq_gemm -v gemm", 0), 0u);
    EXPECT_NE(f.command.find("--x N="), std::string::npos);
}

TEST(DiagnosisLogs, LegacyGridPlansTheLoggedPrefill) {
    const auto f = only(readLog("awq_legacy_grid.log"));
    EXPECT_EQ(f.kind, Verdict::InvalidLaunch);
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(f.variant, "legacy_grid_y");
    EXPECT_EQ(f.line, 10);
    EXPECT_EQ(shapeValue(f, "M"), 32768);         // tokens=32768
    EXPECT_EQ(shapeValue(f, "N"), 5376);          // out_features
    EXPECT_EQ(shapeValue(f, "K"), 4096);          // in_features
    EXPECT_EQ(shapeValue(f, "group_size"), 128);  // q_group_size=128 on line 1
    EXPECT_TRUE(f.deviceId.empty());
    EXPECT_EQ(f.plannedDevice, DeviceDatabase::embedded().defaultId());
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "max_grid_dim_y");
    EXPECT_EQ(f.limit->actual, 86016);  // ceil(32768/16) * 5376/128 = 2048 * 42
    EXPECT_EQ(f.command, "tilescope-cli plan -k awq_gemm -v legacy_grid_y -d h100-sxm --cuda 12 -s M=32768,N=5376,K=4096,group_size=128");
}

TEST(DiagnosisLogs, CascadeMarksLaterCudaErrorsAsConsequences) {
    const Diagnosis d = diagnose(readLog("cascade.log"));
    ASSERT_EQ(d.findings.size(), 2u);  // "illegal memory access" is no shape signature
    EXPECT_EQ(d.findings[0].kind, Verdict::InvalidLaunch);
    EXPECT_EQ(d.findings[0].line, 2);
    EXPECT_FALSE(d.findings[0].consequenceOf);
    EXPECT_TRUE(d.findings[0].family.empty());
    EXPECT_EQ(shapeValue(d.findings[0], "batch"), 64);
    EXPECT_EQ(d.findings[1].kind, Verdict::OutOfMemory);
    EXPECT_EQ(d.findings[1].line, 7);
    EXPECT_EQ(d.findings[1].consequenceOf, 0);
}

TEST(DiagnosisLogs, Fa2HeadDim) {
    const auto f = only(readLog("fa2_headdim.log"));
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_EQ(f.family, "attention");
    EXPECT_EQ(f.variant, "fa2");
    EXPECT_EQ(f.line, 3);
}

TEST(DiagnosisLogs, Fa4Sm120MapsTheGpuAndReplansTheTileSearch) {
    const auto f = only(readLog("fa4_sm120.log"));
    EXPECT_EQ(f.kind, Verdict::NoTileFits);
    EXPECT_EQ(f.family, "attention");
    EXPECT_EQ(f.variant, "sm120_tile_search");
    EXPECT_EQ(f.line, 7);
    EXPECT_EQ(shapeValue(f, "head_dim"), 512);
    EXPECT_EQ(shapeValue(f, "head_dim_v"), 512);
    EXPECT_EQ(shapeValue(f, "smem_limit"), 101376);
    EXPECT_EQ(f.deviceId, "rtx-5090");
    EXPECT_EQ(f.arch, "sm_120");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::NoTileFits);
    EXPECT_EQ(f.plan->message, f.message);  // the planner reproduces the upstream text exactly
}

TEST(DiagnosisLogs, GemmArBucket) {
    const auto f = only(readLog("gemm_ar_bucket.log"));
    EXPECT_EQ(f.kind, Verdict::BucketOverflow);
    EXPECT_EQ(f.family, "gemm_bucket");
    EXPECT_EQ(f.variant, "oproj");
    EXPECT_EQ(f.line, 11);  // the f-string on line 10 has no number
    EXPECT_EQ(shapeValue(f, "M"), 640);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::BucketOverflow);
    EXPECT_NE(f.fix.find("2 calls"), std::string::npos);  // ceil(640 / 512)
}

TEST(DiagnosisLogs, SharedMemoryLaunchOnSm89) {
    const auto f = only(readLog("smem_launch_sm89.log"));
    EXPECT_EQ(f.kind, Verdict::InvalidLaunch);
    EXPECT_EQ(f.signature, "smem.launch_arch");
    EXPECT_EQ(shapeValue(f, "smem_bytes"), 131072);
    EXPECT_EQ(shapeValue(f, "smem_limit"), 101376);
    EXPECT_EQ(shapeValue(f, "head_dim"), 256);
    EXPECT_EQ(f.deviceId, "rtx-4090");
    EXPECT_EQ(f.arch, "sm_89");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "smem_per_block_optin");
    EXPECT_EQ(f.family, "attention");
    // FA2 picks 64x64 for head_dim 256 when the opt-in limit is under 131,072 B: (64 + 2*64) * 256 * 2 = 98,304 B.
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::Ok);
    EXPECT_EQ(f.plan->totalSmem(), 98304);
    EXPECT_NE(f.fix.find("a100-80gb-sxm"), std::string::npos);
    EXPECT_EQ(f.fix.find("rtx-5090"), std::string::npos);
}

TEST(DiagnosisLogs, TooManyResourcesComputesBothWaysOut) {
    const auto f = only(readLog("too_many_resources.log"));
    EXPECT_EQ(f.kind, Verdict::OutOfResources);
    EXPECT_EQ(f.family, "awq_gemm");  // "at kernels/awq_gemm/kernel.cu"
    EXPECT_EQ(shapeValue(f, "threads_per_block"), 1024);
    EXPECT_EQ(shapeValue(f, "registers_per_thread"), 96);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "regs_per_block");
    EXPECT_EQ(f.limit->limit, 65536);
    EXPECT_EQ(f.limit->actual, 98304);                          // 96 x 32 = 3,072 per warp x 32 warps
    EXPECT_NE(f.fix.find("64 per thread"), std::string::npos);  // 65,536 / 32 warps / 32 lanes
    // 21 warps fit the raw register file (21 x 3,072 = 64,512), but the hardware checks warps rounded up
    // to its 4 sub-partitions: 24 x 3,072 > 65,536, so 20 warps = 640 threads (61,440 registers).
    EXPECT_NE(f.fix.find("640 threads"), std::string::npos);
}

// ---- variations -------------------------------------------------------------------------------

// Every shared log, re-written as another stack would print it, must give the same findings.
TEST(DiagnosisVariations, EverySharedLogSurvivesPrefixesColoursAndCrlf) {
    for (const char* name :
         {"awq_gemm_oc.log", "awq_gemv_batch.log", "awq_legacy_grid.log", "cascade.log", "fa2_headdim.log", "fa4_sm120.log",
          "gemm_ar_bucket.log", "gemv_fast_batch.log", "smem_launch_sm89.log", "too_many_resources.log"}) {
        const std::string plain = readLog(name);
        std::string varied;
        std::istringstream lines(plain);
        for (std::string line; std::getline(lines, line);) varied += "[rank7]: \x1b[33m" + line + "\x1b[0m\r\n";
        const Diagnosis a = diagnose(plain);
        const Diagnosis b = diagnose(varied);
        ASSERT_EQ(a.findings.size(), b.findings.size()) << name;
        ASSERT_FALSE(a.findings.empty()) << name;
        for (std::size_t i = 0; i < a.findings.size(); ++i) {
            EXPECT_EQ(a.findings[i].signature, b.findings[i].signature) << name;
            EXPECT_EQ(a.findings[i].line, b.findings[i].line) << name;
            EXPECT_EQ(a.findings[i].message, b.findings[i].message) << name;
            EXPECT_EQ(a.findings[i].deviceId, b.findings[i].deviceId) << name;
            EXPECT_EQ(a.findings[i].shape.size(), b.findings[i].shape.size()) << name;
            EXPECT_EQ(a.findings[i].consequenceOf, b.findings[i].consequenceOf) << name;
        }
    }
}

TEST(DiagnosisVariations, PrefixesColoursAndCrlf) {
    const auto f = only("\x1b[1;31m[rank0]: ValueError: gemm_ar: M=777 outside [1, 512]\x1b[0m\r\n[rank0]: done\r\n");
    EXPECT_EQ(f.kind, Verdict::BucketOverflow);
    EXPECT_EQ(shapeValue(f, "M"), 777);
    EXPECT_EQ(f.message, "gemm_ar: M=777 outside [1, 512]");
    const auto g = only("[31m2026-01-01 10:00:00 ERROR gemm_ar: M=0 outside [1, 512][0m\n");
    EXPECT_EQ(shapeValue(g, "M"), 0);
}

TEST(DiagnosisVariations, MessageWrappedAfterALogPrefix) {
    const auto f = only(
        "[rank3]: ValueError: (head_dim, head_dim_v)=(256, 256) exceeds SM89\n"
        "[rank3]: shared-memory capacity (101376 bytes)\n");
    EXPECT_EQ(f.kind, Verdict::NoTileFits);
    EXPECT_EQ(f.line, 1);
    EXPECT_EQ(shapeValue(f, "head_dim"), 256);
    EXPECT_EQ(f.arch, "sm_89");
    EXPECT_TRUE(f.deviceId.empty());  // sm_89 is both the L4 and the RTX 4090
    EXPECT_FALSE(f.plannedDevice.empty());
}

TEST(DiagnosisVariations, MessageHardWrappedInsideAWord) {
    const auto f = only("ValueError: (head_dim, head_dim_v)=(320, 320) exceeds SM120 shared-mem\nory capacity (101376 bytes)\n");
    EXPECT_EQ(f.kind, Verdict::NoTileFits);
    EXPECT_EQ(shapeValue(f, "head_dim"), 320);
    // SM120 fits three database GPUs (RTX 5090, RTX PRO 6000 Blackwell, RTX 5070 Ti): no single device,
    // planned on the first of them.
    EXPECT_EQ(f.deviceId, "");
    EXPECT_EQ(f.arch, "sm_120");
    EXPECT_EQ(f.plannedDevice, "rtx-5090");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::NoTileFits);
}

TEST(DiagnosisVariations, CuteLaunchMessageWrappedBeforeItsFigures) {
    const auto f = only(
        "Error: kernel 'k' launch shared memory exceeds current GPU arch sm_100a allowed.\n"
        "Allocated: 262176 bytes. Max: 232448 bytes.\n");
    EXPECT_EQ(shapeValue(f, "smem_bytes"), 262176);
    EXPECT_EQ(shapeValue(f, "smem_limit"), 232448);
    EXPECT_EQ(f.deviceId, "b200");  // the only sm_100 GPU in the database
}

TEST(DiagnosisVariations, TritonSharedMemory) {
    const auto f = only(
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 212992, "
        "Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n");
    EXPECT_EQ(f.kind, Verdict::InvalidLaunch);
    EXPECT_EQ(shapeValue(f, "smem_bytes"), 212992);
    EXPECT_NE(f.explanation.find("sm_89"), std::string::npos);
    EXPECT_NE(f.fix.find("h100-sxm"), std::string::npos);
}

TEST(DiagnosisVariations, PytorchOutOfMemory) {
    const auto f = only(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.64 GiB of which 1.05 GiB is free.\n");
    EXPECT_EQ(f.kind, Verdict::OutOfMemory);
    EXPECT_EQ(shapeValue(f, "tried_to_allocate_bytes"), 2147483648);  // 2 x 1024^3
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->name, "free_memory_bytes");
}

TEST(DiagnosisVariations, InvalidConfigurationWithOtherNumbers) {
    // ceil(16384/16) * 8192/128 = 1024 * 64 = 65,536 > 65,535
    const auto f = only(
        "INFO awq gemm prefill tokens=16384 in_features=4096 out_features=8192\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_EQ(f.variant, "legacy_grid_y");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->actual, 65536);
    // One block-row less fits: 4095 rows -> 256 * 64 ... the planner's fix names a passing M.
    ASSERT_TRUE(f.plan->fixShape);
}

TEST(DiagnosisVariations, GemmChecksWithShapes) {
    auto f = only("layer out_features=5000 in_features=4096\nValueError: OC is not multiple of cta_N = 64\n");
    EXPECT_EQ(shapeValue(f, "N"), 5000);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "OC is not multiple of cta_N = 64");
    f = only("q_group_size=48\nGroup size should be a multiple of 32\n");
    EXPECT_EQ(f.signature, "awq_gemm.group_multiple");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "Group size should be a multiple of 32");
    f = only("OC is not multiple of pack_num = 8");
    EXPECT_EQ(f.signature, "awq_gemm.pack_num");
    f = only("N=4160 group_size=128\nOC is not multiple of Group size\n");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "OC is not multiple of Group size");  // 4160 = 65 x 64, not a multiple of 128
}

TEST(DiagnosisVariations, BatchSizeOneWithoutAwqContextNamesNoKernel) {
    const auto f = only("RuntimeError: this backend only supports batch size 1 (got batch size 4)\n");
    EXPECT_EQ(f.kind, Verdict::UnsupportedShape);
    EXPECT_TRUE(f.family.empty());
    EXPECT_FALSE(f.plan);
    EXPECT_EQ(shapeValue(f, "batch"), 4);
    const auto g = only("loading awq model\nAssertionError: only supports batch size 1 (got batch size 4)\n");
    EXPECT_EQ(g.family, "awq_gemv");
}

TEST(DiagnosisVariations, SynchronousChecksAfterACudaErrorAreNotConsequences) {
    const Diagnosis d = diagnose(
        "RuntimeError: CUDA error: out of memory\n"
        "ValueError: gemm_ar: M=640 outside [1, 512]\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    ASSERT_EQ(d.findings.size(), 3u);
    EXPECT_FALSE(d.findings[0].consequenceOf);
    EXPECT_FALSE(d.findings[1].consequenceOf);  // a Python shape check is raised where it happens
    EXPECT_EQ(d.findings[2].consequenceOf, 0);
    EXPECT_NE(only("Out of memory: Killed process 4242 (python)").title.find("host"), std::string::npos);
}

TEST(DiagnosisVariations, GemvGroupSize) {
    const auto f = only("quant: w_bit=4 q_group_size=32 version=gemv\nUnsupported group size for gemv kernel.\n");
    EXPECT_EQ(f.family, "awq_gemv");
    EXPECT_EQ(shapeValue(f, "group_size"), 32);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message, "Unsupported group size for gemv kernel.");
}

TEST(DiagnosisVariations, FlashAttentionChecks) {
    auto f = only("GPU: Tesla T4\nRuntimeError: FlashAttention only supports Ampere GPUs or newer.\n");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.deviceId, "t4");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedDevice);
    f = only("head_dim=100\nRuntimeError: query, key, value, and out_ must have a head_size that is a multiple of 8\n");
    EXPECT_EQ(f.signature, "attention.head_dim_multiple");
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::UnsupportedShape);
    f = only("head_dim=384 RuntimeError: FlashAttention forward only supports head dimension at most 256");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->actual, 384);
    EXPECT_EQ(only("RuntimeError: FlashAttention only support fp16 and bf16 data type").signature, "attention.dtype");
    EXPECT_EQ(only("RuntimeError: query and key must have the same dtype").signature, "attention.same_dtype");
    EXPECT_EQ(only("RuntimeError: bfloat16 is only supported on Ampere GPUs or newer").kind, Verdict::UnsupportedDevice);
}

TEST(DiagnosisVariations, VllmBf16OnT4) {
    const auto f = only(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
        "Tesla T4 GPU has compute capability 7.5.");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.deviceId, "t4");
    EXPECT_EQ(f.arch, "sm_75");
}

TEST(DiagnosisVariations, SameErrorOnEveryRankIsOneFinding) {
    const Diagnosis d = diagnose(
        "[rank0]: ValueError: gemm_ar: M=640 outside [1, 512]\n"
        "[rank1]: ValueError: gemm_ar: M=640 outside [1, 512]\n");
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].lines, (std::vector<int>{1, 2}));
}

TEST(DiagnosisVariations, UnknownEmptyAndBinary) {
    EXPECT_TRUE(diagnose("all good\nserving 12 requests\n").findings.empty());
    EXPECT_FALSE(diagnoseText("", builtinKernels(), DeviceDatabase::embedded()).ok());
    EXPECT_FALSE(diagnoseText(" \r\n\t\n", builtinKernels(), DeviceDatabase::embedded()).ok());
    const std::string binary("ELF\0\1\2", 6);
    auto r = diagnoseText(binary, builtinKernels(), DeviceDatabase::embedded());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("binary"), std::string::npos);
}

TEST(DiagnosisJson, ContractKeys) {
    const auto d = diagnose(readLog("cascade.log"));
    const auto j = diagnosisToJson(d, builtinKernels());
    ASSERT_EQ(j["findings"].size(), 2u);
    for (const char* key : {"kind", "family", "variant", "message", "line", "shape", "device", "fix", "command", "consequence_of"})
        EXPECT_TRUE(j["findings"][0].contains(key)) << key;
    EXPECT_TRUE(j["findings"][0]["family"].is_null());
    EXPECT_TRUE(j["findings"][0]["consequence_of"].is_null());
    EXPECT_EQ(j["findings"][1]["consequence_of"], 0);
    EXPECT_EQ(j["findings"][1]["kind"], "out_of_memory");
}

TEST(DeviceNames, MapToDatabaseIdsWhereUnambiguous) {
    const auto& db = DeviceDatabase::embedded();
    using Ids = std::vector<std::string>;
    EXPECT_EQ(matchDeviceName("NVIDIA GeForce RTX 5090", db), Ids{"rtx-5090"});
    EXPECT_EQ(matchDeviceName("RTX5090", db), Ids{"rtx-5090"});
    EXPECT_EQ(matchDeviceName("sm_120", db),
              (Ids{"rtx-5090", "rtx-pro-6000-blackwell", "rtx-5070-ti", "rtx-5080", "rtx-5070", "rtx-5060-ti"}));
    EXPECT_EQ(matchDeviceName("RTX 4090 (sm_89)", db), Ids{"rtx-4090"});
    EXPECT_EQ(matchDeviceName("sm_89", db), (Ids{"l4", "rtx-4090", "l40s", "rtx-4080", "rtx-4070-ti", "rtx-4070", "rtx-4060-ti", "rtx-4060",
                                                 "rtx-6000-ada", "l40", "l20"}));
    EXPECT_EQ(matchDeviceName("NVIDIA H100 80GB HBM3", db), Ids{"h100-sxm"});
    EXPECT_EQ(matchDeviceName("H100 PCIe", db), Ids{"h100-pcie"});
    EXPECT_EQ(matchDeviceName("H100", db).size(), 2u);
    EXPECT_EQ(matchDeviceName("A100-SXM4-40GB", db), Ids{"a100-40gb-sxm"});
    // A board code names no memory size or form: every A100.
    EXPECT_EQ(matchDeviceName("A100-PG509-200", db), (Ids{"a100-80gb-sxm", "a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie"}));
    EXPECT_EQ(matchDeviceName("GeForce GTX 1080", db), Ids{"gtx-1080"});  // not the 1080 Ti
    EXPECT_EQ(matchDeviceName("GeForce GTX 1080 Ti", db), Ids{"gtx-1080-ti"});
    EXPECT_EQ(matchDeviceName("L40S", db), Ids{"l40s"});       // not the L4
    EXPECT_EQ(matchDeviceName("NVIDIA L4", db), Ids{"l4"});    // not the L40S
    EXPECT_EQ(matchDeviceName("NVIDIA A10", db), Ids{"a10"});  // not the A100
    EXPECT_EQ(matchDeviceName("NVIDIA A40", db), Ids{"a40"});
    EXPECT_EQ(matchDeviceName("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", db), Ids{"rtx-pro-6000-blackwell"});
    EXPECT_EQ(matchDeviceName("NVIDIA GeForce RTX 5070 Ti", db), Ids{"rtx-5070-ti"});
    EXPECT_EQ(matchDeviceName("Quadro RTX 6000", db), Ids{"quadro-rtx-6000"});  // Turing, not the RTX PRO 6000 Blackwell
    EXPECT_EQ(matchDeviceName("NVIDIA RTX 6000 Ada Generation", db), Ids{"rtx-6000-ada"});
    EXPECT_EQ(matchDeviceName("NVIDIA GeForce RTX 3090 Ti", db), Ids{"rtx-3090-ti"});
    EXPECT_EQ(matchDeviceName("NVIDIA GeForce RTX 3090", db), Ids{"rtx-3090"});  // not the Ti
    EXPECT_EQ(matchDeviceName("Tesla V100-SXM2-32GB", db), Ids{"v100-sxm2-32gb"});
    EXPECT_EQ(matchDeviceName("NVIDIA H20", db), Ids{"h20"});  // not the H200
    EXPECT_EQ(matchDeviceName("Orin", db).size(), 4u);         // the four Jetson Orin modules
    EXPECT_EQ(matchDeviceName("TITAN RTX", db), Ids{"titan-rtx"});
}

}  // namespace
}  // namespace tilescope

// GPU names as logs write them (core/diagnosis/device_names): every input is a line copied from the
// public report named beside it (tests/data/README.md lists them too).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/diagnosis/device_names.h"
#include "core/diagnosis/diagnosis.h"
#include "core/model/device_spec.h"
#include "core/model/text_format.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

using Ids = std::vector<std::string>;

const DeviceDatabase& db() { return DeviceDatabase::embedded(); }

Ids idsOf(std::string_view text) { return matchProductName(text, db(), nullptr); }

std::vector<DeviceMention> mentionsOf(const std::string& text) {
    auto log = LogText::parse(text);
    EXPECT_TRUE(log.ok());
    return findDeviceMentions(*log, db());
}

std::string readLog(const std::string& name) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/logs/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(DeviceNames, TorchAndNvidiaSmiNames) {
    // https://github.com/vllm-project/vllm/issues/7865 (collect_env)
    EXPECT_EQ(idsOf("GPU 0: NVIDIA H20"), Ids{"h20"});
    // https://github.com/sgl-project/sglang/issues/4572 (sglang's check_env)
    EXPECT_EQ(idsOf("GPU 0,1,2,3,4,5,6,7: NVIDIA H20"), Ids{"h20"});
    // https://github.com/RightNow-AI/AutoMegaKernel/pull/3
    EXPECT_EQ(idsOf("Validated on an NVIDIA H20 96GB system:"), Ids{"h20"});
    // https://github.com/triton-lang/triton/issues/187 (collect_env)
    EXPECT_EQ(idsOf("GPU models and configuration: GPU 0: GeForce GTX 1080 Ti"), Ids{"gtx-1080-ti"});
    // https://github.com/easydiffusion/torchruntime/issues/24 (lspci -nn)
    EXPECT_EQ(idsOf("1b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H200 SXM 141GB] [10de:2335] (rev a1)"), Ids{"h200"});
    // https://github.com/TristanBilot/mlx-benchmark/pull/12
    EXPECT_EQ(idsOf("Average and detailed results for NVIDIA A100 80GB (PCIe) / Intel Xeon Platinum 8358 CPU"), Ids{"a100-80gb-pcie"});
    // https://github.com/dexmal/dexbotic/issues/41 (nvidia-smi): the A800 is not in the database.
    EXPECT_TRUE(idsOf("|   0  NVIDIA A800-SXM4-80GB          On  | 00000000:27:00.0 Off |                    0 |").empty());
    // https://github.com/NVIDIA/cosmos-framework/pull/114: neither is the B300.
    EXPECT_TRUE(idsOf("torch.cuda.get_device_name() returns 'NVIDIA B300 SXM6 AC', which the device->peak-FLOPs table").empty());
    // https://github.com/catie-aq/flashT5/issues/6: "A10g" is AWS's A10G, not the A10.
    EXPECT_TRUE(
        idsOf("I tried to fine-tune https://huggingface.co/CATIE-AQ/FAT5-small-flan-en but I got this error on A10g / AWS EC2:").empty());
}

TEST(DeviceNames, RunTogetherLowercaseAndCounted) {
    std::string matched;
    // https://github.com/Meituan-AutoML/MobileVLM/issues/40 (title)
    EXPECT_EQ(idsOf("FlashAttention1.0.9 error in 2080Ti"), Ids{"rtx-2080-ti"});
    // https://github.com/FlashML-org/FreeToken/issues/246 (title)
    EXPECT_EQ(idsOf("window 11 \xe5\x90\xaf\xe5\x8a\xa8\xe8\xbf\x87\xe7\xa8\x8b\xe4\xb8\xad\xe5\x87\xba\xe7\x8e\xb0 Required: 98304, , "
                    "Hardware limit: 65536. rtx2080ti 22G"),
              Ids{"rtx-2080-ti"});
    // https://github.com/alipay/PainlessInferenceAcceleration/issues/35
    EXPECT_EQ(idsOf("RTX3090 24G"), Ids{"rtx-3090"});
    // https://github.com/triton-lang/triton/issues/384: two of them.
    EXPECT_EQ(matchProductName("On a 2xRTX 3090 machine.", db(), &matched), Ids{"rtx-3090"});
    EXPECT_EQ(matched, "RTX 3090 (2 GPUs)");
    // https://github.com/Tencent-Hunyuan/HunyuanVideo-Avatar/issues/25 (title): "8卡4090", eight 4090s.
    EXPECT_EQ(matchProductName("\xe5\x9c\xa8"
                               "8\xe5\x8d\xa1"
                               "4090\xe8\xbf\x90\xe8\xa1\x8c\xe6\x8a\xa5\xe9\x94\x99torch.OutOfMemoryError: CUDA out of memory",
                               db(), &matched),
              Ids{"rtx-4090"});
    EXPECT_EQ(matched, "4090 (8 GPUs)");
    // https://github.com/MasterHow/CoBEV/issues/3: "用8个3090训练", trained on eight 3090s.
    EXPECT_EQ(matchProductName("\xe6\x88\x91\xe5\x8f\x88\xe5\xb0\x9d\xe8\xaf\x95\xe4\xba\x86\xe7\x94\xa8"
                               "8\xe4\xb8\xaa"
                               "3090\xe8\xae\xad\xe7\xbb\x83",
                               db(), &matched),
              Ids{"rtx-3090"});
    EXPECT_EQ(matched, "3090 (8 GPUs)");
    // https://github.com/Wan-Video/Wan2.2/issues/293 (title)
    EXPECT_EQ(matchProductName("4x3090\xe4\xb9\x9f\xe6\x8a\xa5torch.OutOfMemoryError: CUDA out of memory", db(), &matched),
              Ids{"rtx-3090"});
    EXPECT_EQ(matched, "3090 (4 GPUs)");
    // https://github.com/Hannibal046/PlugLM/issues/1: the SXM4 A100s; "40G" is not a size the names spell.
    EXPECT_EQ(matchProductName("8 * A100 SXM4(40G)", db(), &matched), (Ids{"a100-80gb-sxm", "a100-40gb-sxm"}));
    EXPECT_EQ(matched, "A100 (8 GPUs)");
    // A bare number with no GPU word is a time or a count, not a GPU (sglang#2384's log prefix).
    EXPECT_TRUE(idsOf("[2024-12-07 02:43:36 TP4] Load weight begin. avail mem=185.83 GB").empty());
}

TEST(DeviceNames, Architectures) {
    // https://github.com/sgl-project/sglang/issues/4572 (check_env)
    auto cc = findArchitecture("GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0");
    ASSERT_TRUE(cc);
    EXPECT_EQ(cc->toString(), "9.0");
    // https://github.com/sasha0552/pascal-pkgs-ci/issues/50: an architecture, no product.
    const auto mentions = mentionsOf(
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 49152. Reducing block "
        "sizes or `num_stages` may help.\n"
        "Is there a way to control triton to reduce the amount of shared memory it requires? Unfortunately, Pascal class has much "
        "smaller shared memory than more modern GPUs.");
    ASSERT_EQ(mentions.size(), 1u);
    EXPECT_TRUE(mentions[0].architectureOnly);
    EXPECT_EQ(mentions[0].line, 1);
    EXPECT_NE(mentions[0].text.find("compute capability 6.0, 6.1"), std::string::npos) << mentions[0].text;
    for (const auto& id : mentions[0].ids) EXPECT_EQ(db().find(id)->computeCapability.major, 6) << id;
    EXPECT_FALSE(mentions[0].ids.empty());
}

TEST(DeviceNames, AVariantTheDatabaseLacksGivesItsArchitecture) {
    // https://github.com/cloveranon/Clover-Edition/issues/159 (torch's warning): a laptop 3060 is not the
    // desktop card of the database (other SMs and clocks), but it is an sm_86 GPU.
    const std::string line =
        "If you want to use the NVIDIA GeForce RTX 3060 Laptop GPU GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/";
    EXPECT_TRUE(idsOf(line).empty());
    auto mentions = mentionsOf(line);
    ASSERT_EQ(mentions.size(), 1u);
    EXPECT_TRUE(mentions[0].architectureOnly);
    ASSERT_TRUE(mentions[0].cc);
    EXPECT_EQ(mentions[0].cc->toString(), "8.6");
    EXPECT_EQ(mentions[0].text, "RTX 3060 Laptop (not in the database: its architecture, sm_86)");
    // https://github.com/vllm-project/vllm/pull/9293 (collect_env)
    mentions = mentionsOf("GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4070 Laptop GPU");
    ASSERT_EQ(mentions.size(), 1u);
    EXPECT_EQ(mentions[0].cc->toString(), "8.9");
}

TEST(DeviceNames, ThePrintedLimitPicksAmongNamedGpus) {
    // https://github.com/Dao-AILab/flash-attention/issues/579 names A100, RTX 3090, RTX 4090 and H100 on one
    // line; with https://github.com/triton-lang/triton/issues/8182's limit (101,376 B) only the cc 8.6 /
    // 8.9 GPUs can have printed it.
    const auto mentions = mentionsOf(
        "- Ampere, Ada, or Hopper GPUs (e.g., A100, RTX 3090, RTX 4090, H100).\n"
        "out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.");
    ASSERT_EQ(mentions.size(), 1u);
    EXPECT_EQ(mentions[0].ids, (Ids{"rtx-3090", "rtx-4090"}));
    EXPECT_NE(mentions[0].text.find("not that of"), std::string::npos) << mentions[0].text;
    EXPECT_NE(mentions[0].text.find("a100-80gb-sxm"), std::string::npos) << mentions[0].text;
}

TEST(DeviceNames, APrintedLimitDropsTheGpuItContradicts) {
    // https://github.com/catie-aq/flashT5/issues/6: the error on an A10G (not in the database) and the
    // maintainer's reply naming the A100, whose 166,912 B is not the printed 101,376 B.
    const auto mentions = mentionsOf(
        "`triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163840, Hardware limit: 101376. Reducing block "
        "sizes or num_stages may help.`\n"
        "Hi, the triton kernel was designed for the A100 or higher. Other GPUs may not have enough shared memory as it is the case here.");
    EXPECT_TRUE(mentions.empty());
}

TEST(DeviceNames, OtherVendors) {
    // https://github.com/sgl-project/sglang/issues/2384: RCCL and sglang's "Non-NV platforms".
    auto amd = LogText::parse(readLog("sglang2384_mi300_triton_lds.log"));
    ASSERT_TRUE(amd.ok());
    auto vendor = findOtherVendor(*amd);
    ASSERT_TRUE(vendor);
    EXPECT_EQ(vendor->vendor, "AMD ROCm / HIP");
    EXPECT_EQ(vendor->memory, "LDS");
    // https://github.com/vllm-project/vllm/issues/7865: collect_env on NVIDIA prints ROCm and HIP as N/A.
    auto nvidia = LogText::parse("ROCM used to build PyTorch: N/A\nGPU 0: NVIDIA H20\nHIP runtime version: N/A");
    ASSERT_TRUE(nvidia.ok());
    EXPECT_FALSE(findOtherVendor(*nvidia));
    // https://github.com/intel/intel-xpu-backend-for-triton/issues/983: Triton's limit on an Intel Arc A770.
    auto intel = LogText::parse(
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536\n"
        "`Hardware limit: 65536` looks strange, A770 should have more than that. Where did you run the tests?");
    ASSERT_TRUE(intel.ok());
    vendor = findOtherVendor(*intel);
    ASSERT_TRUE(vendor);
    EXPECT_EQ(vendor->vendor, "Intel XPU");
}

TEST(DeviceNames, AnAmdLimitImpliesNoNvidiaGpu) {
    auto diagnosis = diagnoseText(readLog("sglang2384_mi300_triton_lds.log"), builtinKernels(), db());
    ASSERT_TRUE(diagnosis.ok());
    ASSERT_FALSE(diagnosis->findings.empty());
    const auto& f = diagnosis->findings.front();
    EXPECT_TRUE(f.impliedDevices.empty());
    EXPECT_TRUE(f.deviceId.empty());
    EXPECT_NE(f.explanation.find("AMD ROCm / HIP"), std::string::npos) << f.explanation;
    EXPECT_NE(f.explanation.find("LDS"), std::string::npos) << f.explanation;
}

// GPUs a sentence names as a requirement are flagged `required`, apart from the writer's own GPU.
TEST(DeviceNames, RequiredGpusAreFlagged) {
    struct Row {
        std::string url, line;
        std::string own;           // the writer's GPU on the line ("" when none)
        std::string requiredText;  // the names of the required mention ("" when none)
    };
    for (const Row& row : std::vector<Row>{
             {"https://github.com/Dao-AILab/flash-attention/issues/276",
              "Head dimensions that are multiples of 8, up to 128 (e.g., 8, 16, 24, ..., 128). Head dim > 64 backward requires A100 or "
              "H100.Can it support the A40?",
              "a40", "A100, H100"},
             {"https://github.com/Dao-AILab/flash-attention/issues/69",
              "A6000 works. As mentioned in the README, backward pass for headdim > 64 requires A100 or H100. Forward pass for headdim up "
              "to 128 and backward pass for headdim up to 64 work.",
              "rtx-a6000", "A100, H100"},
             {"https://github.com/Dao-AILab/flash-attention/issues/51",
              "As mentioned in our repo, backward pass with head dimension 128 is only supported on the A100 GPU.", "", "A100"},
             {"https://github.com/Dao-AILab/flash-attention/issues/775",
              "RuntimeError: FlashAttention backward for head dim > 192 requires A100/A800 or H100/H800", "", "A100, H100, H800"},
         }) {
        SCOPED_TRACE(row.url);
        const auto mentions = mentionsOf(row.line);
        std::string own, required;
        for (const auto& m : mentions) {
            if (m.required) required = m.text;
            else if (!m.ids.empty()) own = joinList(m.ids);
        }
        EXPECT_EQ(own, row.own);
        EXPECT_EQ(required, row.requiredText);
    }
}

// xformers prints the GPU's capability in an operator's reason beside the one it requires
// (facebookresearch/xformers#1263): the GPU's is read, not the requirement.
TEST(DeviceNames, XformersCapabilityTupleIsTheGpus) {
    const auto cc = findArchitecture("    requires device with capability > (9, 0) but your GPU has capability (8, 9) (too old)");
    ASSERT_TRUE(cc);
    EXPECT_EQ(*cc, (ComputeCapability{8, 9}));
}

// "my 3090" names the writer's card with no GPU word on the line (Knowledgator/TurboT5#8): with
// nothing better in the log it is the device, and the printed limit (101,376 B) agrees with it.
TEST(DeviceNames, AnOwnedBareNumberIsTheWritersGpu) {
    EXPECT_EQ(idsOf("I get this error with my 3090, tried updating triton etc. didn't get to work."), Ids{"rtx-3090"});
    auto diagnosis = diagnoseText(readLog("turbot5_8_my_3090.log"), builtinKernels(), db());
    ASSERT_TRUE(diagnosis.ok());
    ASSERT_EQ(diagnosis->findings.size(), 1u);
    EXPECT_EQ(diagnosis->findings.front().deviceId, "rtx-3090");
}

}  // namespace
}  // namespace tilescope

// The order in which diagnose tries its signatures (core's and the families' together) decides
// which finding a line gets: it is written out here, so a family that adds or moves a signature
// changes it on purpose. Issue 17: the families' signatures moved into kernels/<family>/diagnosis.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis_signatures.h"
#include "kernels/builtin_kernels.h"

using namespace tilescope;

namespace {

std::vector<std::string> ids(const SignatureList& list) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(list[i].id);
    return out;
}

}  // namespace

// The order of core/diagnosis/diagnosis_signatures.cpp's one table before the split: specific texts first.
TEST(DiagnosisSignatures, BuiltinOrderIsTheOrderBeforeTheSplit) {
    const std::vector<std::string> expected{"attention.tile_capacity",
                                            "smem.launch_arch",
                                            "smem.triton",
                                            "triton.threads",
                                            "ptxas.static_smem",
                                            "tile.not_divisible",
                                            "gemm_bucket.overflow",
                                            "awq_gemv.batch",
                                            "awq_gemv.fast_batch",
                                            "awq_gemv.group",
                                            "awq_gemm.cta_n",
                                            "flashinfer.invalid_configuration",
                                            "flashinfer.head_dim",
                                            "flashinfer.decode_group",
                                            "flashinfer.group_size",
                                            "awq_gemm.pack_num",
                                            "awq_gemm.group_multiple",
                                            "awq_gemm.oc_group",
                                            "awq_gemm.vllm_capability",
                                            "awq_gemm.ic_group",
                                            "sdpa.flash_head_dim",
                                            "sdpa.mem_efficient_alignment",
                                            "sdpa.flash_training_gt192",
                                            "xformers.no_operator",
                                            "attention.arch",
                                            "attention.head_dim",
                                            "attention.bwd_arch",
                                            "attention.bwd_arch_v1",
                                            "attention.head_dim_multiple",
                                            "attention.dtype",
                                            "attention.bf16_arch",
                                            "attention.same_dtype",
                                            "vllm.quantization_capability",
                                            "vllm.compressed_tensors_capability",
                                            "device.bf16",
                                            "smem.capacity",
                                            "cuda.out_of_resources",
                                            "cuda.invalid_configuration",
                                            "cuda.out_of_memory",
                                            "cuda.invalid_value",
                                            "cuda.no_kernel_image",
                                            "torch.gpu_too_old"};
    EXPECT_EQ(ids(SignatureList(builtinKernels())), expected);
}

// Equal order numbers would fall back to registry order silently: every number is taken once, and
// so is every clue's and every likely cause's (per signature).
TEST(DiagnosisSignatures, OrderNumbersAreUnique) {
    const SignatureList list(builtinKernels());
    std::set<int> orders;
    for (std::size_t i = 0; i < list.size(); ++i) EXPECT_TRUE(orders.insert(list[i].order).second) << list[i].id;
    std::set<int> clueOrders;
    std::map<std::string, std::set<int>> causeOrders;
    for (const auto& family : builtinKernels().families()) {
        const DiagnosisSignatures* d = family->diagnosisSignatures();
        if (!d) continue;
        for (const auto& clue : d->clues) EXPECT_TRUE(clueOrders.insert(clue.order).second) << family->name();
        for (const auto& cause : d->causes)
            EXPECT_TRUE(causeOrders[std::string(cause.signature)].insert(cause.order).second) << family->name() << " " << cause.text;
    }
    // The four bundled families' lines rank both generic launch errors.
    EXPECT_EQ(causeOrders["cuda.invalid_configuration"].size(), 4u);
    EXPECT_EQ(causeOrders["cuda.invalid_value"].size(), 4u);
}

// Without families, core knows only the texts of no bundled family: the CUDA runtime's, ptxas',
// the CuTe DSL's and the generic tile and capacity checks.
TEST(DiagnosisSignatures, CoreAloneHasOnlyGenericSignatures) {
    const KernelRegistry none;
    const std::vector<std::string> expected{"smem.launch_arch",
                                            "ptxas.static_smem",
                                            "tile.not_divisible",
                                            "vllm.quantization_capability",
                                            "vllm.compressed_tensors_capability",
                                            "device.bf16",
                                            "smem.capacity",
                                            "cuda.out_of_resources",
                                            "cuda.invalid_configuration",
                                            "cuda.out_of_memory",
                                            "cuda.invalid_value",
                                            "cuda.no_kernel_image",
                                            "torch.gpu_too_old"};
    EXPECT_EQ(ids(SignatureList(none)), expected);
    // And with no family to name, a generic launch error still diagnoses, without a kernel.
    auto d =
        diagnoseText("flash_attn_cuda.fwd\nRuntimeError: CUDA error: invalid configuration argument\n", none, DeviceDatabase::embedded());
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d->findings.size(), 1u);
    EXPECT_EQ(d->findings.front().signature, "cuda.invalid_configuration");
    EXPECT_TRUE(d->findings.front().family.empty());
    EXPECT_TRUE(d->findings.front().familyRanking.empty());
}

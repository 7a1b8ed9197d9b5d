// flashinfer: FlashInfer's attention (prefill, decode) as its v0.1.6 wheels dispatch it: the head
// dimensions and GQA group sizes they were compiled for, with FlashInfer's own texts. Model-only:
// Tilescope has no FlashInfer device code and does not model its launch (tiles, grid); a plan says
// whether FlashInfer takes the shape, and which rule refuses it.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/model_only_family.h"

namespace tilescope {

class FlashInferFamily final : public ModelOnlyFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, KvHeads, HeadDim, PageSize, UseTensorCores };
    enum Variant { Prefill, Decode };

    // The head dims the v0.1.6 wheels are compiled for: python/setup.py:64 (FLASHINFER_HEAD_DIMS, default
    // "64,128,256"), turned into the extension's switch by python/generate_dispatch_inc.py:29-36. Any other
    // head dim fails python/csrc/pytorch_extension_utils.h:181-200 (_DISPATCH_SWITCH / DISPATCH_head_dim)
    // with "<function> failed to dispatch head_dim <d>"; the kernels called through the C++ headers
    // (append_paged_kv_cache, rope, merge_state) fail include/flashinfer/utils.cuh:153-175 DISPATCH_HEAD_DIM,
    // the same list, with "Unsupported head_dim: <d>". (From v0.2 FlashInfer JIT-compiles other head dims.)
    static constexpr std::array<std::int64_t, 3> kHeadDims{64, 128, 256};
    // python/flashinfer/decode.py:57-60 _grouped_size_compiled_for_decode_kernels: the decode (CUDA-core)
    // kernels take num_qo_heads / num_kv_heads in [1, 2, 4, 8]; include/flashinfer/utils.cuh:97-114
    // DISPATCH_GQA_GROUP_SIZE is the same list in C++ ("Unsupported group_size: <g>").
    static constexpr std::array<std::int64_t, 4> kDecodeGroups{1, 2, 4, 8};
    // The text the Python extension prints after its function's name for a head dim outside kHeadDims.
    static std::string headDimError(std::int64_t headDim) { return "failed to dispatch head_dim " + std::to_string(headDim); }
    // A list of the dims or groups above as the texts write them: "64, 128, 256".
    template <std::size_t N>
    static std::string listText(const std::array<std::int64_t, N>& list) {
        std::string out;
        for (const std::int64_t v : list) out += (out.empty() ? "" : ", ") + std::to_string(v);
        return out;
    }

    std::string_view name() const override { return "flashinfer"; }
    std::string_view title() const override { return "FlashInfer attention (v0.1.6 rules)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    BackendRole backendRole(int variant) const override {
        return variant == Decode ? BackendRole::AttentionDecode : BackendRole::AttentionForward;
    }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
};

}  // namespace tilescope

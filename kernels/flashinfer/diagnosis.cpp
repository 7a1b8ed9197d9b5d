// What `diagnose` knows of FlashInfer: its dispatch texts for head dims and GQA group sizes, and the
// "Invalid configuration" of a build compiled for a head dim its prefill kernels cannot tile. The head
// dims and group sizes are the planner's (FlashInferFamily::kHeadDims, kDecodeGroups).
#include <algorithm>

#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/flashinfer/plan.h"

namespace tilescope {

namespace {

using F = FlashInferFamily;

std::vector<DiagnosisValue> flashinferShape(const FindingBuilder& b) {
    auto values = known(b, {"batch", "heads", "head_dim"});
    if (auto kv = b.valueOf("kv_heads")) values.push_back({"kv_heads", *kv, 0, {}});
    return values;
}

// "<function> failed to dispatch head_dim 96" (the v0.1.x extension's DISPATCH_head_dim: prefill and
// decode), "Unsupported head_dim: 96" (utils.cuh DISPATCH_HEAD_DIM: append_paged_kv_cache, rope,
// merge_state), or the prefill's "Invalid configuration : num_frags_x=.. num_frags_y=.." of a build that
// was given the head dim anyway: num_frags_y x 16 is the head dim.
void buildFlashInferHeadDim(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const bool invalidConfiguration = f.signature == "flashinfer.invalid_configuration";
    b.kernel("flashinfer", invalidConfiguration ? "prefill" : "");
    attentionFigures(b);
    if (invalidConfiguration) {
        if (auto fragsY = groupNumber(m, 1)) b.valueFrom("head_dim", *fragsY * 16, f.line, "num_frags_y x 16 (" + m.str(1) + " x 16)");
    } else {
        b.value("head_dim", groupNumber(m, 1));
    }
    const auto hd = b.valueOf("head_dim");
    f.title = "FlashInfer has no kernel for head_dim" + (hd ? " " + str(*hd) : std::string());
    f.explanation = invalidConfiguration
                        ? "FlashInfer's prefill dispatch found no valid tile layout for this head dim (num_frags_y = head_dim / 16): "
                          "its kernels are written for head dims " +
                              F::listText(F::kHeadDims) + "."
                        : "FlashInfer's AOT wheels (v0.1.x) are compiled for head_dim " + F::listText(F::kHeadDims) + " only.";
    const auto above =
        hd ? std::find_if(F::kHeadDims.begin(), F::kHeadDims.end(), [&](std::int64_t d) { return d > *hd; }) : F::kHeadDims.end();
    const std::int64_t padTo = above != F::kHeadDims.end() ? *above : F::kHeadDims.back();
    f.fix = "pad the head dim to " + str(padTo) + " or route attention to another backend (PyTorch SDPA, xformers, FlashAttention)";
    if (hd) {
        f.limit = LimitHit{"head_dim", F::kHeadDims.back(), *hd};
        b.plan("flashinfer", "prefill", flashinferShape(b), "head_dim");
    }
    b.fallbackCommand("head_dim");
}

// Decode's GQA group sizes: "Please set `use_tensor_cores=True` ... for group size 3" (v0.1.x decode.py)
// or "Unsupported group_size: 7" (DISPATCH_GQA_GROUP_SIZE in later releases' batch_decode.cu).
void buildFlashInferGroup(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("flashinfer", "decode");
    attentionFigures(b);
    const auto group = groupNumber(m, 1);
    b.value("gqa_group_size", group);
    f.title = "FlashInfer decode has no CUDA-core kernel for GQA group size" + (group ? " " + str(*group) : std::string());
    f.explanation = "FlashInfer's decode kernels are compiled for num_qo_heads / num_kv_heads in a fixed list (" +
                    F::listText(F::kDecodeGroups) + " in v0.1.x); other group sizes need the tensor-core (prefill) path.";
    f.fix = "use_tensor_cores=True for BatchDecodeWithPagedKVCacheWrapper (vLLM and SGLang set it for such models)";
    if (group) {
        std::vector<DiagnosisValue> values = known(b, {"head_dim"});
        // The log gives the group only; 8 kv heads (Llama-3 8B / 70B's layout) stand in for the model's.
        constexpr std::int64_t kvHeads = 8;
        values.push_back({"heads", *group * kvHeads, 0, {}});
        values.push_back({"kv_heads", kvHeads, 0, {}});
        b.plan("flashinfer", "decode", values, "kv_heads",
               "the log gives the group size only: heads = group x " + str(kvHeads) + " kv heads");
    }
    b.fallbackCommand("kv_heads");
}

}  // namespace

const DiagnosisSignatures* FlashInferFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {111,
             "flashinfer.invalid_configuration",
             {"invalid configuration : num_frags_x"},
             R"(FlashInfer Internal Error: Invalid configuration : num_frags_x=\d+ num_frags_y=(\d+))",
             V::UnsupportedShape,
             false,
             buildFlashInferHeadDim},
            {112,
             "flashinfer.head_dim",
             {"failed to dispatch head_dim", "unsupported head_dim"},
             R"((?:failed to dispatch head_dim |Unsupported head_dim: )(\d+))",
             V::UnsupportedShape,
             false,
             buildFlashInferHeadDim},
            {113,
             "flashinfer.decode_group",
             {"use_tensor_cores=true"},
             R"(Please set `use_tensor_cores=True` in \w+ for group size (\d+))",
             V::UnsupportedShape,
             false,
             buildFlashInferGroup},
            {114,
             "flashinfer.group_size",
             {"unsupported group_size"},
             R"(Unsupported group_size: (\d+))",
             V::UnsupportedShape,
             false,
             buildFlashInferGroup},
        };
        d.clues = {{115, {"flashinfer"}}};
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

#include "kernels/flashinfer/plan.h"

#include <algorithm>
#include <array>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

using F = FlashInferFamily;
constexpr std::string_view kLabel = "flashinfer (launch not modelled)";

bool contains(const auto& list, std::int64_t v) { return std::find(list.begin(), list.end(), v) != list.end(); }

}  // namespace

const std::vector<VariantInfo>& FlashInferFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"prefill",
         "FlashInfer prefill (BatchPrefillWithPagedKVCacheWrapper / single_prefill_with_kv_cache): head_dim 64, 128 or 256 "
         "(v0.1.6 wheels' DISPATCH_head_dim)",
         "flashinfer v0.1.6 python/csrc/pytorch_extension_utils.h:181-200; python/setup.py:64; include/flashinfer/utils.cuh:153-175",
         {"head_dim", 32, 512, 31},
         {}},
        {"decode",
         "FlashInfer decode (BatchDecodeWithPagedKVCacheWrapper): head_dim 64, 128 or 256; GQA group 1, 2, 4 or 8 unless "
         "use_tensor_cores (then the prefill kernels run it)",
         "flashinfer v0.1.6 python/csrc/pytorch_extension_utils.h:181-200; include/flashinfer/utils.cuh:97-175; "
         "python/flashinfer/decode.py:57-60, 514-521",
         // head_dim 64..256 in steps of 16 against kv_heads 1..32 in powers of two (heads 32: groups 32..1).
         {"head_dim", 64, 256, 13},
         {"kv_heads", 1, 32, 6}},
    };
    return list;
}

const ParameterList& FlashInferFamily::parameters() const {
    static const ParameterList list{
        {"batch", "sequences in the batch", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query tokens per sequence (decode: 1)", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key/value tokens per sequence (the paged KV cache)", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "query heads (num_qo_heads)", 1, 1 << 16, 32, AxisScale::Log2, false},
        {"kv_heads", "key/value heads (num_kv_heads); heads / kv_heads is the GQA group size", 1, 1 << 16, 8, AxisScale::Log2, false},
        {"head_dim", "head dimension", 1, 1024, 128, AxisScale::Linear, false, 8},
        {"page_size", "tokens per KV-cache page (any; no rule in v0.1.6)", 1, 1024, 16, AxisScale::Log2, false},
        {"use_tensor_cores", "decode: 1 to run decode with the prefill (tensor-core) kernels", 0, 1, 0, AxisScale::Linear, true},
    };
    return list;
}

LaunchPlan FlashInferFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const bool full = detail == PlanDetail::Full;
    const std::int64_t hd = shape[HeadDim], heads = shape[Heads], kvHeads = shape[KvHeads];
    if (heads % kvHeads != 0) {  // Tilescope's own check: a group size needs heads divisible by kv_heads
        failPlan(plan, Verdict::UnsupportedShape, {"heads % kv_heads", kvHeads, heads}, KvHeads, detail,
                 full ? "heads=" + str(heads) + " is not a multiple of kv_heads=" + str(kvHeads) + " (no GQA group size)" : std::string());
        return plan;
    }
    if (!contains(F::kHeadDims, hd)) {
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim", 256, hd}, HeadDim, detail, F::headDimError(hd));
        if (full) {
            const auto above = std::find_if(F::kHeadDims.begin(), F::kHeadDims.end(), [hd](std::int64_t d) { return d > hd; });
            plan.alternative = "FlashInfer v0.1.6 is compiled for head_dim " + F::listText(F::kHeadDims) +
                               (above != F::kHeadDims.end() ? "; pad to " + str(*above) : std::string()) +
                               "; or route this head_dim to another backend (PyTorch SDPA, xformers)";
        }
        return plan;
    }
    const std::int64_t group = heads / kvHeads;
    if (variant == Decode && !shape[UseTensorCores] && !contains(F::kDecodeGroups, group)) {
        failPlan(plan, Verdict::UnsupportedShape, {"gqa_group_size", 8, group}, KvHeads, detail,
                 "Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size " + str(group) + ".");
        if (full)
            plan.alternative =
                "use_tensor_cores=1 (decode through the prefill kernels), or heads / kv_heads in " + F::listText(F::kDecodeGroups);
        return plan;
    }
    if (full) {
        plan.tile = kLabel;
        plan.note = "FlashInfer v0.1.6 takes this shape (head_dim " + str(hd) + ", group size " + str(group) +
                    (variant == Decode && shape[UseTensorCores] ? ", decode on the tensor-core prefill kernels" : "") +
                    "); its tiles and grid are not modelled";
    }
    return plan;
}

}  // namespace tilescope

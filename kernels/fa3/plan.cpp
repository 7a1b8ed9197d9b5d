#include "kernels/fa3/plan.h"

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// flash-attention v2.8.3 hopper/flash_api.cpp (FA3 3.0.0.b1, hopper/__init__.py) mha_fwd:
//   676-677  is_sm8x = major >= 8: "FlashAttention only supports Ampere GPUs or newer."
//   682-685  fp8 only from major 9: "FlashAttention on Ampere/Ada cards only supports fp16 and bf16 data type"
//   744-745  head_size <= get_max_headdim() (256 in a full build, 455-470)
//   746      num_heads % num_heads_k
//   747-752  a V head dim different from Q/K: (128, 192] with V in (96, 128], or Q/K <= 64 with V <= 512; Hopper only
//   819-821  head_size and head_size_v multiples of 8 (16 for fp8)
// The sm80 path exists in this tree, but FA3's performance path and its wheels target Hopper; sm100/sm120
// are not refused by these checks (whether the build has kernels for them is not modelled).
constexpr std::int64_t kMaxHeadDim = 256;

}  // namespace

const std::vector<VariantInfo>& Fa3Family::variants() const {
    static const std::vector<VariantInfo> list{
        {"fwd",
         "FlashAttention-3 forward (flash_attn_interface.flash_attn_func): hopper/flash_api.cpp mha_fwd's checks",
         "flash-attention v2.8.3 hopper/flash_api.cpp:455-470, 676-752, 819-821",
         {"head_dim", 8, 320, 40},
         {"head_dim_v", 8, 576, 36}},
    };
    return list;
}

const ParameterList& Fa3Family::parameters() const {
    static const ParameterList list{
        {"batch", "sequences in the batch", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query tokens per sequence", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key/value tokens per sequence", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "query heads", 1, 1 << 16, 32, AxisScale::Log2, false},
        {"kv_heads", "key/value heads", 1, 1 << 16, 8, AxisScale::Log2, false},
        {"head_dim", "query/key head dimension", 1, 1024, 128, AxisScale::Linear, false, 8},
        {"head_dim_v", "value head dimension", 1, 1024, 128, AxisScale::Linear, false, 8},
        {"dtype", "0 float16, 1 bfloat16, 2 float8_e4m3fn", 0, 2, 1, AxisScale::Linear, false},
    };
    return list;
}

LaunchPlan Fa3Family::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const bool full = detail == PlanDetail::Full;
    const int sm = device.computeCapability.smVersion();
    const std::int64_t hd = shape[HeadDim], hdv = shape[HeadDimV], dtype = shape[Dtype];
    if (device.computeCapability.major < 8) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 80, sm}, -1, detail,
                 "FlashAttention only supports Ampere GPUs or newer.");
        return plan;
    }
    if (dtype == kDtypeFp8 && device.computeCapability.major < 9) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 90, sm}, Dtype, detail,
                 "FlashAttention on Ampere/Ada cards only supports fp16 and bf16 data type");
        return plan;
    }
    if (hd > kMaxHeadDim) {
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim", kMaxHeadDim, hd}, HeadDim, detail,
                 "FlashAttention forward only supports head dimension at most 256");
        if (full) plan.alternative = "route head_dim > 256 to another backend (PyTorch SDPA efficient, xformers)";
        return plan;
    }
    if (shape[Heads] % shape[KvHeads] != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"heads % kv_heads", shape[KvHeads], shape[Heads]}, KvHeads, detail,
                 "Number of heads in key/value must divide number of heads in query");
        return plan;
    }
    if (hdv != hd) {
        if (!((hd > 128 && hd <= 192 && hdv > 96 && hdv <= 128) || (hd <= 64 && hdv <= 512))) {
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim_v", hd, hdv}, HeadDimV, detail,
                     "If V headdim is different from Q/K dim, we only support Q/K headdim in (128, 192] and V headdim in (96, 128], "
                     "or (Q/K <= 64 and V <= 512).");
            return plan;
        }
        if (device.computeCapability.major != 9) {
            failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 90, sm}, HeadDimV, detail,
                     "Only Hopper supports different V headdim");
            return plan;
        }
    }
    const std::int64_t alignment = dtype == kDtypeFp8 ? 16 : 8;
    if (hd % alignment != 0 || hdv % alignment != 0) {
        const bool q = hd % alignment != 0;
        failPlan(plan, Verdict::UnsupportedShape, {q ? "head_dim % alignment" : "head_dim_v % alignment", alignment, q ? hd : hdv},
                 q ? HeadDim : HeadDimV, detail,
                 std::string(q ? "head_size" : "head_size_v") + " should be a multiple of " + str(alignment));
        return plan;
    }
    if (full) {
        plan.note = "FlashAttention-3's checks pass; its kernels (tiles, grid) are not modelled";
        if (device.computeCapability.major != 9) plan.note += "; FA3 is written for Hopper (sm_90), other GPUs take its sm80 path";
    }
    return plan;
}

}  // namespace tilescope

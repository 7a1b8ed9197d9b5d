#include "kernels/sdpa/plan.h"

#include <algorithm>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp at commit 001f694a (001f694aef6f, main, late
// 2025); the line numbers below are that file's. Filters are tried in can_use_*_attention's order
// (cudnn 962-1031, flash 1041-1090, mem_efficient 1092-1177); the first that fails is the backend's
// reason. cuDNN's version is taken as new (> 9.22, cudnn-frontend >= 1.24, 71-77): the head_dim 256
// limit on sm90/sm10x depends on it (662-684), and older cuDNN refuses more.
constexpr std::int64_t kFlashMaxHeadDim = 256;  // check_head_dim_size_flash, 195-254 (203)
constexpr std::int64_t kCudnnMaxDim = 65535;    // check_cudnn_tensor_shapes max_cudnn_dim_size, 632

std::string smText(const DeviceSpec& d) { return str(d.computeCapability.major) + "." + str(d.computeCapability.minor); }

std::string sizesText(std::int64_t q, std::int64_t k, std::int64_t v) {
    return " Got Query.size(-1): " + str(q) + ", Key.size(-1): " + str(k) + ", Value.size(-1): " + str(v) + " instead.";
}

// check_sm_version<lower, upper> (416-424): inclusive range of (major, minor).
bool inRange(const DeviceSpec& d, int lo, int hi) {
    const int v = d.computeCapability.major * 10 + d.computeCapability.minor;
    return v >= lo && v <= hi;
}

// minimum_gemm_alignment (146-160, use_tensor_cores 137-145): 4 from sm80; 128 / bits when tensor cores run the dtype.
std::int64_t gemmAlignment(const DeviceSpec& d, bool half) {
    const bool tc = d.computeCapability.major >= 8 || (d.computeCapability.major >= 7 && half);
    std::int64_t a = d.computeCapability.major >= 8 ? 4 : 1;
    if (tc) a = std::max<std::int64_t>(a, half ? 8 : 4);
    return a;
}

using S = SdpaFamily;

// check_tensor_dtype's TORCH_WARN (aten/src/ATen/native/transformers/sdp_utils_cpp.h lines 82-108 at
// 0119c205, the version stored here; 001f694a's is not): the allowed ScalarTypes joined, then each
// tensor's TypeMeta name as Linux builds print it ("float", "c10::Half", "c10::BFloat16").
std::string dtypeText(std::string_view allowed, std::int64_t dtype) {
    const std::string t = dtype == S::kDtypeFp32 ? "float" : (dtype == S::kDtypeBf16 ? "c10::BFloat16" : "c10::Half");
    return "Expected query, key and value to all be of dtype: {" + std::string(allowed) + "}. Got Query dtype: " + t + ", Key dtype: " + t +
           ", and Value dtype: " + t + " instead.";
}

// Why a backend is not used: the warning, the limit it checks and the parameter to move; empty text when it is used.
struct Reason {
    std::string text;
    LimitHit limit;
    int parameter = -1;
    Verdict verdict = Verdict::UnsupportedShape;
};

Reason why(std::string text, std::string_view limit, std::int64_t bound, std::int64_t actual, int parameter,
           Verdict verdict = Verdict::UnsupportedShape) {
    return {std::move(text), {limit, bound, actual}, parameter, verdict};
}

// The reason `variant` is not used; empty text when it is.
Reason whyNot(int variant, const Shape& s, const DeviceSpec& d) {
    const int sm = d.computeCapability.smVersion();
    const std::int64_t hq = s[S::HeadDim], hv = s[S::HeadDimV];
    const bool half = s[S::Dtype] != S::kDtypeFp32;
    const bool train = s[S::Train] != 0, dropout = s[S::Dropout] != 0;
    if (variant == S::Flash) {
        if (hq != hv || hq > kFlashMaxHeadDim)  // check_head_dim_size_flash, 195-254 (TORCH_WARN 214-223)
            return why("Flash attention requires q,k,v to have the same last dimension and to be less than or equal to 256." +
                           sizesText(hq, hq, hv),
                       "head_dim", kFlashMaxHeadDim, std::max(hq, hv), S::HeadDim);
        if (!inRange(d, 80, 121)) {  // check_flash_attention_hardware_support, 426-481 (468-477)
            return why("Flash attention only supports gpu architectures in the range [sm80, sm121]. Attempting to run on a sm " +
                           smText(d) + " gpu.",
                       "compute_capability", 80, sm, -1, Verdict::UnsupportedDevice);
        }
        // check_requires_grad_and_head_dim_gt192_constraints_on_sm86_89_or_120, 543-577 (559-561, TORCH_WARN 566-571)
        if (train && (inRange(d, 86, 89) || inRange(d, 120, 121)) && !(hq <= 192 || (!dropout && hq > 224))) {
            return why(
                "Flash attention currently doesn't support training with head_dim \u2208 (192, 224] or (head_dim \u2208 (224, 256] and "
                "dropout > 0.0) on gpu architectures in the range[sm86, sm89].Attempting to run with dropout set to: " +
                    std::string(dropout ? "p > 0" : "0") + "and head_dim: " + str(hq) + " on a sm " + smText(d) + " gpu.",
                "head_dim", 192, hq, S::HeadDim, Verdict::UnsupportedDevice);
        }
        if (s[S::Causal] && s[S::SeqlenQ] != s[S::SeqlenK]) {  // check_flash_causal_non_square_seqlens, 579-598
            return why("Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. Got seqlen_q: " +
                           str(s[S::SeqlenQ]) + " seqlen_k: " + str(s[S::SeqlenK]) +
                           ". If you would like to use causal attention with non-square masks, please see CausalAttnMask.",
                       "seqlen_q == seqlen_k", s[S::SeqlenK], s[S::SeqlenQ], S::SeqlenQ);
        }
        // check_dtypes_flash_attention 924-933 -> check_dtypes_low_precision 912-922: Half and BFloat16 from
        // sm80 (the hardware filter above already left only sm80+); FA3's fp8 only when a user enables it.
        if (!half) return why(dtypeText("Half, BFloat16", s[S::Dtype]), "dtype", 1, s[S::Dtype], S::Dtype);
        return {};
    }
    if (variant == S::Efficient) {
        if (!inRange(d, 50, 121)) {  // check_mem_efficient_hardware_support, 483-541 (528-537)
            return why("Mem Efficient Attention only supports gpu architectures in the range [sm50, sm121]. Attempting to run on a sm " +
                           smText(d) + " gpu.",
                       "compute_capability", 50, sm, -1, Verdict::UnsupportedDevice);
        }
        const std::int64_t a = gemmAlignment(d, half);  // check_head_dim_size_mem_efficient, 287-348 (TORCH_WARN 311-321)
        if (hq % a != 0 || hv % a != 0) {
            return why("Mem efficient attention requires last dimension of inputs to be divisible by " + str(a) + ". " +
                           sizesText(hq, hq, hv).substr(1),
                       "head_dim % alignment", a, hq % a != 0 ? hq : hv, hq % a != 0 ? S::HeadDim : S::HeadDimV);
        }
        // The last filter: less_than_sm80_mem_efficient_dtypes {Half, Float} (1098-1099, checked at 1171-1175).
        if (s[S::Dtype] == S::kDtypeBf16 && d.computeCapability.major < 8) {
            return why(dtypeText("Half, Float", s[S::Dtype]), "compute_capability", 80, sm, S::Dtype, Verdict::UnsupportedDevice);
        }
        return {};
    }
    if (variant == S::Cudnn) {
        // check_dtypes_low_precision (912-922) runs before the hardware filter (985-995): below sm80 it
        // allows Half only, so bf16 on a T4 is refused by dtype, not by architecture.
        const bool sm80 = d.computeCapability.major >= 8;
        if (!half || (!sm80 && s[S::Dtype] == S::kDtypeBf16)) {
            return why(dtypeText(sm80 ? "Half, BFloat16" : "Half", s[S::Dtype]), "dtype", sm80 ? 1 : 0, s[S::Dtype], S::Dtype);
        }
        if (!inRange(d, 80, 121)) {  // check_cudnn_hardware_support, 869-891 (879-888)
            return why(
                "cuDNN MHA only supports gpu architectures in the range [sm80, sm121]. Attempting to run on a sm " + smText(d) + " gpu.",
                "compute_capability", 80, sm, -1, Verdict::UnsupportedDevice);
        }
        if (s[S::Batch] > kCudnnMaxDim || s[S::Heads] > kCudnnMaxDim) {  // check_cudnn_tensor_shapes, 631-729 (635-644)
            const bool batch = s[S::Batch] > kCudnnMaxDim;
            return why("cuDNN SDPA does not support batch size or num_heads greater than 65535. Got batch size: " + str(s[S::Batch]) +
                           ", num_heads: " + str(s[S::Heads]),
                       "max_cudnn_dim_size", kCudnnMaxDim, batch ? s[S::Batch] : s[S::Heads], batch ? S::Batch : S::Heads);
        }
        // 662-684: head_dim_limit 256 on sm90 / sm10x with new cuDNN, else 128; 685-691: multiples of 8;
        // 716-727: no key/value length 1, no query length 1 with dropout.
        const bool sm90or10x = (d.computeCapability.major == 9 && d.computeCapability.minor == 0) || d.computeCapability.major == 10;
        const std::int64_t limit = sm90or10x ? 256 : 128;
        if (hq > limit || hv > limit)
            return why("head_dim should be no more than " + str(limit), "head_dim", limit, std::max(hq, hv), S::HeadDim);
        if (hq % 8 != 0 || hv % 8 != 0) return why("head_dim should be a multiple of 8", "head_dim % 8", 8, hq % 8 ? hq : hv, S::HeadDim);
        if (s[S::SeqlenK] == 1) {
            return why("cudnn SDPA does not support key/value sequence length 1.", "seqlen_k", 2, 1, S::SeqlenK);
        }
        if (dropout && s[S::SeqlenQ] == 1) {
            return why("cudnn SDPA does not support query sequence length 1 with dropout.", "seqlen_q", 2, 1, S::SeqlenQ);
        }
        // check_cudnn_d256_bprop_head_dim, 761-800 (781-787): backward on sm90/sm10x (new cuDNN) takes (<=128, <=128),
        // (192, 128), (256, 256).
        if (train && sm90or10x && !((hq <= 128 && hv <= 128) || (hq == 192 && hv == 128) || (hq == 256 && hv == 256)))
            return why("cuDNN SDPA on SM 9.0/10.x does not support backward with these head dimensions. Got d_qk: " + str(hq) +
                           ", d_v: " + str(hv),
                       "head_dim", 128, hq, S::HeadDim);
        return {};
    }
    return {};  // math: the fallback takes every shape (its memory is not modelled)
}

}  // namespace

const std::vector<VariantInfo>& SdpaFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"flash",
         "SDPBackend.FLASH_ATTENTION: can_use_flash_attention's filters and their TORCH_WARN texts",
         "pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp @001f694a: can_use_flash_attention 1041-1090, "
         "check_head_dim_size_flash 195-254, check_flash_attention_hardware_support 426-481, "
         "check_requires_grad_and_head_dim_gt192_constraints_on_sm86_89_or_120 543-577",
         {"head_dim", 8, 320, 40},
         {}},
        {"efficient",
         "SDPBackend.EFFICIENT_ATTENTION (the CUTLASS kernels from xFormers): can_use_mem_efficient_attention",
         "pytorch sdp_utils.cpp @001f694a: can_use_mem_efficient_attention 1092-1177, check_mem_efficient_hardware_support "
         "483-541, check_head_dim_size_mem_efficient 287-348",
         {"head_dim", 2, 80, 40},  // its rule is alignment only: steps of 2 show the multiples of 8
         {}},
        {"cudnn",
         "SDPBackend.CUDNN_ATTENTION: can_use_cudnn_attention (cuDNN > 9.22 assumed)",
         "pytorch sdp_utils.cpp @001f694a: can_use_cudnn_attention 962-1031, check_cudnn_hardware_support 869-891, "
         "check_cudnn_tensor_shapes 631-729, check_cudnn_d256_bprop_head_dim 761-800",
         {"head_dim", 8, 320, 40},
         {}},
        {"math",
         "SDPBackend.MATH: the composite fallback, every shape; it materializes the [batch, heads, seqlen_q, seqlen_k] scores, "
         "so device memory bounds it",
         "pytorch sdp_utils.cpp @001f694a; at::_scaled_dot_product_attention_math (the math path; file not pinned)",
         {"seqlen_k", 1024, 1 << 22, 13},
         {}},
    };
    return list;
}

const ParameterList& SdpaFamily::parameters() const {
    static const ParameterList list{
        {"batch", "query.size(0)", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query.size(-2)", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key.size(-2)", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "query.size(1)", 1, 1 << 20, 32, AxisScale::Log2, false},
        {"head_dim", "query.size(-1) (= key.size(-1))", 1, 1 << 16, 128, AxisScale::Linear, false},
        {"head_dim_v", "value.size(-1)", 1, 1 << 16, 128, AxisScale::Linear, false},
        {"dtype", "0 float16, 1 bfloat16, 2 float32", 0, 2, 0, AxisScale::Linear, false},
        {"causal", "is_causal=True", 0, 1, 0, AxisScale::Linear, true},
        {"train", "1 when an input requires grad (training)", 0, 1, 0, AxisScale::Linear, true},
        {"dropout", "1 for dropout_p > 0", 0, 1, 0, AxisScale::Linear, true},
    };
    return list;
}

LaunchPlan SdpaFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const Reason reason = whyNot(variant, shape, device);
    if (!reason.text.empty()) {
        failPlan(plan, reason.verdict, reason.limit, reason.parameter, detail, reason.text);
        if (detail == PlanDetail::Full) {
            // select_sdp_backend (1179-1242) tries priority_order (123-135): flash, efficient, math, cuDNN first on
            // sm90/sm10x with cuDNN > 9.15 (check_prefer_cudnn_attention, 93-120).
            std::string others;
            for (int v = Flash; v <= Math; ++v) {
                if (v != variant && whyNot(v, shape, device).text.empty())
                    others += (others.empty() ? "" : ", ") + std::string(variants()[static_cast<std::size_t>(v)].name);
            }
            plan.alternative = "SDPA falls through to " + others;
        }
        return plan;
    }
    if (variant == Math) {
        // The math path computes q @ k^T into a [batch, heads, seqlen_q, seqlen_k] tensor of the input
        // dtype before the softmax: with q, k, v and the output that is the least it holds at once.
        const double b = static_cast<double>(shape[Batch]), h = static_cast<double>(shape[Heads]);
        const double sq = static_cast<double>(shape[SeqlenQ]), sk = static_cast<double>(shape[SeqlenK]);
        const double elem = shape[Dtype] == kDtypeFp32 ? 4.0 : 2.0;
        const double hq = static_cast<double>(shape[HeadDim]), hv = static_cast<double>(shape[HeadDimV]);
        const double bytes = elem * b * h * (sq * hq + sk * hq + sk * hv + sq * hv + sq * sk);
        plan.deviceMemoryBytes = clampBytes(bytes);
        plan.memoryParameter = SeqlenK;
        if (plan.deviceMemoryBytes > device.memoryBytes) {
            failPlan(plan, Verdict::OutOfMemory, {"memory_bytes", device.memoryBytes, plan.deviceMemoryBytes}, SeqlenK, detail,
                     detail == PlanDetail::Full
                         ? "CUDA out of memory: the math backend materializes the [batch, heads, seqlen_q, seqlen_k] "
                           "scores (" +
                               withThousands(plan.deviceMemoryBytes) + " B with q, k, v and the output; the GPU has " +
                               withThousands(device.memoryBytes) + " B)"
                         : std::string());
            return plan;
        }
    }
    if (detail == PlanDetail::Full) plan.note = "sdp_utils.cpp's filters let this backend run the shape (its kernels are not modelled)";
    return plan;
}

}  // namespace tilescope

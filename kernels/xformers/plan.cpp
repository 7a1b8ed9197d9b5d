#include "kernels/xformers/plan.h"

#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

using X = XformersFamily;

// xformers v0.0.28 xformers/ops/fmha/cutlass.py:182-183 (FwOp) and 347-348 (BwOp): SUPPORTED_MAX_K.
constexpr std::int64_t kMaxK = 65536;
// xformers/ops/fmha/common.py:304 AttentionOpBase.CUDA_MINIMUM_COMPUTE_CAPABILITY = (5, 0).
constexpr int kMinSm = 50;
// kernel_forward.h:138-144: kNumThreads = 32 x kQueriesPerBlock x kKeysPerBlock / (32 x 32): 4 warps for
// the 64x64 and 32x128 tiles. Which tile cutlassF picks for a head_dim is its dispatch's; grid.x below
// assumes 64 queries per block (x is never near its limit; y and z are what refuse a launch).
constexpr std::int64_t kForwardThreads = 128;
constexpr std::int64_t kQueriesPerBlock = 64;

// cutlass.py:49-64 _minimum_gemm_alignment: 4 from sm80, and 128 / bits when tensor cores run the
// dtype (sm80+: any; sm70+: 16-bit only).
std::int64_t gemmAlignment(int sm, std::int64_t dtype) {
    const bool half = dtype != X::kDtypeFp32;
    const bool tensorCores = sm >= 80 || (sm >= 70 && half);
    std::int64_t alignment = sm >= 80 ? 4 : 1;
    if (tensorCores) alignment = std::max<std::int64_t>(alignment, 128 / (half ? 16 : 32));
    return alignment;
}

std::string dtypeName(std::int64_t d) {
    return d == X::kDtypeFp16 ? "torch.float16" : (d == X::kDtypeBf16 ? "torch.bfloat16" : "torch.float32");
}

}  // namespace

const std::vector<VariantInfo>& XformersFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"memory_efficient",
         "memory_efficient_attention forward (cutlassF): capability >= 5.0, bf16 from sm80, head dims aligned to the GEMM "
         "alignment, <= 65,536; grid (ceil(seqlen_q / 64), heads, batch)",
         "xformers v0.0.28 xformers/ops/fmha/cutlass.py, common.py; csrc/attention/cuda/fmha/kernel_forward.h:364-369",
         {"head_dim", 8, 264, 33},
         {"heads", 0, 0, 0}},
        {"memory_efficient_bwd",
         "memory_efficient_attention backward (cutlassB): the forward's checks plus key alignment; grid (splits over keys, heads, batch)",
         "xformers v0.0.28 xformers/ops/fmha/cutlass.py:378-410; csrc/attention/cuda/fmha/kernel_backward.h:852-857",
         {"head_dim", 8, 264, 33},
         {"heads", 0, 0, 0}},
    };
    return list;
}

const ParameterList& XformersFamily::parameters() const {
    static const ParameterList list{
        {"batch", "sequences in the batch (grid.z)", 1, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query tokens per sequence", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key/value tokens per sequence", 1, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "attention heads (grid.y)", 1, 1 << 20, 32, AxisScale::Log2, false},
        {"head_dim", "query/key head dimension (query.shape[-1])", 1, 1 << 17, 128, AxisScale::Linear, false},
        {"head_dim_v", "value head dimension (value.shape[-1])", 1, 1 << 17, 128, AxisScale::Linear, false},
        {"dtype", "0 float16, 1 bfloat16, 2 float32", 0, 2, 0, AxisScale::Linear, false},
    };
    return list;
}

LaunchPlan XformersFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const bool full = detail == PlanDetail::Full;
    const int sm = device.computeCapability.smVersion();
    const std::int64_t k = shape[HeadDim], kv = shape[HeadDimV], dtype = shape[Dtype];
    const std::string op =
        variant == MemoryEfficient ? "`cutlassF` is not supported because:\n    " : "`cutlassB` is not supported because:\n    ";
    // common.py:373-377: the reason text; xformers prints every reason under "`cutlassF` is not supported because:".
    if (sm < kMinSm) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", kMinSm, sm}, -1, detail,
                 op + "requires device with capability > (5, 0) but your GPU has capability (" + str(device.computeCapability.major) +
                     ", " + str(device.computeCapability.minor) + ") (too old)");
        return plan;
    }
    // common.py:394-398: "bf16 is only supported on A100+ GPUs" (capability major < 8).
    if (dtype == kDtypeBf16 && device.computeCapability.major < 8) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 80, sm}, Dtype, detail,
                 op + "bf16 is only supported on A100+ GPUs");
        if (full) plan.alternative = "float16 on this GPU";
        return plan;
    }
    // common.py:338-341 shape_not_supported_reasons: max(K, Kv) > SUPPORTED_MAX_K.
    if (std::max(k, kv) > kMaxK) {
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim", kMaxK, std::max(k, kv)}, HeadDim, detail,
                 op + "max(query.shape[-1], value.shape[-1]) > 65536");
        return plan;
    }
    // cutlass.py:327-331 (FwOp: query, value) and 378-384 (BwOp: query, key, value) through
    // common.py:481-486 check_lastdim_alignment_stride1: "<name>.shape[-1] % <alignment> != 0".
    const std::int64_t alignment = gemmAlignment(sm, dtype);
    const bool bwd = variant == MemoryEfficientBwd;
    const std::pair<const char*, std::int64_t> checks[] = {{"query", k}, {"key", bwd ? k : 0}, {"value", kv}};
    for (const auto& [tensor, size] : checks) {
        if (size == 0 || size % alignment == 0) continue;
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim % alignment", alignment, size},
                 std::string_view(tensor) == "value" ? HeadDimV : HeadDim, detail,
                 op + tensor + ".shape[-1] % " + str(alignment) + " != 0");
        if (full)
            plan.alternative = "pad " + std::string(tensor) + "'s last dimension to a multiple of " + str(alignment) + " (" +
                               dtypeName(dtype) + " on sm_" + str(sm) + ")";
        return plan;
    }
    // kernel_forward.h:364-369 / kernel_backward.h:852-854: grid (x, num_heads, num_batches).
    plan.kernelSymbol = bwd ? "cutlassB" : "cutlassF";
    plan.tile = bwd ? "cutlassB" : "cutlassF 64 queries/block (assumed)";
    plan.grid = {bwd ? 1 : ceilDiv(shape[SeqlenQ], kQueriesPerBlock), shape[Heads], shape[Batch]};
    plan.gridParameter = {SeqlenQ, Heads, Batch};
    plan.block = {kForwardThreads, 1, 1};
    if (full)
        plan.note = std::string(bwd ? "cutlassB: grid.x = num_splits_key (1 here); block assumed 4 warps; " : "") +
                    "registers and shared memory are the CUTLASS kernel's (not modelled): the grid's heads (y) and batch (z) limits are";
    const double b = static_cast<double>(shape[Batch]), h = static_cast<double>(shape[Heads]);
    const double sq = static_cast<double>(shape[SeqlenQ]), sk = static_cast<double>(shape[SeqlenK]);
    const double bytes = dtype == kDtypeFp32 ? 4.0 : 2.0;
    // cutlassB's FLOPs as 2.5 x the forward: flash-attention's convention (v2.8.3 benchmarks/benchmark_flash_attention.py:27-30).
    // The same 2.5 on the bytes has no upstream source (an estimate, unmeasured).
    plan.bytesMoved = b * h * (sq * static_cast<double>(k + kv) + sk * static_cast<double>(k + kv)) * bytes * (bwd ? 2.5 : 1.0);
    plan.flops = 2.0 * b * h * sq * sk * static_cast<double>(k + kv) * (bwd ? 2.5 : 1.0);
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
    plan.memoryParameter = Batch;
    static const KernelResourceTable none;
    finishLaunch(plan, device, none, detail);
    return plan;
}

}  // namespace tilescope

// attention fa2_bwd: FlashAttention-2's backward (flash_api.cpp mha_bwd). The checks are the
// release's own (fa2_version), with their exact TORCH_CHECK texts; the launch is v2.8.3's
// dq/dk/dv kernel (flash_bwd_launch_template.h, kernel_traits.h). Tilescope has no backward device
// code: the plan names upstream's kernel and its figures, registers unknown.
#include <algorithm>
#include <optional>

#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "kernels/attention/plan.h"
#include "kernels/plan_support.h"

namespace tilescope::attention {

namespace {

using P = AttentionFamily::Parameter;

constexpr std::int64_t kElementBytes = 2;  // fp16 / bf16
constexpr std::int64_t kMaxHeadDim = 256;
constexpr std::int64_t kHeadDimMultiple = 8;
constexpr std::int64_t kArchGatedHeadDim = 192;  // "head dim > 192"
constexpr std::int64_t kHeadDim224 = 224;        // v2.5.5-v2.6.1: (192, 224] needs sm80/sm90 with or without dropout
constexpr std::int64_t kA100Optin = 144 * 1024;  // run_mha_bwd_hdim256: "A100, we don't do double buffering"
constexpr std::int64_t kH100Optin = 176 * 1024;  // run_mha_bwd_hdim256: "H100"
constexpr std::string_view kBwdSymbol = "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel";

// The texts mha_bwd raises, per release (flash_api.cpp).
constexpr std::string_view kAmpereText = "FlashAttention only supports Ampere GPUs or newer.";
constexpr std::string_view kMultipleText = "head_size should be a multiple of 8";
constexpr std::string_view kAtMostText = "FlashAttention backward only supports head dimension at most 256";
// v2.4.3 flash_api.cpp:771-772 (mha_bwd; the same through v2.5.4).
constexpr std::string_view kGt192Text = "FlashAttention backward for head dim > 192 requires A100/A800 or H100/H800";
// v2.5.5 flash_api.cpp:786-787 (the same text through v2.6.1, there at 868-869).
constexpr std::string_view k224Or256DropoutText =
    "FlashAttention backward for head dim 256 with dropout, or head dim 224 with/without dropout requires A100/A800 or H100/H800";
// v2.6.2 flash_api.cpp:879-880, the first tag with it (commit 751c762c, "Don't specialize for hdim 224"); the
// same text through v2.7.2 (there at 851-852); v2.7.3 drops the check.
constexpr std::string_view kGt192DropoutText = "FlashAttention backward for head dim > 192 with dropout requires A100/A800 or H100/H800";

// Flash_bwd_kernel_traits<Headdim, kBlockM, kBlockN, kNWarps, ..., Is_V_in_regs, No_double_buffer>.
struct BwdTraits {
    std::int64_t headDim, blockM, blockN, warps;
    bool vInRegs, noDoubleBuffer;
    std::string_view name;
};

// kernel_traits.h (v2.8.3) lines 278-290, kSmemSize1colblock (the dq/dk/dv kernel's dynamic smem):
// Q and dO tiles (3 buffers, 2 without double buffering), K and V, dS and P.
std::int64_t bwdSmem(const BwdTraits& t) {
    const std::int64_t qdo = t.blockM * t.headDim * (t.noDoubleBuffer ? 2 : 3) * kElementBytes;
    const std::int64_t kv = t.blockN * t.headDim * 2 * kElementBytes;
    const std::int64_t ds = t.blockM * t.blockN * kElementBytes, p = ds;
    return qdo + (!t.vInRegs ? kv + ds + p : std::max(kv, kv / 2 + ds + p));
}

// flash_bwd_launch_template.h (v2.8.3) run_mha_bwd_hdim32..256: the traits per bucket, opt-in and dropout.
// nullopt: the hdim256 branch for < 144 KB with dropout launches nothing ("Only works without dropout").
std::optional<BwdTraits> bwdTraits(std::int64_t bucket, std::int64_t optin, bool dropout) {
    switch (bucket) {
        case 32:
            if (optin >= 2 * ((3 * 128 + 2 * 128) * 32 + 2 * 128 * 128))
                return BwdTraits{32, 128, 128, 8, !dropout, false, dropout ? "128x128/8" : "128x128/8 V in regs"};
            return BwdTraits{32, 128, 128, 8, true, false, "128x128/8 V in regs"};
        case 64:
            if (optin >= kA100Optin) return BwdTraits{64, 128, 128, 8, false, false, "128x128/8"};
            return BwdTraits{64, 64, 128, 8, true, false, "64x128/8 V in regs"};
        case 96:
            if (optin >= 116 * 1024 && dropout) return BwdTraits{96, 64, 128, 8, false, false, "64x128/8"};
            return BwdTraits{96, 64, 128, 8, true, false, "64x128/8 V in regs"};
        case 128:
            if (optin >= kA100Optin) return BwdTraits{128, 64, 128, 8, false, false, "64x128/8"};
            return BwdTraits{128, 64, 64, 8, true, false, "64x64/8 V in regs"};
        case 192:
            if (optin >= 136 * 1024) return BwdTraits{192, 64, 64, 8, false, false, "64x64/8"};
            return BwdTraits{192, 64, 64, 8, true, true, "64x64/8 V in regs, single buffer"};
        default:
            if (optin >= kH100Optin) return BwdTraits{256, 64, 64, 8, false, false, "64x64/8"};
            if (optin >= kA100Optin) return BwdTraits{256, 64, 64, 8, false, true, "64x64/8 single buffer"};
            if (dropout) return std::nullopt;
            return BwdTraits{256, 64, 32, 8, true, true, "64x32/8 V in regs, single buffer"};
    }
}

std::string versionText(std::int64_t v) { return "v2." + str(v / 10 % 10) + "." + str(v % 10); }

}  // namespace

LaunchPlan planBackward(LaunchPlan plan, const Shape& shape, const DeviceSpec& device, PlanDetail detail) {
    const bool full = detail == PlanDetail::Full;
    const std::int64_t hd = shape[P::HeadDim], version = shape[P::Fa2Version];
    const bool dropout = shape[P::Dropout] != 0;
    const ComputeCapability cc = device.computeCapability;
    const bool sm8x = cc.major == 8, sm80 = cc.major == 8 && cc.minor == 0, sm90 = cc.major == 9 && cc.minor == 0;
    if (full) plan.note = "rules of flash-attn " + versionText(version) + "; launch figures of v2.8.3's backward";

    // Architecture: before v2.7.3 mha_bwd takes sm8x or sm90 exactly (sm100/sm120 refused too); from
    // v2.7.3 (flash_api.cpp:795-796 there, 798 in v2.8.3) any major >= 8.
    const bool ampereOk = version >= kFa2V273 ? cc.major >= 8 : (sm8x || sm90);
    if (!ampereOk) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 80, cc.smVersion()}, -1, detail, kAmpereText);
        if (full)
            plan.alternative = version < kFa2V273 && cc.major >= 10 ? "flash-attn 2.7.3 or later takes this GPU (any sm_8x and newer)"
                                                                    : "train through PyTorch SDPA's memory-efficient or math backend";
        return plan;
    }
    if (hd % kHeadDimMultiple != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim % 8", kHeadDimMultiple, hd}, P::HeadDim, detail, kMultipleText);
        return plan;
    }
    if (hd > kMaxHeadDim) {
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim", kMaxHeadDim, hd}, P::HeadDim, detail, kAtMostText);
        return plan;
    }
    if (shape[P::HeadDimV] != hd) {  // mha_bwd CHECK_SHAPE(v, ..., head_size): one head size for q, k and v
        failPlan(plan, Verdict::UnsupportedShape, {"head_dim_v", hd, shape[P::HeadDimV]}, P::HeadDimV, detail,
                 full ? "FlashAttention-2 backward needs head_dim_v == head_dim (got " + str(hd) + " and " + str(shape[P::HeadDimV]) + ")"
                      : std::string());
        return plan;
    }
    // The head-dim x architecture gate of each release (only A100/A800 = sm80 and H100/H800 = sm90 pass).
    std::string_view gate;
    if (hd > kArchGatedHeadDim && !(sm80 || sm90)) {
        if (version < kFa2V255) gate = kGt192Text;
        else if (version < kFa2V262 && (hd <= kHeadDim224 || dropout)) gate = k224Or256DropoutText;
        else if (version >= kFa2V262 && version < kFa2V273 && dropout) gate = kGt192DropoutText;
    }
    if (!gate.empty()) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", 80, cc.smVersion()}, P::HeadDim, detail, gate);
        if (full)
            plan.alternative = "head_dim <= 192, an sm80 / sm90 GPU (A100, H100)" +
                               std::string(version < kFa2V262 ? ", or flash-attn 2.6.2+ with dropout 0 (it checks only with dropout)"
                                                              : ", or dropout 0 (this release checks only with dropout)");
        return plan;
    }

    const std::int64_t bucket = headDimRounded(hd);  // v2.8.3 static_switch.h HEADDIM_SWITCH, the forward's buckets
    const auto traits = bwdTraits(bucket, device.smemPerBlockOptin, dropout);
    if (!traits) {
        // v2.8.3 run_mha_bwd_hdim256 (flash_bwd_launch_template.h:300-304): below 144 KB of opt-in
        // shared memory only the no-dropout kernel exists; with dropout nothing is launched and no
        // error is raised (dq, dk, dv are left as allocated).
        failPlan(plan, Verdict::NoTileFits, {"smem_per_block_optin", kA100Optin, device.smemPerBlockOptin}, P::Dropout, detail,
                 full ? "flash-attn " + versionText(version) +
                            " launches no backward kernel for head_dim in (192, 256] with dropout below 144 KB of opt-in shared "
                            "memory (this GPU: " +
                            withThousands(device.smemPerBlockOptin) +
                            " B); it raises no error, the gradients stay uncomputed (flash_bwd_launch_template.h run_mha_bwd_hdim256)"
                      : std::string());
        if (full) plan.alternative = "dropout 0, head_dim <= 192, or a GPU with >= 144 KB opt-in shared memory (A100, H100)";
        return plan;
    }
    plan.kernelSymbol = kBwdSymbol;
    plan.tile = traits->name;
    plan.tileIndex = 0;
    plan.dynamicSmem = bwdSmem(*traits);
    plan.optsIntoLargeSmem = plan.dynamicSmem >= 48 * 1024;  // run_flash_bwd_seqk_parallel: "if (smem_size_dq_dk_dv >= 48 * 1024)"
    plan.smemParameter = P::HeadDim;
    if (full) plan.candidates.push_back({traits->name, plan.dynamicSmem, plan.dynamicSmem <= device.smemPerBlockOptin});
    // run_flash_bwd_seqk_parallel: grid_n(ceil(seqlen_k / kBlockN), b, h), kNWarps x 32 threads.
    plan.grid = {ceilDiv(shape[P::SeqlenK], traits->blockN), shape[P::Batch], shape[P::Heads]};
    plan.gridParameter = {P::SeqlenK, P::Batch, P::Heads};
    plan.block = {traits->warps * 32, 1, 1};
    const double b = static_cast<double>(shape[P::Batch]), h = static_cast<double>(shape[P::Heads]);
    const double sq = static_cast<double>(shape[P::SeqlenQ]), sk = static_cast<double>(shape[P::SeqlenK]);
    const double d = static_cast<double>(hd);
    // q, k, v, out, dout read; dq (fp32 accumulator, then converted), dk, dv written.
    const double qo = b * sq * h * d * kElementBytes, kv = b * sk * h * d * kElementBytes;
    plan.bytesMoved = 3.0 * qo + 2.0 * kv + 2.0 * kv + b * sq * h * d * 4.0;
    // Backward = 2.5 x the forward's FLOPs: flash-attention v2.8.3 benchmarks/benchmark_flash_attention.py:27-30 flops().
    plan.flops = 2.5 * 2.0 * b * h * sq * sk * 2.0 * d * (shape[P::Causal] ? 0.5 : 1.0);
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
    plan.memoryParameter = P::Batch;
    static const KernelResourceTable none;  // no backward device code here: registers unknown
    finishLaunch(plan, device, none, detail);
    return plan;
}

}  // namespace tilescope::attention

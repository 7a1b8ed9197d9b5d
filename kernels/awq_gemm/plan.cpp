#include "kernels/awq_gemm/plan.h"

#include <limits>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "core/model/text_format.h"
#include "kernels/awq_gemm/dequantize_index.h"
#include "kernels/builtin_kernels.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// AutoAWQ_kernels gemm_cuda_gen.cu (gemm_forward_cuda), vLLM csrc/quantization/awq/gemm_kernels.cu
constexpr std::int64_t kCtaN = 64;       // "OC is not multiple of cta_N = 64"
constexpr std::int64_t kPackNum = 8;     // "OC is not multiple of pack_num = 8"
constexpr std::int64_t kGroupUnit = 32;  // "Group size should be a multiple of 32"
constexpr std::int64_t kLoopK = 32;      // the K loop steps by 32
constexpr std::int64_t kTileM = 16;
constexpr std::int64_t kSplitK = 8;                    // split_k_iters passed by AutoAWQ's and vLLM's callers
constexpr std::int64_t kThreadsX = 32, kThreadsY = 2;  // __launch_bounds__(64)
// Our kernel declares vLLM's layout: A 16x(32+8) fp16, B 32x(N+8) fp16, N scales, N zeros fp16.
constexpr std::int64_t kSmemTile128 = 10496;
constexpr std::int64_t kSmemTile64 = 6144;
// llm-awq's original kernel: only the 128-wide tile, grid (1, ceil(M/16) * N/128, split_k).
constexpr std::int64_t kLegacyCtaN = 128;
// The stacks' dispatch by M (rows = batch x tokens), read upstream:
// AutoAWQ v0.2.9 awq/modules/linear/gemm.py lines 48-56 (WQLinearMMFunction.forward, since v0.2.0 lines
// 38-46, PR #316): `FP16_MATMUL_HEURISTIC_CONDITION = x.shape[0] * x.shape[1] >= 1024` (batch x seq of
// the 3-D activations) -> awq_ext.dequantize_weights_cuda(qweight, scales, qzeros, 0, 0, 0, False) then
// torch.matmul(x, out); else awq_ext.gemm_forward_cuda(..., 8). AutoAWQ <= v0.1.8 (awq/modules/linear.py
// line 105) calls gemm_forward_cuda at every M.
constexpr std::int64_t kAutoAwqDequantM = 1024;
// vLLM v0.4.0 vllm/model_executor/layers/quantization/awq.py lines 157-161 (since v0.3.0, PR #2566):
// `FP16_MATMUL_HEURISTIC_CONDITION = x.shape[:-1].numel() >= 256` -> ops.awq_dequantize(qweight, scales,
// qzeros, 0, 0, 0) then torch.matmul(reshaped_x, out); else ops.awq_gemm.
constexpr std::int64_t kVllmDequantM = 256;
// Both dequantize launches with thx = thy = 0: block (8, 8), grid (qout_c / 8, in_c / 8) = (N/64, K/8)
// rounded down, no shared memory; each thread turns one qweight word (8 columns of one K row) into 8 fp16
// values with its group's zero word and 8 scales (a 16-byte load) and writes them to W[K, N] fp16.
// AutoAWQ_kernels v0.0.9 awq_ext/quantization/gemm_cuda_gen.cu: kernel dequantize_weights lines 731-792,
// host dequantize_weights_cuda lines 1108-1165 (geometry 1135-1141, launch 1159-1162: grid.z = experts,
// 1 here, default stream). vLLM v0.4.0 csrc/quantization/awq/gemm_kernels.cu: kernel lines 274-326, host
// awq_dequantize lines 332-381 (geometry 356-361, launch 373-378 on the current stream).
// The block is our kernel's (dequantize_index.h): upstream's (8, 8), one constant for the plan and the kernel.
constexpr std::int64_t kDequantThreadsX = awq::kDequantizeThreadsX, kDequantThreadsY = awq::kDequantizeThreadsY;
constexpr std::int64_t kDequantColumnsPerBlock = kDequantThreadsX * kPackNum;  // 64 output columns
constexpr std::int64_t kDequantRowsPerBlock = kDequantThreadsY;                // 8 K rows
constexpr std::string_view kCublasUnknown =
    "its kernel, tile, grid, block, shared memory, registers, split-K and workspace (cuBLAS's heuristics pick them for "
    "this GPU, M, N, K and cuBLAS version)";
constexpr std::string_view kCublasWhy = "torch.matmul in fp16: out[M, N] = x[M, K] x W[K, N], W the dequantized weight";
constexpr std::int64_t kPrefillGroupSize = 128;

constexpr std::string_view kSymbol128 = "awq_gemm_m16n128k32";
constexpr std::string_view kSymbol64 = "awq_gemm_m16n64k32";
constexpr std::string_view kLegacySymbol = "awq_gemm_legacy_m16n128k32";

// The Python wrapper's checks, in AutoAWQ's order; shared by all variants. Returns false on failure.
bool checkGemmShape(LaunchPlan& plan, std::int64_t n, std::int64_t k, std::int64_t g, std::int64_t ctaN, PlanDetail detail) {
    using P = AwqGemmFamily::Parameter;
    const bool full = detail == PlanDetail::Full;
    if (n % ctaN != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"cta_N", ctaN, n}, P::N, detail,
                 full ? "OC is not multiple of cta_N = " + str(ctaN) : std::string());
        return false;
    }
    if (n % kPackNum != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"pack_num", kPackNum, n}, P::N, detail, "OC is not multiple of pack_num = 8");
        return false;
    }
    if (g % kGroupUnit != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"group_size % 32", kGroupUnit, g}, P::GroupSize, detail,
                 "Group size should be a multiple of 32");
        return false;
    }
    if (n % g != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"N % group_size", g, n}, P::N, detail, "OC is not multiple of Group size");
        return false;
    }
    if (k % g != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"K % group_size", g, k}, P::K, detail,
                 full ? "IC is not multiple of Group size (K=" + str(k) + ", group_size=" + str(g) + ")" : std::string());
        return false;
    }
    if (k % kLoopK != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"K % 32", kLoopK, k}, P::K, detail,
                 full ? "IC is not multiple of 32, the K loop's step (K=" + str(k) + ")" : std::string());
        return false;
    }
    return true;
}

void setTraffic(LaunchPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t g, std::int64_t splitK) {
    const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
    const double groups = static_cast<double>(ceilDiv(k, g));
    const double weights = K * N / 2.0;      // qweight int32 [K, N/8]
    const double zeros = groups * N / 2.0;   // qzeros int32 [K/G, N/8]
    const double scales = groups * N * 2.0;  // scales fp16 [K/G, N]
    const double activations = M * K * 2.0;
    const double partials = static_cast<double>(splitK) * M * N * 2.0;  // out [split_k, M, N] fp16
    plan.bytesMoved = weights + zeros + scales + activations + partials;
    plan.flops = 2.0 * M * N * K;
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved + M * N * 2.0);
}

// The prefill kernel reduces split-k in place (AutoAWQ_kernels quantization_new/gemm/gemm_cuda.cu: split 0
// stores, each later split reads and adds under a per-tile semaphore) on the gemv_fast packing: int16
// weights [N/4, K], fp16 scales and scaled zeros [K/G, N].
void setPrefillTraffic(LaunchPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t g, std::int64_t splitK,
                       std::int64_t ctaM, std::int64_t ctaN) {
    const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
    const double groups = static_cast<double>(ceilDiv(k, g));
    const double weights = K * N / 2.0;
    const double scalesAndZeros = 2.0 * groups * N * 2.0;
    const double activations = M * K * 2.0;
    const double output = M * N * 2.0;
    const double semaphores = static_cast<double>(ceilDiv(m, ctaM) * ceilDiv(n, ctaN)) * 4.0;
    plan.bytesMoved = weights + scalesAndZeros + activations + output * static_cast<double>(2 * splitK - 1);
    plan.flops = 2.0 * M * N * K;
    plan.deviceMemoryBytes = clampBytes(weights + scalesAndZeros + activations + output + semaphores);
}

std::string dispatchNote(std::int64_t m) {
    if (m >= kAutoAwqDequantM)
        return "at M >= " + str(kAutoAwqDequantM) +
               " AutoAWQ dequantizes and runs an fp16 matmul instead (vLLM from M >= " + str(kVllmDequantM) + ")";
    if (m >= kVllmDequantM) return "at M >= " + str(kVllmDequantM) + " vLLM dequantizes and runs an fp16 matmul instead";
    return {};
}

// The stack's refusals before any launch (its module's asserts): WQLinear_GEMM.__init__ (AutoAWQ v0.2.9
// gemm.py lines 132-133), AWQLinearMethod.create_weights (vLLM v0.4.0 awq.py lines 86-95, ValueError).
bool checkStackShape(LaunchPlan& plan, std::string_view stack, std::int64_t n, std::int64_t k, std::int64_t g, PlanDetail detail) {
    using P = AwqGemmFamily::Parameter;
    const bool autoawq = stack == "AutoAWQ";
    const std::string vllmText =
        "The input size is not aligned with the quantized weight shape. This can be caused by too large tensor "
        "parallel size.";
    if (g <= 0 || k % g != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"K % group_size", g, k}, P::K, detail,
                 autoawq ? "AssertionError (AutoAWQ gemm.py: assert self.in_features % self.group_size == 0)" : vllmText);
        return false;
    }
    if (n % kPackNum != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"N % 8", kPackNum, n}, P::N, detail,
                 autoawq ? "AssertionError (AutoAWQ gemm.py: assert out_features % (32 // self.w_bit) == 0)"
                         : "The output size is not aligned with the quantized weight shape. This can be caused by too large tensor "
                           "parallel size.");
        return false;
    }
    return true;
}

// From the threshold: the stack's dequantize kernel (the plan's launch) then cuBLAS's GEMM (an extra
// launch whose configuration only cuBLAS knows). Traffic is each launch's minimum: every byte once.
void planDequantizeThenGemm(LaunchPlan& plan, const AwqGemmFamily::StackDispatch& dispatch, std::int64_t m, std::int64_t n, std::int64_t k,
                            std::int64_t g, PlanDetail detail) {
    using P = AwqGemmFamily::Parameter;
    const bool full = detail == PlanDetail::Full;
    plan.kernelSymbol = AwqGemmFamily::kDequantizeSymbol;
    plan.tile = dispatch.tile;
    plan.tileIndex = 2;
    // The GEMM kernel's tiles would fit; the stack simply does not launch that kernel from here.
    if (full) plan.candidates = {{"m16n128k32", kSmemTile128, n % 128 == 0}, {"m16n64k32", kSmemTile64, true}, {dispatch.tile, 0, true}};
    plan.grid = {n / kDequantColumnsPerBlock, k / kDequantRowsPerBlock, 1};
    plan.gridParameter = {P::N, P::K, -1};
    plan.block = {kDequantThreadsX, kDequantThreadsY, 1};
    plan.splitK = 1;

    const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
    const double groups = static_cast<double>(ceilDiv(k, g));
    const double packed = K * N / 2.0 + groups * N / 2.0 + groups * N * 2.0;  // qweight, qzeros, scales
    const double dequantized = K * N * 2.0;                                   // W fp16 [K, N], torch.empty
    const double gemmBytes = M * K * 2.0 + dequantized + M * N * 2.0;
    plan.flops = 2.0 * M * N * K;
    plan.bytesMoved = packed + dequantized + gemmBytes;
    plan.deviceMemoryBytes = clampBytes(M * K * 2.0 + packed + dequantized + M * N * 2.0);

    ExtraLaunch gemm;
    gemm.role = "gemm";
    gemm.why = kCublasWhy;
    gemm.library = AwqGemmFamily::kGemmLibrary;
    gemm.unknown = kCublasUnknown;
    gemm.flops = plan.flops;
    gemm.bytesMoved = gemmBytes;
    plan.extraLaunches.push_back(gemm);

    if (full) {
        plan.note = std::string(dispatch.stack) + " dequantizes and runs an fp16 matmul from M = " + str(dispatch.dequantizeFromM) +
                    ": the dequantized weight (K x N fp16) takes " + withThousands(static_cast<std::int64_t>(dequantized)) +
                    " B more device memory";
        // Upstream's grid rounds down and torch.empty leaves the rest: those weights are garbage.
        if (n % kDequantColumnsPerBlock != 0)
            plan.note += "; N % 64 != 0: the dequantize grid (N/64 rounded down) leaves the last " + str(n % kDequantColumnsPerBlock) +
                         " columns of W unwritten";
        if (k % kDequantRowsPerBlock != 0)
            plan.note += "; K % 8 != 0: the dequantize grid leaves the last " + str(k % kDequantRowsPerBlock) + " rows of W unwritten";
    }
}

// The plan's tile from a stack's threshold: "dequantize + GEMM from M = 1024".
std::string dispatchTile(std::int64_t fromM) { return "dequantize + GEMM from M = " + str(fromM); }

// autoawq / vllm: `below` says where the stack runs the gemm kernel; from there its `dequantizeOp` at
// upstream's geometry (kDequantThreadsX/Y) and torch.matmul.
VariantInfo stackDispatchVariant(std::string name, const std::string& below, std::string_view dequantizeOp, std::string upstream) {
    return {std::move(name),
            below + std::string(dequantizeOp) + ", block (" + str(kDequantThreadsX) + ", " + str(kDequantThreadsY) + "), grid (N/" +
                str(kDequantColumnsPerBlock) + ", K/" + str(kDequantRowsPerBlock) + "), then torch.matmul (cuBLAS fp16 GEMM)",
            std::move(upstream),
            {"M", 0, 0, 0},
            {"N", 0, 0, 0}};
}

}  // namespace

const AwqGemmFamily::StackDispatch* AwqGemmFamily::stackDispatch(int variant) {
    static const std::string autoawqTile = dispatchTile(kAutoAwqDequantM), vllmTile = dispatchTile(kVllmDequantM);
    static const StackDispatch autoawq{"AutoAWQ", kAutoAwqDequantM, autoawqTile};
    static const StackDispatch vllm{"vLLM", kVllmDequantM, vllmTile};
    if (variant == AutoAwq) return &autoawq;
    if (variant == Vllm) return &vllm;
    return nullptr;
}

const std::vector<AwqGemmFamily::PrefillBucket>& AwqGemmFamily::prefillBuckets() {
    // AutoAWQ_kernels quantization_new/gemm/gemm_cuda.cu. smem = (CTA_M*CTA_K + CTA_N*CTA_K/4 + SCALES)
    // * STAGES * 2 for the first four rows (tests check it); the last row is the figure KERNELS.md gives.
    static const std::vector<PrefillBucket> buckets{
        {32, 16, 128, 128, 8, 4, 2, 57344, "M<=32: 16x128x128, 4 stages", "awq_gemm_prefill_m16n128k128s4"},
        {64, 16, 128, 128, 8, 3, 1, 41472, "M<=64: 16x128x128, 3 stages", "awq_gemm_prefill_m16n128k128s3"},
        {128, 32, 128, 128, 8, 4, 1, 73728, "M<=128: 32x128x128, 4 stages", "awq_gemm_prefill_m32n128k128s4"},
        {192, 64, 128, 64, 4, 4, 1, 53248, "M<=192: 64x128x64, 4 stages", "awq_gemm_prefill_m64n128k64s4"},
        {std::numeric_limits<std::int64_t>::max(), 64, 128, 64, 4, 4, 1, 50176, "M>192: 64x128x64, 4 stages",
         "awq_gemm_prefill_m64n128k64s4_large"},
    };
    return buckets;
}

const std::vector<VariantInfo>& AwqGemmFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"gemm",
         "grid.x = ceil(M/16) * N/tileN * split_k (8), block (32, 2), tile m16n128k32 or m16n64k32",
         "AutoAWQ_kernels gemm_cuda_gen.cu (gemm_forward_cuda), vLLM csrc/quantization/awq/gemm_kernels.cu",
         {"M", 0, 0, 0},
         {"N", 0, 0, 0}},
        {"legacy_grid_y",
         "the original llm-awq launch: grid (1, ceil(M/16) * N/128, split_k); grid.y overflows at large M",
         "llm-awq awq/kernels/csrc/quantization/gemm_cuda_gen.cu (llm-awq issue #7)",
         {"M", 0, 0, 0},
         {"N", 0, 0, 0}},
        {"prefill",
         "group 128, M-bucketed CTA tiles with multi-stage dynamic shared memory",
         "AutoAWQ_kernels awq_ext/quantization_new/gemm/gemm_cuda.cu",
         {"M", 0, 0, 0},
         {"group_size", 32, 256, 4}},
        stackDispatchVariant(
            "autoawq", "AutoAWQ 0.2.0-0.2.9 (WQLinear_GEMM): the gemm kernel below M = " + str(kAutoAwqDequantM) + "; from it ",
            "dequantize_weights_cuda",
            "AutoAWQ v0.2.9 awq/modules/linear/gemm.py lines 48-56, AutoAWQ_kernels v0.0.9 gemm_cuda_gen.cu lines 731-792, "
            "1108-1165"),
        stackDispatchVariant(
            "vllm", "vLLM 0.3.0+ AWQ (AWQLinearMethod): the gemm kernel below " + str(kVllmDequantM) + " tokens; from there ",
            "awq_dequantize",
            "vLLM v0.4.0 vllm/model_executor/layers/quantization/awq.py lines 157-161, csrc/quantization/awq/gemm_kernels.cu "
            "lines 274-381"),
    };
    return list;
}

const ParameterList& AwqGemmFamily::parameters() const {
    static const ParameterList list{
        {"M", "activation rows (batch size x tokens)", 0, 1 << 24, 16, AxisScale::Log2, false},
        {"N", "output features (OC, out_features)", 0, 1 << 20, 4096, AxisScale::Log2, false},
        {"K", "input features (IC, in_features)", 0, 1 << 20, 4096, AxisScale::Log2, false},
        {"group_size", "quantization group size along K", 1, 1 << 12, 128, AxisScale::Log2, false},
    };
    return list;
}

std::vector<std::string_view> AwqGemmFamily::kernelSymbols() const {
    std::vector<std::string_view> symbols{kSymbol128, kSymbol64, kLegacySymbol, kDequantizeSymbol};
    for (const auto& bucket : prefillBuckets()) symbols.push_back(bucket.symbol);
    return symbols;
}

LaunchPlan AwqGemmFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const std::int64_t m = shape[M], n = shape[N], k = shape[K], g = shape[GroupSize];
    const bool full = detail == PlanDetail::Full;

    const StackDispatch* dispatch = stackDispatch(variant);
    if (variant == Vllm && device.computeCapability.smVersion() < kVllmMinCapability) {
        const int current = device.computeCapability.smVersion();
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", kVllmMinCapability, current}, -1, detail,
                 full ? "The quantization method awq is not supported for the current GPU. Minimum capability: " + str(kVllmMinCapability) +
                            ". Current capability: " + str(current) + "."
                      : std::string());
        if (full) plan.alternative = "a Turing (sm_75) or newer GPU, or a GPTQ/fp16 checkpoint with a backend this GPU supports";
        return plan;
    }
    if (dispatch && m >= dispatch->dequantizeFromM) {
        if (!checkStackShape(plan, dispatch->stack, n, k, g, detail)) return plan;
        planDequantizeThenGemm(plan, *dispatch, m, n, k, g, detail);
    } else if (variant == Gemm || dispatch) {
        if (!checkGemmShape(plan, n, k, g, kCtaN, detail)) return plan;
        const bool wide = n % 128 == 0;
        plan.tileIndex = wide ? 0 : 1;
        plan.tile = wide ? "m16n128k32" : "m16n64k32";
        plan.kernelSymbol = wide ? kSymbol128 : kSymbol64;
        plan.staticSmem = wide ? kSmemTile128 : kSmemTile64;
        if (full) plan.candidates = {{"m16n128k32", kSmemTile128, wide}, {"m16n64k32", kSmemTile64, true}};
        plan.splitK = static_cast<int>(kSplitK);
        plan.grid = {ceilDiv(m, kTileM) * (n / (wide ? 128 : 64)) * kSplitK, 1, 1};
        plan.gridParameter = {M, -1, -1};
        plan.block = {kThreadsX, kThreadsY, 1};
        plan.paddingWaste = m > 0 ? static_cast<double>(roundUp(m, kTileM) - m) / static_cast<double>(roundUp(m, kTileM)) : 0.0;
        if (full && dispatch)
            plan.note = std::string(dispatch->stack) + " runs this GEMM kernel below M = " + str(dispatch->dequantizeFromM) +
                        "; from there it dequantizes and runs an fp16 matmul (cuBLAS)";
        else if (full) plan.note = dispatchNote(m);
        setTraffic(plan, m, n, k, g, kSplitK);
    } else if (variant == LegacyGridY) {
        if (!checkGemmShape(plan, n, k, g, kLegacyCtaN, detail)) return plan;
        plan.tileIndex = 0;
        plan.tile = "m16n128k32";
        plan.kernelSymbol = kLegacySymbol;
        plan.staticSmem = kSmemTile128;
        if (full) plan.candidates = {{"m16n128k32", kSmemTile128, true}};
        plan.splitK = static_cast<int>(kSplitK);
        plan.grid = {1, ceilDiv(m, kTileM) * (n / kLegacyCtaN), kSplitK};
        plan.gridParameter = {-1, M, -1};
        plan.block = {kThreadsX, kThreadsY, 1};
        // Only past grid.y's ceiling is the flattened grid a way out (an empty M fails in both).
        if (full && plan.grid.y > device.maxGridDim[1])
            plan.alternative = "use the default gemm variant: upstream fixed this by flattening the grid into grid.x";
        setTraffic(plan, m, n, k, g, kSplitK);
    } else {
        // AutoAWQ runs this kernel on gemv_fast checkpoints (awq/modules/linear/gemv_fast.py): only that
        // module's asserts guard it; gemm_forward_cuda_prefill checks nothing (no cta_N, no N % G).
        if (k % g != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"K % group_size", g, k}, K, detail,
                     "AssertionError (AutoAWQ gemv_fast.py: assert self.in_features % self.group_size == 0)");
            return plan;
        }
        if (n % kPackNum != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"N % 8", kPackNum, n}, N, detail,
                     "AssertionError (AutoAWQ gemv_fast.py: assert out_features % (32 // self.w_bit) == 0)");
            return plan;
        }
        if (g != kPrefillGroupSize) {
            failPlan(plan, Verdict::UnsupportedShape, {"group_size", kPrefillGroupSize, g}, GroupSize, detail,
                     full ? "the prefill GEMM kernel only supports group size 128 (got " + str(g) + ")" : std::string());
            return plan;
        }
        const auto& buckets = prefillBuckets();
        std::size_t chosen = 0;
        while (chosen + 1 < buckets.size() && m > buckets[chosen].maxM) ++chosen;
        const PrefillBucket& bucket = buckets[chosen];
        if (full) {
            for (const auto& b : buckets) plan.candidates.push_back({b.name, b.smemBytes, b.smemBytes <= device.smemPerBlockOptin});
        }
        plan.tileIndex = static_cast<int>(chosen);
        plan.tile = bucket.name;
        plan.kernelSymbol = bucket.symbol;
        plan.splitK = static_cast<int>(bucket.splitK);
        plan.dynamicSmem = bucket.smemBytes;
        plan.optsIntoLargeSmem = bucket.smemBytes > device.smemPerBlock;
        plan.smemParameter = M;
        // gemm_cuda.cu KERNEL_LAUNCH_CODE: j_factors1 = num_out_channels / CTA_N (rounded down),
        // num_blocks = ceil(M / CTA_M) * j_factors1 * SPLITK, threads_per_block (WARP_SIZE, NUM_WARPS).
        plan.grid = {ceilDiv(m, bucket.ctaM) * (n / bucket.ctaN) * bucket.splitK, 1, 1};
        plan.gridParameter = {M, -1, -1};
        plan.block = {32, bucket.warps, 1};
        const std::int64_t padded = roundUp(m, bucket.ctaM);
        plan.paddingWaste = padded > 0 ? static_cast<double>(padded - m) / static_cast<double>(padded) : 0.0;
        if (full) {
            plan.note = dispatchNote(m);
            if (n % bucket.ctaN != 0 && n > bucket.ctaN) {
                if (!plan.note.empty()) plan.note += "; ";
                plan.note +=
                    "N % 128 != 0: upstream's grid has N/128 tiles rounded down while its kernel indexes them rounded up, so "
                    "it leaves tiles uncomputed; Tilescope's kernel computes the last columns in the blocks of N tile 0";
            }
        }
        setPrefillTraffic(plan, m, n, k, g, bucket.splitK, bucket.ctaM, bucket.ctaN);
    }
    plan.memoryParameter = M;
    finishLaunch(plan, device, compiledKernelResources(), detail);
    return plan;
}

}  // namespace tilescope

#include "kernels/awq_gemm/plan.h"

#include <limits>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
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
// Dispatch thresholds worth showing (AutoAWQ awq/modules/linear/gemm.py, vLLM awq.py).
constexpr std::int64_t kAutoAwqDequantM = 1024;
constexpr std::int64_t kVllmDequantM = 256;
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

}  // namespace

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
    std::vector<std::string_view> symbols{kSymbol128, kSymbol64, kLegacySymbol};
    for (const auto& bucket : prefillBuckets()) symbols.push_back(bucket.symbol);
    return symbols;
}

LaunchPlan AwqGemmFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const std::int64_t m = shape[M], n = shape[N], k = shape[K], g = shape[GroupSize];
    const bool full = detail == PlanDetail::Full;

    if (variant == Gemm) {
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
        if (full) plan.note = dispatchNote(m);
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

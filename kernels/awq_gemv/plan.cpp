#include "kernels/awq_gemv/plan.h"

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/builtin_kernels.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// AutoAWQ_kernels awq_ext/quantization/gemv_cuda.cu: one warp per output channel, 4 per block.
constexpr std::int64_t kGemvWarpsPerBlock = 4;
constexpr std::int64_t kGemvLoadK = 32;  // K % 32: each lane loads 16 bytes of packed weights
// AutoAWQ_kernels quantization_new/gemv/gemv_cuda.cu
constexpr std::int64_t kFastMaxBatch = 7;
constexpr std::int64_t kFastGroupSize = 128;
constexpr std::int64_t kFastThreads = 256;
constexpr std::int64_t kFastRowsPerBlock = 8;  // grid = N / 8
// static smem = 512 * batch bytes: llm-awq quantization_new/gemv/gemv_cuda.cu line 111, float
// out_smem[256 / 32 * 2][2 * batch * 4] (AutoAWQ_kernels declares it extern and launches with none)
constexpr std::int64_t kFastSmemPerRow = 512;
constexpr std::int64_t kFastLoadK = 64;
constexpr std::int64_t kPackNibbles = 8;  // int32 words hold 8 nibbles

constexpr std::string_view kGemvSymbol = "awq_gemv_kernel";
constexpr std::string_view kFastSymbols[] = {"awq_gemv_fast_b1", "awq_gemv_fast_b2", "awq_gemv_fast_b3", "awq_gemv_fast_b4",
                                             "awq_gemv_fast_b5", "awq_gemv_fast_b6", "awq_gemv_fast_b7"};

constexpr std::string_view kUseGemm = "use awq_gemm: a GEMM-packed checkpoint (quantization_config.version = \"gemm\") accepts any batch";

// qzeros columns per row: ceil(ceil(K/G)/8), padded to a multiple of 1 (G>=128), 2 (G=64), 4 (G=32).
std::int64_t zerosWidth(std::int64_t k, std::int64_t g) {
    const std::int64_t pad = g >= 128 ? 1 : (g == 64 ? 2 : 4);
    return roundUp(ceilDiv(ceilDiv(k, g), kPackNibbles), pad);
}

void setTraffic(LaunchPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k, double weightMetaBytes) {
    const double weights = static_cast<double>(n) * static_cast<double>(k) / 2.0;
    const double activations = 2.0 * static_cast<double>(m) * static_cast<double>(k);
    const double output = 2.0 * static_cast<double>(m) * static_cast<double>(n);
    plan.bytesMoved = weights + weightMetaBytes + activations + output;
    plan.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
}

}  // namespace

const std::vector<VariantInfo>& AwqGemvFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"gemv",
         "batch-1 GEMV: grid (1, N/4, B), block (32, 4), one warp per output channel",
         "AutoAWQ awq/modules/linear/gemv.py, AutoAWQ_kernels awq_ext/quantization/gemv_cuda.cu",
         {"M", 1, 8, 8},
         {"group_size", 32, 256, 4}},
        {"gemv_fast",
         "batch 1..7, group 128: grid N/8, block 256, 512 B static smem per batch row",
         "AutoAWQ_kernels awq_ext/quantization_new/gemv/gemv_cuda.cu",
         {"M", 1, 16, 16},
         {"group_size", 32, 256, 4}},
    };
    return list;
}

const ParameterList& AwqGemvFamily::parameters() const {
    static const ParameterList list{
        {"M", "activation rows (batch size x tokens); the GEMV kernels take one token per sequence", 0, 1 << 24, 1, AxisScale::Log2, false},
        {"N", "output features (out_features)", 0, 1 << 20, 4096, AxisScale::Log2, false},
        {"K", "input features (in_features)", 0, 1 << 20, 4096, AxisScale::Log2, false},
        {"group_size", "quantization group size along K (q_group_size)", 1, 1 << 12, 128, AxisScale::Log2, false},
    };
    return list;
}

std::vector<std::string_view> AwqGemvFamily::kernelSymbols() const {
    std::vector<std::string_view> symbols{kGemvSymbol};
    symbols.insert(symbols.end(), std::begin(kFastSymbols), std::end(kFastSymbols));
    return symbols;
}

LaunchPlan AwqGemvFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const std::int64_t m = shape[M], n = shape[N], k = shape[K], g = shape[GroupSize];
    const bool full = detail == PlanDetail::Full;

    if (variant == Gemv) {
        if (m != 1) {
            failPlan(plan, Verdict::UnsupportedShape, {"batch_size", 1, m}, M, detail,
                     full ? "AWQ GEMV kernel only supports batch size 1 (got batch size " + str(m) +
                                "); use a GEMM-packed checkpoint (quantization_config.version = \"gemm\")"
                          : std::string());
            if (full) plan.alternative = std::string(kUseGemm);
            return plan;
        }
        if (g != 64 && g != 128) {
            failPlan(plan, Verdict::UnsupportedShape, {"group_size", 128, g}, GroupSize, detail, "Unsupported group size for gemv kernel.");
            return plan;
        }
        if (k % kGemvLoadK != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"K % 32", kGemvLoadK, k}, K, detail,
                     full ? "K must be a multiple of 32 for the GEMV kernel's 16-byte loads (got K=" + str(k) + ")" : std::string());
            return plan;
        }
        if (n % kGemvWarpsPerBlock != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"N % 4", kGemvWarpsPerBlock, n}, N, detail,
                     full ? "N must be a multiple of 4, one warp per output channel (got N=" + str(n) + ")" : std::string());
            return plan;
        }
        plan.kernelSymbol = kGemvSymbol;
        plan.grid = {1, n / kGemvWarpsPerBlock, m};
        plan.gridParameter = {-1, N, M};
        plan.block = {32, kGemvWarpsPerBlock, 1};
        const std::int64_t zw = zerosWidth(k, g);
        // qzeros int32 [N, zw] + scales fp16 [N, zw * 8]
        setTraffic(plan, m, n, k, static_cast<double>(n) * static_cast<double>(zw) * (4.0 + 2.0 * kPackNibbles));
    } else {
        if (m < 1 || m > kFastMaxBatch) {
            failPlan(plan, Verdict::UnsupportedShape, {"batch_size", kFastMaxBatch, m}, M, detail,
                     "Unsupported batch size for gemv kernel.");
            if (full)
                plan.alternative =
                    "use awq_gemm: upstream sends 8 or more rows to a GEMM kernel (gemv_fast is "
                    "chosen only for batch < 8 and one token)";
            return plan;
        }
        if (g != kFastGroupSize) {
            failPlan(plan, Verdict::UnsupportedShape, {"group_size", kFastGroupSize, g}, GroupSize, detail,
                     "Unsupported group size for gemv kernel.");
            return plan;
        }
        if (k % kFastLoadK != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"K % 64", kFastLoadK, k}, K, detail,
                     full ? "K must be a multiple of 64 for the gemv_fast kernel (got K=" + str(k) + ")" : std::string());
            return plan;
        }
        if (n % kFastRowsPerBlock != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"N % 8", kFastRowsPerBlock, n}, N, detail,
                     full ? "N must be a multiple of 8 for the gemv_fast kernel (got N=" + str(n) + ")" : std::string());
            return plan;
        }
        plan.kernelSymbol = kFastSymbols[m - 1];
        plan.grid = {n / kFastRowsPerBlock, 1, 1};
        plan.gridParameter = {N, -1, -1};
        plan.block = {kFastThreads, 1, 1};
        plan.staticSmem = kFastSmemPerRow * m;
        // scales and scaled zeros, fp16 [K/G, N] each
        setTraffic(plan, m, n, k, 2.0 * 2.0 * static_cast<double>(ceilDiv(k, g)) * static_cast<double>(n));
    }
    plan.memoryParameter = N;
    finishLaunch(plan, device, compiledKernelResources(), detail);
    return plan;
}

}  // namespace tilescope

#include "kernels/gemm_bucket/plan.h"

#include <algorithm>

#include "core/device_spec.h"
#include "core/launch_checks.h"
#include "kernels/builtin_kernels.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// sglang python/sglang/kernels/ops/kimi_k3/gemm_ar.py and jit/csrc/kimi_k3/comm/gemm_ar.cuh
constexpr std::int64_t kMaxTokens = 512;
constexpr std::int64_t kKMultiple = 128;
constexpr std::int64_t kNMultiple = 256;
constexpr std::int64_t kSmallCellGrid = 152;
constexpr std::int64_t kSmallCellThreads = 224;
constexpr std::int64_t kSmallCellSmem = 98400;
constexpr std::int64_t kLargeCellThreads = 256;
constexpr std::int64_t kMaxStages = 12;
constexpr std::int64_t kStageBudget = 225280;   // bytes the stage count is sized against
constexpr std::int64_t kStageFixedBytes = 16384;  // per stage: the activation tile
constexpr std::int64_t kStageBytesPerN = 128;     // per stage and output column: the weight tile
constexpr std::int64_t kElementBytes = 2;         // bf16

constexpr GemmBucketFamily::Cell largeCell(std::int64_t rows, std::int64_t blockN, std::string_view name,
                                           std::string_view symbol) {
    const std::int64_t perStage = kStageFixedBytes + blockN * kStageBytesPerN;
    const std::int64_t stages = std::min(kMaxStages, kStageBudget / perStage);
    return {rows, 0, kLargeCellThreads, blockN, stages, stages * perStage, name, symbol};
}

}  // namespace

const std::vector<GemmBucketFamily::Cell>& GemmBucketFamily::cells() {
    static const std::vector<Cell> list{
        {8, kSmallCellGrid, kSmallCellThreads, 0, 0, kSmallCellSmem, "cell 8", "gemm_bucket_small"},
        {16, kSmallCellGrid, kSmallCellThreads, 0, 0, kSmallCellSmem, "cell 16", "gemm_bucket_small"},
        largeCell(32, 16, "cell 32", "gemm_bucket_bn16"),
        largeCell(64, 32, "cell 64", "gemm_bucket_bn32"),
        largeCell(128, 64, "cell 128", "gemm_bucket_bn64"),
        largeCell(256, 128, "cell 256", "gemm_bucket_bn128"),
        largeCell(512, 256, "cell 512", "gemm_bucket_bn256"),
    };
    return list;
}

const std::vector<VariantInfo>& GemmBucketFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"oproj", "out[cell, N] = x[M, K] @ W[N, K]^T in bf16, M rounded up to a cell of 8..512, staged shared memory per cell",
         "sglang python/sglang/kernels/ops/kimi_k3/gemm_ar.py, jit/csrc/kimi_k3/comm/gemm_ar.cuh"},
    };
    return list;
}

const ParameterList& GemmBucketFamily::parameters() const {
    static const ParameterList list{
        {"M", "tokens in the batch (rounded up to a cell of 8..512)", 0, 1 << 24, 64, AxisScale::Log2, false},
        {"N", "output features (upstream 7168)", 0, 1 << 20, 7168, AxisScale::Log2, false},
        {"K", "input features", 0, 1 << 20, 8192, AxisScale::Log2, false},
    };
    return list;
}

std::vector<std::string_view> GemmBucketFamily::kernelSymbols() const {
    std::vector<std::string_view> symbols;
    for (const auto& cell : cells())
        if (std::find(symbols.begin(), symbols.end(), cell.symbol) == symbols.end()) symbols.push_back(cell.symbol);
    return symbols;
}

LaunchPlan GemmBucketFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan;
    plan.family = name();
    plan.variant = variants()[static_cast<std::size_t>(variant)].name;
    if (detail == PlanDetail::Full) plan.deviceId = device.id;
    plan.shape = shape;
    const bool full = detail == PlanDetail::Full;
    const std::int64_t m = shape[M], n = shape[N], k = shape[K];

    if (k % kKMultiple != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"K % 128", kKMultiple, k}, K, detail,
                 full ? "gemm_ar: K=" + str(k) + " must be a multiple of 128" : std::string());
        return plan;
    }
    if (n % kNMultiple != 0) {
        failPlan(plan, Verdict::UnsupportedShape, {"N % 256", kNMultiple, n}, N, detail,
                 full ? "gemm_ar: N=" + str(n) + " must be a multiple of 256" : std::string());
        return plan;
    }
    if (m <= 0 || m > kMaxTokens) {
        failPlan(plan, Verdict::BucketOverflow, {"max_tokens", kMaxTokens, m}, M, detail,
                 full ? "gemm_ar: M=" + str(m) + " outside [1, " + str(kMaxTokens) + "]" : std::string());
        if (full && m > kMaxTokens)
            plan.alternative = "chunk M into <= 512-row blocks: " + str(ceilDiv(m, kMaxTokens)) + " calls for M=" + str(m);
        return plan;
    }

    const auto& table = cells();
    std::size_t index = 0;
    while (table[index].rows < m) ++index;
    const Cell& cell = table[index];
    if (full)
        for (const auto& c : table) plan.candidates.push_back({c.name, c.smemBytes, c.smemBytes <= device.smemPerBlockOptin});
    plan.tileIndex = static_cast<int>(index);
    plan.tile = cell.name;
    plan.bucketCell = cell.rows;
    plan.paddingWaste = static_cast<double>(cell.rows - m) / static_cast<double>(cell.rows);
    plan.kernelSymbol = cell.symbol;
    const std::int64_t tiles = cell.blockN > 0 ? ceilDiv(n, cell.blockN) : 0;
    plan.grid = {cell.gridBlocks > 0 ? cell.gridBlocks : std::min<std::int64_t>(tiles, device.smCount), 1, 1};
    plan.gridParameter = {N, -1, -1};
    plan.block = {cell.threads, 1, 1};
    plan.dynamicSmem = cell.smemBytes;
    plan.optsIntoLargeSmem = cell.smemBytes > device.smemPerBlock;
    plan.smemParameter = M;

    const double M_ = static_cast<double>(m), N_ = static_cast<double>(n), K_ = static_cast<double>(k);
    plan.bytesMoved = (N_ * K_ + M_ * K_ + static_cast<double>(cell.rows) * N_) * kElementBytes;
    plan.flops = 2.0 * M_ * N_ * K_;
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
    plan.memoryParameter = N;
    finishLaunch(plan, device, compiledKernelResources(), detail);
    if (full && plan.verdict == Verdict::InvalidLaunch && plan.limit && plan.limit->name == "smem_per_block_optin") {
        std::int64_t largestFitting = 0;
        for (const auto& c : table)
            if (c.smemBytes <= device.smemPerBlockOptin) largestFitting = c.rows;
        if (largestFitting > 0)
            plan.alternative = "chunk M into calls of at most " + str(largestFitting) +
                               " rows: the largest cell whose shared memory fits this GPU's opt-in limit";
    }
    return plan;
}

}  // namespace tilescope

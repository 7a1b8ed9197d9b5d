#include "kernels/gemm_bucket/plan.h"

#include <algorithm>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/builtin_kernels.h"
#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// sglang python/sglang/kernels/ops/kimi_k3/gemm_ar.py and jit/csrc/kimi_k3/comm/gemm_ar.cuh
// (read at sgl-project/sglang 2284c25b95f5b335b43c5790672675cfae5da849).
constexpr std::int64_t kMaxTokens = 512;        // kMMax
constexpr std::int64_t kKMultiple = 128;        // GemmArKernel: K % 128 == 0
constexpr std::int64_t kNMultiple = 256;        // static_assert kN % 256 == 0
constexpr std::int64_t kSmallCellSmem = 98400;  // Launcher<16>: S=6 * CH=2 * (48 + 16) * 128 B + 2*S mbarriers
constexpr std::int64_t kElementBytes = 2;       // bf16

GemmBucketFamily::Cell smallCell(std::int64_t rows, std::string_view name) {
    return {rows,
            true,
            false,
            bucket::kSmallThreads,
            0,
            bucket::kSmallStages,
            bucket::kSmallChunks,
            bucket::kSmallStripRows,
            bucket::kSmallRows,
            kSmallCellSmem,
            name,
            "gemm_bucket_small"};
}

GemmBucketFamily::Cell largeCell(std::int64_t rows, std::string_view name, std::string_view symbol) {
    const int cell = static_cast<int>(rows);
    const std::int64_t blockN = bucket::blockN(cell);
    const bool swap = bucket::swapsOperands(cell);
    const std::int64_t perStage = bucket::stageBytes(bucket::kTileRows, blockN);  // 16,384 + BN * 128
    const std::int64_t stages = bucket::largeStages(static_cast<int>(blockN));
    return {rows,
            false,
            swap,
            bucket::kLargeWarps * 32,
            blockN,
            stages,
            1,
            swap ? bucket::kTileRows : blockN,
            swap ? blockN : bucket::kTileRows,
            stages * perStage,
            name,
            symbol};
}

std::string stageText(const GemmBucketFamily::Cell& c) {
    const std::string rows = str(c.stageWeightRows) + " weight rows + " + str(c.stageActivationRows) + " activation rows";
    return "a stage holds " + (c.stageChunks > 1 ? str(c.stageChunks) + " x (" + rows + ")" : rows) + " x 64 k, " + str(c.stages) +
           " stages";
}

}  // namespace

const std::vector<GemmBucketFamily::Cell>& GemmBucketFamily::cells() {
    static const std::vector<Cell> list{
        smallCell(8, "cell 8"),
        smallCell(16, "cell 16"),
        largeCell(32, "cell 32", "gemm_bucket_bn16"),
        largeCell(64, "cell 64", "gemm_bucket_bn32"),
        largeCell(128, "cell 128", "gemm_bucket_bn64"),
        largeCell(256, "cell 256", "gemm_bucket_bn128"),
        largeCell(512, "cell 512", "gemm_bucket_bn256"),
    };
    return list;
}

std::int64_t GemmBucketFamily::workTiles(const Cell& cell, std::int64_t n) {
    return cell.small ? n / bucket::kColumnTile : bucket::tileCount(n, static_cast<int>(cell.rows));
}

std::int64_t GemmBucketFamily::gridBlocks(const Cell& cell, std::int64_t n) {
    return cell.small ? bucket::kGridCap : bucket::gridFor(workTiles(cell, n));
}

const std::vector<VariantInfo>& GemmBucketFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"oproj",
         "out[cell, N] = x[M, K] @ W[N, K]^T in bf16, M rounded up to a cell of 8..512, staged shared memory per cell",
         "sglang python/sglang/kernels/ops/kimi_k3/gemm_ar.py, jit/csrc/kimi_k3/comm/gemm_ar.cuh",
         {"M", 1, 4096, 0},
         {"N", 0, 0, 0}},
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
    LaunchPlan plan = startPlan(variant, shape, device, detail);
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
    plan.workTiles = workTiles(cell, n);
    plan.operandsSwapped = cell.swap;
    plan.grid = {gridBlocks(cell, n), 1, 1};
    plan.gridParameter = {N, -1, -1};
    plan.block = {cell.threads, 1, 1};
    if (full) {
        const std::string ctas = str(plan.grid.x) + " CTAs (" + str(device.smCount) + " SMs)";
        if (cell.small) {
            const bucket::ColumnStrip widest = bucket::columnStrip(0, bucket::kGridCap, static_cast<int>(plan.workTiles));
            const bucket::ColumnStrip narrowest =
                bucket::columnStrip(bucket::kGridCap - 1, bucket::kGridCap, static_cast<int>(plan.workTiles));
            plan.note = "N/8 = " + str(plan.workTiles) + " column tiles spread over " + ctas + ", " + str(narrowest.count) +
                        (widest.count != narrowest.count ? " or " + str(widest.count) : std::string()) + " per CTA; " + stageText(cell);
        } else {
            plan.note =
                (cell.swap ? "operands swapped: " : std::string()) + str(plan.workTiles) + " tiles of " +
                (cell.swap ? "128 weight rows x " + str(cell.blockN) + " tokens" : "128 tokens x " + str(cell.blockN) + " weight rows") +
                " on " + ctas + "; " + stageText(cell);
        }
    }
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

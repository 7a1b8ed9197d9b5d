#include "kernels/runtime/family_inputs.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "kernels/attention/params.h"
#include "kernels/attention/plan.h"
#include "kernels/attention/reference.h"
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/awq_gemm/reference.h"
#include "kernels/awq_gemv/params.h"
#include "kernels/awq_gemv/plan.h"
#include "kernels/awq_gemv/reference.h"
#include "kernels/common/float16.h"
#include "kernels/common/reference_check.h"
#include "kernels/gemm_bucket/params.h"
#include "kernels/gemm_bucket/plan.h"
#include "kernels/gemm_bucket/reference.h"

namespace tilescope {

namespace {

// Multiply-adds the float64 reference may spend on one check (a few seconds on one core).
constexpr double kReferenceBudget = 2.0e8;

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (m_ptr) cudaFree(m_ptr);
    }
    Result<void> allocate(std::size_t bytes, const char* what) {
        if (cudaError_t e = cudaMalloc(&m_ptr, std::max<std::size_t>(bytes, 1)); e != cudaSuccess) {
            m_ptr = nullptr;
            cudaGetLastError();
            return makeError(std::string("cudaMalloc(") + std::to_string(bytes) + " B) for " + what + ": " + cudaGetErrorName(e) +
                             ": " + cudaGetErrorString(e));
        }
        m_bytes = bytes;
        return {};
    }
    template <typename T>
    Result<void> upload(const std::vector<T>& host, const char* what) {
        if (auto r = allocate(host.size() * sizeof(T), what); !r) return r;
        if (cudaError_t e = cudaMemcpy(m_ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice); e != cudaSuccess)
            return makeError(std::string("cudaMemcpy to ") + what + ": " + cudaGetErrorString(e));
        return {};
    }
    template <typename T>
    Result<std::vector<T>> download(std::size_t offsetElements, std::size_t count) const {
        std::vector<T> host(count);
        if (cudaError_t e = cudaMemcpy(host.data(), static_cast<const T*>(m_ptr) + offsetElements, count * sizeof(T),
                                       cudaMemcpyDeviceToHost);
            e != cudaSuccess)
            return makeError(std::string("cudaMemcpy of the output: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
        return host;
    }
    void* get() const { return m_ptr; }

private:
    void* m_ptr = nullptr;
    std::size_t m_bytes = 0;
};

std::int64_t rowsWithinBudget(std::int64_t rows, double costPerRow) {
    const auto affordable = static_cast<std::int64_t>(kReferenceBudget / std::max(costPerRow, 1.0));
    return std::clamp<std::int64_t>(affordable, 1, std::max<std::int64_t>(rows, 1));
}

std::string rowsText(std::int64_t checked, std::int64_t rows) {
    return checked >= rows ? "all " + std::to_string(rows) + " rows" : "rows 0.." + std::to_string(checked - 1) + " of " + std::to_string(rows);
}

std::vector<float> firstRows(const std::vector<float>& values, std::int64_t rows, std::int64_t width) {
    return {values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rows * width)};
}

std::vector<float> halfToFloat(const std::vector<std::uint16_t>& bits, bool bf16) {
    std::vector<float> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = bf16 ? bf16BitsToFloat(bits[i]) : halfBitsToFloat(bits[i]);
    return out;
}

std::vector<std::uint16_t> toBits(const std::vector<float>& values, bool bf16) {
    std::vector<std::uint16_t> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = bf16 ? floatToBf16Bits(values[i]) : floatToHalfBits(values[i]);
    return out;
}

// ---- awq_gemv / awq_gemm -----------------------------------------------------------------
class AwqInputs final : public LaunchInputs {
public:
    Result<void> prepare(bool gemm, int variant, const LaunchPlan& plan, std::uint64_t seed, bool withReference) {
        m_gemm = gemm;
        const Shape& s = plan.shape;
        m_m = s[0];
        m_n = s[1];
        const std::int64_t k = s[2], g = s[3];
        m_problem = awq::randomGemvProblem(m_m, m_n, k, g, seed);
        m_checkRows = withReference ? rowsWithinBudget(m_m, static_cast<double>(m_n * k)) : 0;
        if (auto r = m_input.upload(awq::toHalfBits(m_problem.input), "activations"); !r) return r;
        if (!gemm && variant == AwqGemvFamily::Gemv) {
            const awq::GemvPacked packed = awq::packGemv(m_problem.weights);
            if (auto r = m_qweight.upload(packed.qweight, "qweight"); !r) return r;
            if (auto r = m_qzeros.upload(packed.qzeros, "qzeros"); !r) return r;
            if (auto r = m_scales.upload(packed.scales, "scales"); !r) return r;
        } else if (!gemm) {
            const awq::GemvFastPacked packed = awq::packGemvFast(m_problem.weights);
            if (auto r = m_qweight.upload(packed.qweight, "qweight"); !r) return r;
            if (auto r = m_qzeros.upload(packed.scaledZeros, "scaled zeros"); !r) return r;
            if (auto r = m_scales.upload(packed.scales, "scales"); !r) return r;
        } else if (variant != AwqGemmFamily::Prefill) {
            const awq::GemmPacked packed = awq::packGemm(m_problem.weights);
            if (auto r = m_qweight.upload(packed.qweight, "qweight"); !r) return r;
            if (auto r = m_qzeros.upload(packed.qzeros, "qzeros"); !r) return r;
            if (auto r = m_scales.upload(packed.scales, "scales"); !r) return r;
        } else {  // AutoAWQ runs the prefill kernel on gemv_fast checkpoints
            const awq::GemvFastPacked packed = awq::packGemvFast(m_problem.weights);
            if (auto r = m_qweight.upload(packed.qweight, "qweight"); !r) return r;
            if (auto r = m_qzeros.upload(packed.scaledZeros, "scaled zeros"); !r) return r;
            if (auto r = m_scales.upload(packed.scales, "scales"); !r) return r;
            // Split-k semaphores, one per (M tile, ceil(N/128) N tile): zero once; the last split resets them.
            const auto& bucket = AwqGemmFamily::prefillBuckets()[static_cast<std::size_t>(plan.tileIndex)];
            const std::int64_t tiles = (m_m + bucket.ctaM - 1) / bucket.ctaM * ((m_n + bucket.ctaN - 1) / bucket.ctaN);
            if (auto r = m_semaphores.upload(std::vector<std::int32_t>(static_cast<std::size_t>(tiles), 0), "semaphores"); !r) return r;
        }
        // Partial sums [split_k, M, N] for gemm and legacy_grid_y; prefill reduces in place into [M, N].
        m_splitK = gemm && variant != AwqGemmFamily::Prefill ? plan.splitK : 1;
        if (auto r = m_output.allocate(static_cast<std::size_t>(m_splitK * m_m * m_n) * 2, "output"); !r) return r;
        if (gemm) {
            m_gemmParams = {m_input.get(), m_qweight.get(), m_qzeros.get(), m_scales.get(), m_output.get(),
                            static_cast<int>(m_m), static_cast<int>(m_n), static_cast<int>(k), static_cast<int>(g), m_splitK,
                            static_cast<int>(plan.dynamicSmem), static_cast<int*>(m_semaphores.get())};
            if (variant == AwqGemmFamily::Prefill) m_gemmParams.splitK = plan.splitK;
        } else {
            m_gemvParams = {m_input.get(), m_qweight.get(), m_qzeros.get(), m_scales.get(), m_output.get(),
                            static_cast<int>(m_m), static_cast<int>(m_n), static_cast<int>(k), static_cast<int>(g)};
        }
        return {};
    }
    void* parameterBlock() override { return m_gemm ? static_cast<void*>(&m_gemmParams) : static_cast<void*>(&m_gemvParams); }
    Result<ReferenceCheck> check() override {
        const std::int64_t rows = m_checkRows;
        std::vector<std::uint16_t> partials;
        for (int split = 0; split < m_splitK; ++split) {
            auto part = m_output.download<std::uint16_t>(static_cast<std::size_t>(split * m_m * m_n), static_cast<std::size_t>(rows * m_n));
            if (!part) return makeError(part.error());
            partials.insert(partials.end(), part->begin(), part->end());
        }
        const std::vector<float> out = awq::sumSplitK(partials, m_splitK, rows, m_n);
        awq::GemvProblem sub{rows, firstRows(m_problem.input, rows, m_problem.weights.k), m_problem.weights};
        return compareWithReference(awq::gemvReference(sub), out, kFp16RelativeErrorBound);
    }
    std::string checkedRows() const override { return rowsText(m_checkRows, m_m); }

private:
    bool m_gemm = false;
    std::int64_t m_m = 0, m_n = 0, m_checkRows = 0;
    int m_splitK = 1;
    awq::GemvProblem m_problem;
    DeviceBuffer m_input, m_qweight, m_qzeros, m_scales, m_output, m_semaphores;
    AwqGemvParams m_gemvParams{};
    AwqGemmParams m_gemmParams{};
};

// ---- attention ------------------------------------------------------------------------------
class AttentionInputs final : public LaunchInputs {
public:
    Result<void> prepare(const LaunchPlan& plan, bool bf16, std::uint64_t seed, bool withReference) {
        using P = AttentionFamily::Parameter;
        const Shape& s = plan.shape;
        m_bf16 = bf16;
        m_problem = attention::randomProblem(static_cast<int>(s[P::Batch]), static_cast<int>(s[P::SeqlenQ]), static_cast<int>(s[P::SeqlenK]),
                                             static_cast<int>(s[P::Heads]), static_cast<int>(s[P::HeadDim]), static_cast<int>(s[P::HeadDimV]),
                                             s[P::Causal] != 0, bf16, seed);
        const auto& p = m_problem;
        if (auto r = m_q.upload(toBits(p.q, bf16), "q"); !r) return r;
        if (auto r = m_k.upload(toBits(p.k, bf16), "k"); !r) return r;
        if (auto r = m_v.upload(toBits(p.v, bf16), "v"); !r) return r;
        const std::size_t outElements = static_cast<std::size_t>(p.batch) * p.seqlenQ * p.heads * p.headDimV;
        if (auto r = m_o.allocate(outElements * 2, "o"); !r) return r;
        if (auto r = m_lse.allocate(static_cast<std::size_t>(p.batch) * p.heads * p.seqlenQ * sizeof(float), "lse"); !r) return r;
        m_params = {m_q.get(), m_k.get(), m_v.get(), m_o.get(), static_cast<float*>(m_lse.get()), p.batch, p.seqlenQ, p.seqlenK,
                    p.heads, p.headDim, p.headDimV, p.causal ? 1 : 0, p.softmaxScale, nullptr, nullptr, 0, 0};
        if (plan.splitK > 1) {  // split-KV: fp32 partial O and LSE per split, which the combine reads
            const std::size_t rows = static_cast<std::size_t>(plan.splitK) * p.batch * p.heads * p.seqlenQ;
            const int rounded = static_cast<int>(attention::headDimRounded(p.headDim));
            if (auto r = m_oAccum.allocate(rows * static_cast<std::size_t>(rounded) * sizeof(float), "out_accum"); !r) return r;
            if (auto r = m_lseAccum.allocate(rows * sizeof(float), "softmax_lse_accum"); !r) return r;
            m_params.oAccum = static_cast<float*>(m_oAccum.get());
            m_params.lseAccum = static_cast<float*>(m_lseAccum.get());
            m_params.numSplits = plan.splitK;
            m_params.headDimRounded = rounded;
        }
        // Batch 0's head 0 and the last batch's last head: split-KV puts batch * heads on grid.z.
        m_heads = {{0, 0}};
        if (p.batch > 1 || p.heads > 1) m_heads.push_back({p.batch - 1, p.heads - 1});
        m_checkRows = withReference ? rowsWithinBudget(p.seqlenQ, static_cast<double>(p.seqlenK) * (p.headDim + p.headDimV) *
                                                                      static_cast<double>(m_heads.size()))
                                    : 0;
        return {};
    }
    void* parameterBlock() override { return &m_params; }
    Result<ReferenceCheck> check() override {
        // The first m_checkRows query rows of each checked (batch, head) (masks still use the full seqlen_q).
        const auto& p = m_problem;
        std::vector<double> expected;
        std::vector<float> actual;
        for (const auto& [b, h] : m_heads) {
            attention::Problem sub = p;
            sub.batch = 1;
            sub.heads = 1;
            auto slice = [&](const std::vector<float>& all, int seq, int dim) {
                std::vector<float> out(static_cast<std::size_t>(seq) * dim);
                for (int i = 0; i < seq; ++i)
                    for (int d = 0; d < dim; ++d)
                        out[static_cast<std::size_t>(i) * dim + d] =
                            all[((static_cast<std::size_t>(b) * seq + i) * p.heads + h) * dim + d];
                return out;
            };
            sub.q = slice(p.q, p.seqlenQ, p.headDim);
            sub.k = slice(p.k, p.seqlenK, p.headDim);
            sub.v = slice(p.v, p.seqlenK, p.headDimV);
            const attention::Result ref = attention::reference(sub, static_cast<int>(m_checkRows));
            for (std::int64_t i = 0; i < m_checkRows; ++i) {
                const std::size_t offset = ((static_cast<std::size_t>(b) * p.seqlenQ + i) * p.heads + h) * p.headDimV;
                auto row = m_o.download<std::uint16_t>(offset, static_cast<std::size_t>(p.headDimV));
                if (!row) return makeError(row.error());
                const std::vector<float> values = halfToFloat(*row, m_bf16);
                actual.insert(actual.end(), values.begin(), values.end());
                expected.insert(expected.end(), ref.o.begin() + i * p.headDimV, ref.o.begin() + (i + 1) * p.headDimV);
            }
        }
        return compareWithReference(expected, actual, m_bf16 ? kBf16RelativeErrorBound : kFp16RelativeErrorBound);
    }
    std::string checkedRows() const override {
        std::string heads = "batch 0, head 0";
        if (m_heads.size() > 1)
            heads += " and batch " + std::to_string(m_heads[1].first) + ", head " + std::to_string(m_heads[1].second);
        return rowsText(m_checkRows, m_problem.seqlenQ) + " of " + heads;
    }

private:
    bool m_bf16 = false;
    std::int64_t m_checkRows = 0;
    attention::Problem m_problem;
    std::vector<std::pair<int, int>> m_heads;  // (batch, head) pairs the check compares
    DeviceBuffer m_q, m_k, m_v, m_o, m_lse, m_oAccum, m_lseAccum;
    AttentionParams m_params{};
};

// ---- gemm_bucket ----------------------------------------------------------------------------
// Only rows < M are outputs (the kernels store no padding rows, as upstream slices out[:M]). When
// the reference cannot afford every row it checks the first and the last rows: the first and the
// last M tile, and the ragged edge at M.
class BucketInputs final : public LaunchInputs {
public:
    Result<void> prepare(const LaunchPlan& plan, std::uint64_t seed, bool withReference) {
        const Shape& s = plan.shape;
        const std::int64_t cell = plan.bucketCell.value_or(s[0]);
        m_problem = bucket::randomProblem(s[0], s[1], s[2], cell, seed);
        const std::int64_t budgetRows = withReference ? rowsWithinBudget(s[0], static_cast<double>(s[1] * s[2])) : 0;
        m_headRows = budgetRows >= s[0] ? budgetRows : (budgetRows + 1) / 2;
        m_tailRows = budgetRows >= s[0] ? 0 : budgetRows - m_headRows;
        if (auto r = m_x.upload(toBits(m_problem.x, true), "x"); !r) return r;
        if (auto r = m_w.upload(toBits(m_problem.w, true), "w"); !r) return r;
        if (auto r = m_out.allocate(static_cast<std::size_t>(cell * s[1]) * 2, "out"); !r) return r;
        m_params = {m_x.get(), m_w.get(), m_out.get(), static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]),
                    static_cast<int>(cell), static_cast<int>(plan.dynamicSmem)};
        return {};
    }
    void* parameterBlock() override { return &m_params; }
    Result<ReferenceCheck> check() override {
        const std::int64_t m = m_problem.m, n = m_problem.n, k = m_problem.k;
        bucket::Problem sub = m_problem;
        sub.m = sub.cell = m_headRows + m_tailRows;
        sub.x.clear();
        auto out = m_out.download<std::uint16_t>(0, static_cast<std::size_t>(m * n));
        if (!out) return makeError(out.error());
        std::vector<std::uint16_t> checked;
        for (std::int64_t i = 0; i < sub.m; ++i) {
            const std::int64_t row = i < m_headRows ? i : m - m_tailRows + (i - m_headRows);
            sub.x.insert(sub.x.end(), m_problem.x.begin() + static_cast<std::ptrdiff_t>(row * k),
                         m_problem.x.begin() + static_cast<std::ptrdiff_t>((row + 1) * k));
            checked.insert(checked.end(), out->begin() + static_cast<std::ptrdiff_t>(row * n),
                           out->begin() + static_cast<std::ptrdiff_t>((row + 1) * n));
        }
        return compareWithReference(bucket::reference(sub), halfToFloat(checked, true), kBf16RelativeErrorBound);
    }
    std::string checkedRows() const override {
        const std::int64_t m = m_problem.m;
        if (m_tailRows == 0) return rowsText(m_headRows, m);
        return "rows 0.." + std::to_string(m_headRows - 1) + " and " + std::to_string(m - m_tailRows) + ".." +
               std::to_string(m - 1) + " of " + std::to_string(m);
    }

private:
    std::int64_t m_headRows = 0, m_tailRows = 0;
    bucket::Problem m_problem;
    DeviceBuffer m_x, m_w, m_out;
    GemmBucketParams m_params{};
};

}  // namespace

Result<std::unique_ptr<LaunchInputs>> prepareInputs(const KernelChoice& kernel, const LaunchPlan& plan, bool bf16,
                                                    std::uint64_t seed, bool withReference) {
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaError_t e = cudaMemGetInfo(&freeBytes, &totalBytes); e != cudaSuccess)
        return makeError(std::string("cudaMemGetInfo: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
    if (plan.deviceMemoryBytes > static_cast<std::int64_t>(freeBytes))
        return makeError("out of memory: the buffers need " + std::to_string(plan.deviceMemoryBytes) + " B, the GPU has " +
                         std::to_string(freeBytes) + " B free; nothing was allocated");
    const std::string_view family = kernel.family->name();
    if (family == "awq_gemv" || family == "awq_gemm") {
        auto inputs = std::make_unique<AwqInputs>();
        if (auto r = inputs->prepare(family == "awq_gemm", kernel.variant, plan, seed, withReference); !r) return makeError(r.error());
        return std::unique_ptr<LaunchInputs>(std::move(inputs));
    }
    if (family == "attention") {
        auto inputs = std::make_unique<AttentionInputs>();
        if (auto r = inputs->prepare(plan, bf16, seed, withReference); !r) return makeError(r.error());
        return std::unique_ptr<LaunchInputs>(std::move(inputs));
    }
    if (family == "gemm_bucket") {
        auto inputs = std::make_unique<BucketInputs>();
        if (auto r = inputs->prepare(plan, seed, withReference); !r) return makeError(r.error());
        return std::unique_ptr<LaunchInputs>(std::move(inputs));
    }
    return makeError("no GPU launcher for kernel family " + std::string(family));
}

}  // namespace tilescope

// The launch inputs of the two AWQ families (awq_gemv, awq_gemm): one quantised problem packed the
// way the variant's checkpoint is, and the fp16 check of its output (split-K partials summed).
#include "kernels/awq_gemm/params.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/awq_gemm/reference.h"
#include "kernels/awq_gemv/params.h"
#include "kernels/awq_gemv/plan.h"
#include "kernels/awq_gemv/reference.h"
#include "kernels/common/reference_check.h"
#include "kernels/runtime/cublas_library.h"
#include "kernels/runtime/family_inputs.h"
#include "kernels/runtime/inputs_support.h"

namespace tilescope {

namespace {

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
        // autoawq / vllm from their threshold: the dequantize kernel writes W [K, N] fp16, cuBLAS reads it.
        m_k = k;
        if (gemm && !plan.extraLaunches.empty())
            if (auto r = m_dequantized.allocate(static_cast<std::size_t>(k * m_n) * 2, "dequantized weight"); !r) return r;
        if (gemm) {
            m_gemmParams = {m_input.get(),
                            m_qweight.get(),
                            m_qzeros.get(),
                            m_scales.get(),
                            m_output.get(),
                            static_cast<int>(m_m),
                            static_cast<int>(m_n),
                            static_cast<int>(k),
                            static_cast<int>(g),
                            m_splitK,
                            static_cast<int>(plan.dynamicSmem),
                            static_cast<int*>(m_semaphores.get()),
                            m_dequantized.get()};
            if (variant == AwqGemmFamily::Prefill) m_gemmParams.splitK = plan.splitK;
        } else {
            m_gemvParams = {m_input.get(),         m_qweight.get(),       m_qzeros.get(),      m_scales.get(),     m_output.get(),
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
    // torch.matmul(x, W) after the dequantize kernel: cuBLAS's fp16 GEMM (cublas_library.h).
    Result<void> launchLibrary(const ExtraLaunch& launch) override {
        if (launch.library != AwqGemmFamily::kGemmLibrary || !m_dequantized.get()) return LaunchInputs::launchLibrary(launch);
        auto session = cublasSession();
        if (!session) return makeError(session.error());
        return cublasHalfGemm(**session, m_input.get(), m_dequantized.get(), m_output.get(), static_cast<int>(m_m), static_cast<int>(m_n),
                              static_cast<int>(m_k));
    }

private:
    bool m_gemm = false;
    std::int64_t m_m = 0, m_n = 0, m_k = 0, m_checkRows = 0;
    int m_splitK = 1;
    awq::GemvProblem m_problem;
    DeviceBuffer m_input, m_qweight, m_qzeros, m_scales, m_output, m_semaphores, m_dequantized;
    AwqGemvParams m_gemvParams{};
    AwqGemmParams m_gemmParams{};
};

Result<std::unique_ptr<LaunchInputs>> prepareAwqInputs(bool gemm, const KernelChoice& kernel, const LaunchPlan& plan, std::uint64_t seed,
                                                       bool withReference) {
    auto inputs = std::make_unique<AwqInputs>();
    if (auto r = inputs->prepare(gemm, kernel.variant, plan, seed, withReference); !r) return makeError(r.error());
    return std::unique_ptr<LaunchInputs>(std::move(inputs));
}

}  // namespace

Result<std::unique_ptr<LaunchInputs>> prepareAwqGemvInputs(const KernelChoice& kernel, const LaunchPlan& plan, bool /*bf16*/,
                                                           std::uint64_t seed, bool withReference) {
    return prepareAwqInputs(false, kernel, plan, seed, withReference);
}

Result<std::unique_ptr<LaunchInputs>> prepareAwqGemmInputs(const KernelChoice& kernel, const LaunchPlan& plan, bool /*bf16*/,
                                                           std::uint64_t seed, bool withReference) {
    return prepareAwqInputs(true, kernel, plan, seed, withReference);
}

}  // namespace tilescope

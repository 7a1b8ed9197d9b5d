// The launch inputs of gemm_bucket: bf16 X (M rows of a bucket cell) and W, and the check of the
// first and last rows against the float64 reference.
#include "kernels/common/reference_check.h"
#include "kernels/gemm_bucket/params.h"
#include "kernels/gemm_bucket/plan.h"
#include "kernels/gemm_bucket/reference.h"
#include "kernels/runtime/family_inputs.h"
#include "kernels/runtime/inputs_support.h"

namespace tilescope {

namespace {

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
        m_params = {m_x.get(),
                    m_w.get(),
                    m_out.get(),
                    static_cast<int>(s[0]),
                    static_cast<int>(s[1]),
                    static_cast<int>(s[2]),
                    static_cast<int>(cell),
                    static_cast<int>(plan.dynamicSmem)};
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
        return "rows 0.." + std::to_string(m_headRows - 1) + " and " + std::to_string(m - m_tailRows) + ".." + std::to_string(m - 1) +
               " of " + std::to_string(m);
    }

private:
    std::int64_t m_headRows = 0, m_tailRows = 0;
    bucket::Problem m_problem;
    DeviceBuffer m_x, m_w, m_out;
    GemmBucketParams m_params{};
};

}  // namespace

Result<std::unique_ptr<LaunchInputs>> prepareGemmBucketInputs(const KernelChoice& /*kernel*/, const LaunchPlan& plan, bool /*bf16*/,
                                                              std::uint64_t seed, bool withReference) {
    auto inputs = std::make_unique<BucketInputs>();
    if (auto r = inputs->prepare(plan, seed, withReference); !r) return makeError(r.error());
    return std::unique_ptr<LaunchInputs>(std::move(inputs));
}

}  // namespace tilescope

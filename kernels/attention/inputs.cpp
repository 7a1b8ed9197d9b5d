// The launch inputs of attention: random Q, K, V (fp16 or bf16), O and LSE, split-KV's fp32
// accumulators, and the check of two (batch, head) slices against the float64 reference.
#include <utility>

#include "kernels/attention/params.h"
#include "kernels/attention/plan.h"
#include "kernels/attention/reference.h"
#include "kernels/common/reference_check.h"
#include "kernels/runtime/family_inputs.h"
#include "kernels/runtime/inputs_support.h"

namespace tilescope {

namespace {

class AttentionInputs final : public LaunchInputs {
public:
    Result<void> prepare(const LaunchPlan& plan, bool bf16, std::uint64_t seed, bool withReference) {
        using P = AttentionFamily::Parameter;
        const Shape& s = plan.shape;
        m_bf16 = bf16;
        m_problem = attention::randomProblem(
            static_cast<int>(s[P::Batch]), static_cast<int>(s[P::SeqlenQ]), static_cast<int>(s[P::SeqlenK]), static_cast<int>(s[P::Heads]),
            static_cast<int>(s[P::HeadDim]), static_cast<int>(s[P::HeadDimV]), s[P::Causal] != 0, bf16, seed);
        const auto& p = m_problem;
        if (auto r = m_q.upload(toBits(p.q, bf16), "q"); !r) return r;
        if (auto r = m_k.upload(toBits(p.k, bf16), "k"); !r) return r;
        if (auto r = m_v.upload(toBits(p.v, bf16), "v"); !r) return r;
        const std::size_t outElements = static_cast<std::size_t>(p.batch) * p.seqlenQ * p.heads * p.headDimV;
        if (auto r = m_o.allocate(outElements * 2, "o"); !r) return r;
        if (auto r = m_lse.allocate(static_cast<std::size_t>(p.batch) * p.heads * p.seqlenQ * sizeof(float), "lse"); !r) return r;
        m_params = {m_q.get(),
                    m_k.get(),
                    m_v.get(),
                    m_o.get(),
                    static_cast<float*>(m_lse.get()),
                    p.batch,
                    p.seqlenQ,
                    p.seqlenK,
                    p.heads,
                    p.headDim,
                    p.headDimV,
                    p.causal ? 1 : 0,
                    p.softmaxScale,
                    nullptr,
                    nullptr,
                    0,
                    0};
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
        for (const auto& head : m_heads) {
            // Named copies, not a structured binding: the slice lambda captures them, which clang
            // before 16 (the asan build's compiler) does not allow for bindings.
            const int b = head.first;
            const int h = head.second;
            attention::Problem sub = p;
            sub.batch = 1;
            sub.heads = 1;
            auto slice = [&](const std::vector<float>& all, int seq, int dim) {
                std::vector<float> out(static_cast<std::size_t>(seq) * dim);
                for (int i = 0; i < seq; ++i)
                    for (int d = 0; d < dim; ++d)
                        out[static_cast<std::size_t>(i) * dim + d] = all[((static_cast<std::size_t>(b) * seq + i) * p.heads + h) * dim + d];
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
        if (m_heads.size() > 1) heads += " and batch " + std::to_string(m_heads[1].first) + ", head " + std::to_string(m_heads[1].second);
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

}  // namespace

Result<std::unique_ptr<LaunchInputs>> prepareAttentionInputs(const KernelChoice& /*kernel*/, const LaunchPlan& plan, bool bf16,
                                                             std::uint64_t seed, bool withReference) {
    auto inputs = std::make_unique<AttentionInputs>();
    if (auto r = inputs->prepare(plan, bf16, seed, withReference); !r) return makeError(r.error());
    return std::unique_ptr<LaunchInputs>(std::move(inputs));
}

}  // namespace tilescope

#include "kernels/awq_gemm/reference.h"

#include "kernels/common/float16.h"

namespace tilescope::awq {

std::vector<double> gemmReference(const GemmProblem& problem) { return linearReference(problem.input, problem.m, problem.weights); }

std::vector<float> sumSplitK(const std::vector<std::uint16_t>& partials, int splitK, std::int64_t m, std::int64_t n) {
    const std::size_t size = static_cast<std::size_t>(m * n);
    std::vector<float> out(size, 0.f);
    for (int s = 0; s < splitK; ++s)
        for (std::size_t i = 0; i < size && s * size + i < partials.size(); ++i) out[i] += halfBitsToFloat(partials[s * size + i]);
    return out;
}

}  // namespace tilescope::awq

#include "kernels/awq_gemv/reference.h"

namespace tilescope::awq {

namespace {
constexpr float kActivationAmplitude = 1.0f;
constexpr float kWeightAmplitude = 0.1f;  // typical trained-weight magnitude
}  // namespace

GemvProblem randomGemvProblem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t groupSize, std::uint64_t seed) {
    GemvProblem p;
    p.m = m;
    p.input = randomHalfValues(static_cast<std::size_t>(m * k), seed, kActivationAmplitude);
    p.weights = quantize(randomHalfValues(static_cast<std::size_t>(n * k), seed + 1, kWeightAmplitude), n, k, groupSize);
    return p;
}

std::vector<double> gemvReference(const GemvProblem& problem) { return linearReference(problem.input, problem.m, problem.weights); }

}  // namespace tilescope::awq

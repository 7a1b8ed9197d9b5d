// awq_gemv on the CPU: the packed inputs of each variant and the float64 output.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/awq_common/awq_quant.h"

namespace tilescope::awq {

// One GEMV problem: fp16 activations [M, K] and quantised weights [N, K] (random, from the seed).
struct GemvProblem {
    std::int64_t m = 0;
    std::vector<float> input;
    Quantized weights;
};
GemvProblem randomGemvProblem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t groupSize, std::uint64_t seed);
// out[M, N] in float64; the same for both variants (they differ in packing only).
std::vector<double> gemvReference(const GemvProblem& problem);

}  // namespace tilescope::awq

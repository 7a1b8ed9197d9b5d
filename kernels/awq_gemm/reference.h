// awq_gemm on the CPU: the float64 output and the split-k reduction the caller does upstream.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/awq_gemv/reference.h"

namespace tilescope::awq {

using GemmProblem = GemvProblem;  // the same activations and weights; only the packing differs
inline GemmProblem randomGemmProblem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t groupSize, std::uint64_t seed) {
    return randomGemvProblem(m, n, k, groupSize, seed);
}
std::vector<double> gemmReference(const GemmProblem& problem);
// Sums the kernel's [split_k, M, N] fp16 partials (upstream: out.sum(0)) into [M, N].
std::vector<float> sumSplitK(const std::vector<std::uint16_t>& partials, int splitK, std::int64_t m, std::int64_t n);

}  // namespace tilescope::awq

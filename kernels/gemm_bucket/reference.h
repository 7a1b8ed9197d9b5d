// gemm_bucket on the CPU: out[cell, N] = x[M, K] @ W[N, K]^T in float64 (padding rows are 0).
#pragma once

#include <cstdint>
#include <vector>

namespace tilescope::bucket {

struct Problem {
    std::int64_t m = 0, n = 0, k = 0, cell = 0;
    std::vector<float> x, w;  // bf16-representable values
};
Problem randomProblem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cell, std::uint64_t seed);
std::vector<double> reference(const Problem& problem);

}  // namespace tilescope::bucket

#include "kernels/gemm_bucket/reference.h"

#include <random>

#include "kernels/common/float16.h"

namespace tilescope::bucket {

Problem randomProblem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cell, std::uint64_t seed) {
    Problem p{m, n, k, cell, {}, {}};
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    auto fill = [&](std::vector<float>& values, std::int64_t count) {
        values.resize(static_cast<std::size_t>(count));
        for (auto& v : values) v = bf16BitsToFloat(floatToBf16Bits(uniform(engine)));
    };
    fill(p.x, m * k);
    fill(p.w, n * k);
    return p;
}

std::vector<double> reference(const Problem& p) {
    std::vector<double> out(static_cast<std::size_t>(p.cell * p.n), 0.0);
    for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) {
            double sum = 0.0;
            for (std::int64_t c = 0; c < p.k; ++c)
                sum += static_cast<double>(p.x[static_cast<std::size_t>(i * p.k + c)]) * p.w[static_cast<std::size_t>(j * p.k + c)];
            out[static_cast<std::size_t>(i * p.n + j)] = sum;
        }
    return out;
}

}  // namespace tilescope::bucket

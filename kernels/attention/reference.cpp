#include "kernels/attention/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/attention/attention_index.h"
#include "kernels/common/float16.h"

namespace tilescope::attention {

Problem randomProblem(int batch, int seqlenQ, int seqlenK, int heads, int headDim, int headDimV, bool causal, bool bf16,
                      std::uint64_t seed) {
    Problem p{batch, seqlenQ, seqlenK, heads, headDim, headDimV, causal, static_cast<float>(1.0 / std::sqrt(headDim)), {}, {}, {}};
    std::mt19937_64 engine(seed);
    std::normal_distribution<float> normal(0.f, 1.f);
    auto fill = [&](std::vector<float>& values, std::size_t count) {
        values.resize(count);
        for (auto& v : values)
            v = bf16 ? bf16BitsToFloat(floatToBf16Bits(normal(engine))) : halfBitsToFloat(floatToHalfBits(normal(engine)));
    };
    const auto b = static_cast<std::size_t>(batch), h = static_cast<std::size_t>(heads);
    fill(p.q, b * static_cast<std::size_t>(seqlenQ) * h * static_cast<std::size_t>(headDim));
    fill(p.k, b * static_cast<std::size_t>(seqlenK) * h * static_cast<std::size_t>(headDim));
    fill(p.v, b * static_cast<std::size_t>(seqlenK) * h * static_cast<std::size_t>(headDimV));
    return p;
}

Result reference(const Problem& p, int rowLimit) {
    const int rows = rowLimit >= 0 ? std::min(rowLimit, p.seqlenQ) : p.seqlenQ;
    Result r;
    const auto at = [](int b, int s, int seq, int h, int heads, int d, int dim) {
        return ((static_cast<std::size_t>(b) * seq + s) * heads + h) * dim + d;
    };
    r.o.assign(static_cast<std::size_t>(p.batch) * p.seqlenQ * p.heads * p.headDimV, 0.0);
    r.lse.assign(static_cast<std::size_t>(p.batch) * p.heads * p.seqlenQ, std::numeric_limits<double>::infinity());
    std::vector<double> scores(static_cast<std::size_t>(p.seqlenK));
    for (int b = 0; b < p.batch; ++b)
        for (int h = 0; h < p.heads; ++h)
            for (int i = 0; i < rows; ++i) {
                const long long last = std::min<long long>(lastVisibleKey(i, p.seqlenQ, p.seqlenK, p.causal), p.seqlenK - 1);
                if (last < 0) continue;
                double max = -std::numeric_limits<double>::infinity();
                for (int j = 0; j <= last; ++j) {
                    double dot = 0.0;
                    for (int d = 0; d < p.headDim; ++d)
                        dot += static_cast<double>(p.q[at(b, i, p.seqlenQ, h, p.heads, d, p.headDim)]) *
                               p.k[at(b, j, p.seqlenK, h, p.heads, d, p.headDim)];
                    scores[static_cast<std::size_t>(j)] = dot * p.softmaxScale;
                    max = std::max(max, scores[static_cast<std::size_t>(j)]);
                }
                double sum = 0.0;
                for (int j = 0; j <= last; ++j)
                    sum += (scores[static_cast<std::size_t>(j)] = std::exp(scores[static_cast<std::size_t>(j)] - max));
                for (int d = 0; d < p.headDimV; ++d) {
                    double acc = 0.0;
                    for (int j = 0; j <= last; ++j)
                        acc += scores[static_cast<std::size_t>(j)] * p.v[at(b, j, p.seqlenK, h, p.heads, d, p.headDimV)];
                    r.o[at(b, i, p.seqlenQ, h, p.heads, d, p.headDimV)] = acc / sum;
                }
                r.lse[(static_cast<std::size_t>(b) * p.heads + h) * p.seqlenQ + i] = max + std::log(sum);
            }
    return r;
}

}  // namespace tilescope::attention

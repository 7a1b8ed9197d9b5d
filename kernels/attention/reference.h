// attention on the CPU: softmax(Q K^T * scale, causal mask) V and the log-sum-exp, in float64.
#pragma once

#include <cstdint>
#include <vector>

namespace tilescope::attention {

struct Problem {
    int batch = 1, seqlenQ = 1, seqlenK = 1, heads = 1, headDim = 64, headDimV = 64;
    bool causal = false;
    float softmaxScale = 0.125f;
    std::vector<float> q, k, v;  // [b, s, h, d] values representable in the kernel's dtype
};
// Random inputs rounded to fp16 (bf16 = false) or bf16; scale 1/sqrt(head_dim).
Problem randomProblem(int batch, int seqlenQ, int seqlenK, int heads, int headDim, int headDimV, bool causal, bool bf16,
                      std::uint64_t seed);

struct Result {
    std::vector<double> o;    // [b, sq, h, dv]; rows with no visible key are 0
    std::vector<double> lse;  // [b, h, sq]; +inf for rows with no visible key
};
// rowLimit >= 0: only query rows below it (the rest stay 0 / +inf), to bound the cost on big shapes.
Result reference(const Problem& problem, int rowLimit = -1);

}  // namespace tilescope::attention

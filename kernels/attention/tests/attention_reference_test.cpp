// attention's float64 CPU reference (reference.h): softmax weights, the causal mask's alignment,
// rows with no visible key, and inputs representable in their dtype.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/attention/reference.h"
#include "kernels/common/float16.h"

namespace tilescope {
namespace {

TEST(AttentionReference, UniformScoresAverageTheValues) {
    attention::Problem p;
    p.seqlenQ = 1;
    p.seqlenK = 3;
    p.headDim = 1;
    p.headDimV = 1;
    p.softmaxScale = 1.f;
    p.q = {0.f};  // every score 0
    p.k = {1.f, 2.f, 3.f};
    p.v = {3.f, 6.f, 9.f};
    const attention::Result r = attention::reference(p);
    EXPECT_NEAR(r.o[0], 6.0, 1e-12);
    EXPECT_NEAR(r.lse[0], std::log(3.0), 1e-12);
}

TEST(AttentionReference, CausalMaskAlignsTheLastQueryWithTheLastKey) {
    attention::Problem p = attention::randomProblem(1, 2, 4, 1, 8, 8, true, false, 3);
    const attention::Result r = attention::reference(p);
    // Query 0 sees keys 0..2 (2 + 4 - 2 = last visible key 2), query 1 all four; compare with
    // the same problem cut to 3 keys, where query 0 sees every key.
    attention::Problem cut = p;
    cut.seqlenK = 3;
    cut.seqlenQ = 1;
    cut.causal = false;
    cut.q.resize(8);
    cut.k.resize(3 * 8);
    cut.v.resize(3 * 8);
    const attention::Result rc = attention::reference(cut);
    for (int d = 0; d < 8; ++d) EXPECT_NEAR(r.o[static_cast<std::size_t>(d)], rc.o[static_cast<std::size_t>(d)], 1e-12);
}

TEST(AttentionReference, RowsWithNoVisibleKeyAreZero) {
    attention::Problem p = attention::randomProblem(1, 4, 2, 1, 8, 8, true, true, 9);
    const attention::Result r = attention::reference(p);
    // seqlen_q 4 > seqlen_k 2: queries 0 and 1 see no key (last visible key -2, -1).
    for (int d = 0; d < 8; ++d) EXPECT_EQ(r.o[static_cast<std::size_t>(d)], 0.0);
    EXPECT_TRUE(std::isinf(r.lse[0]));
    EXPECT_FALSE(std::isinf(r.lse[2]));
}

TEST(AttentionReference, RandomInputsAreRepresentableInTheirDtype) {
    const attention::Problem p = attention::randomProblem(1, 4, 4, 2, 16, 16, false, true, 1);
    for (float v : p.q) EXPECT_EQ(bf16BitsToFloat(floatToBf16Bits(v)), v);
    EXPECT_FLOAT_EQ(p.softmaxScale, 0.25f);
}

}  // namespace
}  // namespace tilescope

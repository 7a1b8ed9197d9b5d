// The awq_gemv kernels' register maths on the CPU: the bit-trick dequantisers of awq_format.h
// exhaustively, and a lane-by-lane model of both kernels (the same index maths, fp16x2 operations
// rounded as the GPU rounds them) checked against the float64 reference at odd shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/awq_gemv/reference.h"
#include "kernels/awq_common/awq_format.h"
#include "kernels/awq_common/awq_quant.h"
#include "kernels/common/float16.h"
#include "kernels/common/reference_check.h"

namespace tilescope::awq {
namespace {

float lowHalf(unsigned h2) { return halfBitsToFloat(static_cast<std::uint16_t>(h2 & 0xffffu)); }
float highHalf(unsigned h2) { return halfBitsToFloat(static_cast<std::uint16_t>(h2 >> 16)); }
std::uint16_t toHalf(double v) { return floatToHalfBits(static_cast<float>(v)); }
unsigned pack(std::uint16_t lo, std::uint16_t hi) { return lo | (static_cast<unsigned>(hi) << 16); }

// fma.rn.f16x2 (and mul.rn.f16x2 as fma with 0): each lane's exact a*b + c rounded once to fp16 (half products are exact in double).
unsigned fma2(unsigned a, unsigned b, unsigned c) {
    return pack(toHalf(static_cast<double>(lowHalf(a)) * lowHalf(b) + lowHalf(c)),
                toHalf(static_cast<double>(highHalf(a)) * highHalf(b) + highHalf(c)));
}

// ---- the dequantisers, exhaustively ----

TEST(AwqGemvDequant, GemvPairIsTwoConsecutiveNibblesOverTheMagicNumber) {
    for (unsigned byte = 0; byte < 256; ++byte)
        for (int pair = 0; pair < 4; ++pair) {
            const unsigned word = (byte << (8 * pair)) | (0x5au << (8 * ((pair + 1) % 4)));  // noise in another byte
            const unsigned h = gemvPairMagic(word, pair);
            ASSERT_EQ(lowHalf(h), 1024.f + static_cast<float>(nibbleAt(word, 2 * pair))) << byte << " " << pair;
            ASSERT_EQ(highHalf(h), 1024.f + 16.f * static_cast<float>(nibbleAt(word, 2 * pair + 1))) << byte << " " << pair;
        }
}

TEST(AwqGemvDequant, GemvZeroBiasSubtractsTheZeroExactly) {
    EXPECT_EQ(lowHalf(kGemvPairUnit), 1.f);
    EXPECT_EQ(highHalf(kGemvPairUnit), 1.f / 16.f);
    for (unsigned z = 0; z < 16; ++z) {
        const unsigned bias = gemvZeroBias(z);
        ASSERT_EQ(lowHalf(bias), -(1024.f + static_cast<float>(z)));
        ASSERT_EQ(highHalf(bias), -(64.f + static_cast<float>(z)));
        for (unsigned byte = 0; byte < 256; ++byte) {
            const unsigned d = fma2(gemvPairMagic(byte, 0), kGemvPairUnit, bias);
            ASSERT_EQ(lowHalf(d), static_cast<float>(static_cast<int>(byte & 0xf) - static_cast<int>(z)));
            ASSERT_EQ(highHalf(d), static_cast<float>(static_cast<int>(byte >> 4) - static_cast<int>(z)));
        }
    }
}

TEST(AwqGemvDequant, FastPairIsNibblesBAndBPlus4) {
    const unsigned words[] = {0x76543210u, 0xfedcba98u, 0x0f1e2d3cu, 0xa5a5c3c3u};
    for (unsigned word : words)
        for (int b = 0; b < 4; ++b) {
            const unsigned h = fastPairMagic(word, b);
            const float unit = b % 2 == 0 ? 1.f : 16.f;
            EXPECT_EQ(lowHalf(h), 1024.f + unit * static_cast<float>(nibbleAt(word, b))) << std::hex << word << " " << b;
            EXPECT_EQ(highHalf(h), 1024.f + unit * static_cast<float>(nibbleAt(word, b + 4))) << std::hex << word << " " << b;
            const unsigned q = b % 2 == 0 ? fma2(h, kHalf2One, kHalf2Minus1024) : fma2(h, kHalf2Sixteenth, kHalf2Minus64);
            EXPECT_EQ(lowHalf(q), static_cast<float>(nibbleAt(word, b)));
            EXPECT_EQ(highHalf(q), static_cast<float>(nibbleAt(word, b + 4)));
        }
}

// A thread's 16 bytes are int16 [16 row + 8 c, +8) of a 64-k block: word j's pair b must be the
// activation pair 4b + j of the chunk, k = 32 c + 8b + 2j and +1, of row `row` (AutoAWQ pack_intweight).
TEST(AwqGemvDequant, FastPairMeetsItsActivationPair) {
    for (int row = 0; row < kFastInterleave; ++row)
        for (int c = 0; c < 2; ++c)
            for (int j = 0; j < 4; ++j)
                for (int b = 0; b < 4; ++b) {
                    const long long element = 16 * row + 8 * c + 2 * j;  // word j: this int16 (low) and the next
                    const FastWeight lo = fastWeightAt(element, b), hi = fastWeightAt(element + 1, b);
                    ASSERT_EQ(lo.row, row);
                    ASSERT_EQ(hi.row, row);
                    ASSERT_EQ(lo.k, kFastChunk * c + 2 * fastPairActivation(j, b)) << row << c << j << b;
                    ASSERT_EQ(hi.k, lo.k + 1);
                }
}

// ---- lane models of the kernels ----

// gemv: grid (1, N/4, 1), block (32, 4); lane l of row n's warp takes words span + 32 j + l (j < 4) of
// each 128-word span; its group's scale and zero are picked from the span's scale vector(s) and zero
// word(s) exactly as the kernel picks them (GemvLane::span).
std::vector<float> modelGemv(const GemvProblem& problem) {
    const Quantized& w = problem.weights;
    const GemvPacked packed = packGemv(w);
    const std::vector<std::uint16_t> x = toHalfBits(problem.input);
    const int k = static_cast<int>(w.k), g = static_cast<int>(w.groupSize), words = k / kNibblesPerWord;
    const int wordsPerGroup = g / kNibblesPerWord, groupsPerStep = 32 / wordsPerGroup;
    const int spanGroups = 4 * groupsPerStep, zeroWords = spanGroups / kNibblesPerWord;
    const long long zw = packed.zerosWidth;
    std::vector<float> out(static_cast<std::size_t>(w.n));
    for (long long n = 0; n < w.n; ++n) {
        float rowSum = 0.f;
        for (int lane = 0; lane < 32; ++lane) {
            const int laneGroup = lane / wordsPerGroup;
            float acc = 0.f;
            for (int span = 0, s = 0; span < words; span += 128, ++s) {
                // Every started span's scale vectors and zero words lie inside the row's zw columns.
                EXPECT_LE((s + 1) * spanGroups, zw * 8) << n << " " << span;
                EXPECT_LE((s + 1) * zeroWords, zw) << n << " " << span;
                unsigned sum2 = 0u;
                for (int j = 0; j < 4; ++j) {
                    const int word = span + 32 * j + lane;
                    if (word >= words) continue;  // the kernel reads zeros there: no contribution
                    const unsigned q = static_cast<unsigned>(packed.qweight[static_cast<std::size_t>(n * words + word)]);
                    // Scale: half laneGroup % 2 of span pair j (G=128) or 2 j + laneGroup / 2 (G=64).
                    const int pairIndex = groupsPerStep == 2 ? j : 2 * j + (laneGroup >= 2 ? 1 : 0);
                    const std::uint16_t sc =
                        packed.scales[static_cast<std::size_t>(n * zw * 8 + s * spanGroups + 2 * pairIndex + laneGroup % 2)];
                    // Zero: low nibble of byte j (G=128) or 2 (j % 2) of zero word j / 2 (G=64), shifted by 4 laneGroup.
                    const int zeroWord = zeroWords == 1 ? 0 : j / 2, zeroByte = zeroWords == 1 ? j : 2 * (j % 2);
                    const unsigned zeroBytes =
                        (static_cast<unsigned>(packed.qzeros[static_cast<std::size_t>(n * zw + s * zeroWords + zeroWord)]) >>
                         (4 * laneGroup)) &
                        0x0f0f0f0fu;
                    const unsigned z = (zeroBytes >> (8 * zeroByte)) & 0xffu;
                    const int group = word / wordsPerGroup;  // what the selection must have found
                    EXPECT_EQ(sc, w.scales[static_cast<std::size_t>(n * w.groups() + group)]) << n << " " << word;
                    EXPECT_EQ(z, w.zeros[static_cast<std::size_t>(n * w.groups() + group)]) << n << " " << word;
                    const unsigned bias = gemvZeroBias(z);
                    unsigned dot = 0u;
                    for (int pr = 0; pr < 4; ++pr) {
                        const std::size_t xi = static_cast<std::size_t>(word * 8 + 2 * pr);
                        const unsigned d = fma2(gemvPairMagic(q, pr), kGemvPairUnit, bias);
                        dot = fma2(d, pack(x[xi], x[xi + 1]), dot);
                    }
                    sum2 = fma2(dot, pack(sc, sc), sum2);
                }
                acc += lowHalf(sum2) + highHalf(sum2);
            }
            rowSum += acc;
        }
        out[static_cast<std::size_t>(n)] = halfBitsToFloat(floatToHalfBits(rowSum));
    }
    return out;
}

// gemv_fast: grid N/8, block 256; thread t: row (t/2)%4 of both row groups, chunk 64 (t/8) + 32 (t%2) per 2,048-k step.
std::vector<float> modelGemvFast(const GemvProblem& problem) {
    const Quantized& w = problem.weights;
    const GemvFastPacked packed = packGemvFast(w);
    const std::vector<std::uint16_t> x = toHalfBits(problem.input);
    const long long k = w.k, n = w.n, m = problem.m;
    std::vector<float> out(static_cast<std::size_t>(m * n), 0.f);
    for (long long block = 0; block < n / 8; ++block)
        for (int tid = 0; tid < 256; ++tid) {
            const int row = (tid / 2) % 4;
            const long long chunk0 = (tid / 8) * 64 + (tid % 2) * 32;
            for (int rg = 0; rg < 2; ++rg) {
                const long long rowGroup = block * 2 + rg, outN = rowGroup * 4 + row;
                for (long long b = 0; b < m; ++b) {
                    float acc = 0.f;
                    for (long long kc = chunk0, step = 0; kc < k; kc += 2048, ++step) {
                        const long long element = rowGroup * k + tid * 8 + step * 2048;
                        const long long group = kc / 128;
                        const std::uint16_t s = packed.scales[static_cast<std::size_t>(group * n + outN)];
                        const std::uint16_t sz = packed.scaledZeros[static_cast<std::size_t>(group * n + outN)];
                        unsigned dot = 0u;
                        for (int v = 0; v < 4; ++v)
                            for (int j = 0; j < 4; ++j) {
                                const unsigned word =
                                    static_cast<std::uint16_t>(packed.qweight[static_cast<std::size_t>(element + 2 * j)]) |
                                    (static_cast<unsigned>(
                                         static_cast<std::uint16_t>(packed.qweight[static_cast<std::size_t>(element + 2 * j + 1)]))
                                     << 16);
                                const unsigned magic = fastPairMagic(word, v);
                                const unsigned q =
                                    v % 2 == 0 ? fma2(magic, kHalf2One, kHalf2Minus1024) : fma2(magic, kHalf2Sixteenth, kHalf2Minus64);
                                const unsigned wq = fma2(q, pack(s, s), pack(sz, sz));
                                const std::size_t xi = static_cast<std::size_t>(b * k + kc + 2 * fastPairActivation(j, v));
                                dot = fma2(wq, pack(x[xi], x[xi + 1]), dot);
                            }
                        acc += lowHalf(dot) + highHalf(dot);
                    }
                    out[static_cast<std::size_t>(b * n + outN)] += acc;
                }
            }
        }
    for (float& v : out) v = halfBitsToFloat(floatToHalfBits(v));
    return out;
}

struct Case {
    long long m, n, k, g;
};

// Largest normwise error the lane model may show: a quarter of reference_check's fp16 bound (the
// output's own fp16 rounding is 2^-11 of it; the model shows at most about 1e-3).
constexpr double kModelBound = kFp16RelativeErrorBound / 4;

TEST(AwqGemvKernelModel, GemvMatchesTheReferenceAtOddShapes) {
    const Case cases[] = {
        {1, 8, 4096, 128},   // four full spans
        {1, 4, 14336, 128},  // fourteen spans, the long-K target shape
        {1, 4, 4160, 64},    // a partial span of 8 words, 65 groups of 64
        {1, 4, 96, 128},     // K below one group, most lanes idle
        {1, 8, 2080, 64},    // K % 1024 != 0
        {1, 4, 3072, 128},   // three spans, 24 groups
        {1, 4, 1184, 128},   // 148 words: a 20-word tail span, 10 groups
        {1, 4, 1056, 64},    // 132 words: a 4-word tail span, 17 groups of 64
    };
    for (const Case& c : cases) {
        const GemvProblem p = randomGemvProblem(c.m, c.n, c.k, c.g, 7 + static_cast<std::uint64_t>(c.k));
        const ReferenceCheck check = compareWithReference(gemvReference(p), modelGemv(p), kModelBound);
        EXPECT_TRUE(check.passed) << "N=" << c.n << " K=" << c.k << " G=" << c.g << ": " << check.maxRelativeError;
        RecordProperty("gemv_N" + std::to_string(c.n) + "_K" + std::to_string(c.k) + "_G" + std::to_string(c.g),
                       std::to_string(check.maxRelativeError));
    }
}

TEST(AwqGemvKernelModel, GemvFastMatchesTheReferenceAtOddShapes) {
    const Case cases[] = {
        {1, 16, 4096, 128}, {4, 8, 14336, 128}, {7, 16, 4096, 128}, {3, 8, 64, 128},  // one 64-k block: 8 of 256 threads work
        {2, 24, 4160, 128},                                                           // K % 2048 != 0 and a last group of 64
    };
    for (const Case& c : cases) {
        const GemvProblem p = randomGemvProblem(c.m, c.n, c.k, c.g, 11 + static_cast<std::uint64_t>(c.k));
        const ReferenceCheck check = compareWithReference(gemvReference(p), modelGemvFast(p), kModelBound);
        EXPECT_TRUE(check.passed) << "M=" << c.m << " N=" << c.n << " K=" << c.k << ": " << check.maxRelativeError;
        RecordProperty("gemv_fast_M" + std::to_string(c.m) + "_N" + std::to_string(c.n) + "_K" + std::to_string(c.k),
                       std::to_string(check.maxRelativeError));
    }
}

}  // namespace
}  // namespace tilescope::awq

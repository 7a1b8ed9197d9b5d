// The awq_gemm kernel's register dataflow replayed on the CPU with its own helpers (gemm_index.h,
// awq_format.h) and the PTX fragment layouts of mma.m16n8k16 and ldmatrix: every B register must hold
// the packed weight the reference dequantises, every A register the activation it names, and every
// accumulator element must land on the output column the store writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_common/awq_format.h"
#include "kernels/awq_common/awq_quant.h"
#include "kernels/common/float16.h"

namespace tilescope::awq {
namespace {

float lane(unsigned bits, int which) { return halfBitsToFloat(static_cast<std::uint16_t>(which ? bits >> 16 : bits & 0xffffu)); }

TEST(AwqGemmFragments, MagicHalvesAreExactNibblesAndZeros) {
    const unsigned words[] = {0x76543210u, 0xfedcba98u, 0x0f1e2d3cu, 0xffffffffu, 0u};
    for (unsigned w0 : words)
        for (unsigned w1 : words)
            for (int nibble = 0; nibble < kNibblesPerWord; ++nibble) {
                const unsigned pair = nibble < 4 ? pairLowNibbles(w0, w1) : pairHighNibbles(w0, w1);
                const unsigned h = magicHalves(pair, nibble % 4);
                EXPECT_EQ(lane(h, 0), 1024.f + static_cast<float>(nibbleAt(w0, nibble)));
                EXPECT_EQ(lane(h, 1), 1024.f + static_cast<float>(nibbleAt(w1, nibble)));
            }
    for (int z = 0; z < 16; ++z) {
        EXPECT_EQ(lane(magicZero(z), 0), 1024.f + static_cast<float>(z));
        EXPECT_EQ(lane(magicZero(z), 1), 1024.f + static_cast<float>(z));
    }
}

// One warp's 64 columns and two k16 steps, lane by lane, as gemmTile computes them.
TEST(AwqGemmFragments, EveryBRegisterHoldsItsDequantisedWeight) {
    const std::int64_t n = 128, k = 96, g = 32;  // a second warp slice and three groups
    const Quantized w = quantize(randomHalfValues(static_cast<std::size_t>(n * k), 7, 1.f), n, k, g);
    const GemmPacked packed = packGemm(w);
    const std::int64_t words = n / kNibblesPerWord;
    for (std::int64_t warpWord0 : {0, 8})
        for (std::int64_t kb = 0; kb < k; kb += 16)
            for (int j = 0; j < kNibblesPerWord; ++j) {
                float bMatrix[16][8];
                for (int laneId = 0; laneId < 32; ++laneId) {
                    const int lg = laneId / 4, lt = laneId % 4;
                    const std::int64_t wordColumn = warpWord0 + lg, group = kb / g;
                    unsigned b[4];
                    for (int r = 0; r < 4; ++r)
                        b[r] = static_cast<unsigned>(
                            packed.qweight[static_cast<std::size_t>((kb + gemmBRowOfRegister(lt, r)) * words + wordColumn)]);
                    const int nibble = gemmNibbleOfColumn(j);
                    const int z =
                        nibbleAt(static_cast<unsigned>(packed.qzeros[static_cast<std::size_t>(group * words + wordColumn)]), nibble);
                    const float s = halfBitsToFloat(packed.scales[static_cast<std::size_t>(group * n + wordColumn * 8 + j)]);
                    for (int reg = 0; reg < 2; ++reg) {
                        const unsigned pair =
                            nibble < 4 ? pairLowNibbles(b[2 * reg], b[2 * reg + 1]) : pairHighNibbles(b[2 * reg], b[2 * reg + 1]);
                        const unsigned h = magicHalves(pair, nibble % 4);
                        for (int half = 0; half < 2; ++half) {
                            const float q = lane(h, half) - lane(magicZero(z), half);  // hsub2: exact
                            // PTX B fragment: reg 0 = rows 2t, 2t+1; reg 1 = rows 2t+8, 2t+9; column g.
                            bMatrix[2 * lt + half + 8 * reg][lg] = halfBitsToFloat(floatToHalfBits(q * s));  // hmul2
                        }
                    }
                }
                for (int kk = 0; kk < 16; ++kk)
                    for (int c = 0; c < 8; ++c) {
                        const std::int64_t column = (warpWord0 + c) * kNibblesPerWord + j;  // fragment j, mma column c
                        const double expected = w.weight(column, kb + kk);
                        EXPECT_NEAR(bMatrix[kk][c], expected, std::abs(expected) * 1e-3 + 1e-6) << kb << " " << j << " " << c;
                    }
            }
}

// The kernel's shift-free dequantiser: prmt of byte n / 2 of both words, one lop3 with the even (0x6400,
// bits 0-3) or odd (0x5400, bits 4-7) magic; the zero word through the same path.
TEST(AwqGemmFragments, MagicPairsAreExactNibblesAndZeros) {
    EXPECT_EQ(bytePermute(0x33221100u, 0x77665544u, 0x3210u), 0x33221100u);
    EXPECT_EQ(bytePermute(0x33221100u, 0x77665544u, 0x7654u), 0x77665544u);
    EXPECT_EQ(bytePermute(0x33221100u, 0x77665544u, 0x5140u), 0x55114400u);
    for (int byte = 0; byte < 4; ++byte) {  // byte `byte` of a twice in the low lane, of b twice in the high lane
        const unsigned a = 0x11u * static_cast<unsigned>(byte), b = 0x44u + a;
        EXPECT_EQ(bytePermute(0x33221100u, 0x77665544u, gemmPairSelector(byte)), a * 0x0101u + b * 0x01010000u) << byte;
    }
    const unsigned words[] = {0x76543210u, 0xfedcba98u, 0x0f1e2d3cu, 0xffffffffu, 0u, 0x8a3c51f6u};
    for (unsigned w0 : words)
        for (unsigned w1 : words)
            for (int nibble = 0; nibble < kNibblesPerWord; ++nibble) {
                const float magic = nibble % 2 ? 64.f : 1024.f;
                const unsigned h = gemmMagicPair(w0, w1, nibble);
                EXPECT_EQ(lane(h, 0), magic + static_cast<float>(nibbleAt(w0, nibble))) << std::hex << w0 << " " << nibble;
                EXPECT_EQ(lane(h, 1), magic + static_cast<float>(nibbleAt(w1, nibble))) << std::hex << w1 << " " << nibble;
                const unsigned z = gemmMagicPair(w1, w1, nibble);  // the zero word's pair: both lanes alike
                EXPECT_EQ(lane(z, 0), magic + static_cast<float>(nibbleAt(w1, nibble)));
                EXPECT_EQ(lane(z, 1), lane(z, 0));
                // sub.f16x2 is exact: both operands and the difference are fp16 integers (or multiples of 1/16).
                const float diff = lane(h, 0) - lane(z, 0);
                EXPECT_EQ(halfBitsToFloat(floatToHalfBits(diff)), diff);
                EXPECT_EQ(diff, static_cast<float>(nibbleAt(w0, nibble) - nibbleAt(w1, nibble)));
            }
}

// The B cursor's group: chunk split + i * splitK is in group chunk / chunksPerGroup at every step.
TEST(AwqGemmFragments, AdvanceGroupFollowsTheSplitsChunks) {
    for (int splitK : {1, 2, 3, 7, 8, 9, 16})
        for (int chunksPerGroup : {1, 2, 3, 4, 5, 8, 128})
            for (int split = 0; split < splitK; ++split) {
                long long group = split / chunksPerGroup;
                int remainder = split % chunksPerGroup;
                for (long long i = 0; i < 300; ++i) {
                    const long long chunk = split + i * splitK;
                    ASSERT_EQ(group, chunk / chunksPerGroup) << splitK << " " << chunksPerGroup << " " << split << " " << i;
                    ASSERT_EQ(remainder, chunk % chunksPerGroup);
                    remainder = gemmAdvanceGroup(remainder, splitK, chunksPerGroup, &group);
                }
            }
}

// EveryBRegisterHoldsItsDequantisedWeight for the kernel's dequantiser: nibble n feeds fragment
// j = gemmColumnOfNibble(n), with the zero and scale of column j.
TEST(AwqGemmFragments, ShiftFreeBRegistersHoldTheirDequantisedWeights) {
    const std::int64_t n = 128, k = 96, g = 32;
    const Quantized w = quantize(randomHalfValues(static_cast<std::size_t>(n * k), 11, 1.f), n, k, g);
    const GemmPacked packed = packGemm(w);
    const std::int64_t words = n / kNibblesPerWord;
    for (std::int64_t warpWord0 : {0, 8})
        for (std::int64_t kb = 0; kb < k; kb += 16)
            for (int nibble = 0; nibble < kNibblesPerWord; ++nibble) {
                const int j = gemmColumnOfNibble(nibble);
                float bMatrix[16][8];
                for (int laneId = 0; laneId < 32; ++laneId) {
                    const int lg = laneId / 4, lt = laneId % 4;
                    const std::int64_t wordColumn = warpWord0 + lg, group = kb / g;
                    unsigned b[4];
                    for (int r = 0; r < 4; ++r)
                        b[r] = static_cast<unsigned>(
                            packed.qweight[static_cast<std::size_t>((kb + gemmBRowOfRegister(lt, r)) * words + wordColumn)]);
                    const unsigned zeros = static_cast<unsigned>(packed.qzeros[static_cast<std::size_t>(group * words + wordColumn)]);
                    const unsigned zero2 = gemmMagicPair(zeros, zeros, nibble);
                    const float s = halfBitsToFloat(packed.scales[static_cast<std::size_t>(group * n + wordColumn * 8 + j)]);
                    for (int reg = 0; reg < 2; ++reg) {
                        const unsigned h = gemmMagicPair(b[2 * reg], b[2 * reg + 1], nibble);
                        for (int half = 0; half < 2; ++half) {
                            const float q = lane(h, half) - lane(zero2, half);
                            bMatrix[2 * lt + half + 8 * reg][lg] = halfBitsToFloat(floatToHalfBits(q * s));
                        }
                    }
                }
                for (int kk = 0; kk < 16; ++kk)
                    for (int c = 0; c < 8; ++c) {
                        const std::int64_t column = (warpWord0 + c) * kNibblesPerWord + j;
                        const double expected = w.weight(column, kb + kk);
                        EXPECT_NEAR(bMatrix[kk][c], expected, std::abs(expected) * 1e-3 + 1e-6) << kb << " " << j << " " << c;
                    }
            }
}

TEST(AwqGemmFragments, AccumulatorsLandOnSixteenConsecutiveColumns) {
    for (int lg = 0; lg < 8; ++lg)
        for (int lt = 0; lt < 4; ++lt) {
            std::set<int> columns;
            for (int j = 0; j < 8; ++j)
                for (int e = 0; e < 4; ++e) {
                    // PTX C fragment: c0, c1 = row g, columns 2t, 2t+1; c2, c3 = row g+8.
                    const int mmaColumn = 2 * lt + e % 2;
                    EXPECT_EQ(gemmOutputColumn(lt, j, e), 8 * mmaColumn + j);
                    EXPECT_EQ(gemmOutputRow(lg, e), lg + (e / 2) * 8);
                    if (e < 2) columns.insert(gemmOutputColumn(lt, j, e));
                }
            EXPECT_EQ(columns.size(), 16u);
            EXPECT_EQ(*columns.begin(), 16 * lt);
            EXPECT_EQ(*columns.rbegin(), 16 * lt + 15);
        }
}

// The A ring: the cp.async copy's placement and ldmatrix's read (both swizzled) must hand lane (g, t)
// the mma A fragment: a0 = (g, 2t), a1 = (g+8, 2t), a2 = (g, 2t+8), a3 = (g+8, 2t+8) of each k16 step.
TEST(AwqGemmFragments, SwizzledARingFeedsLdmatrixTheMmaFragment) {
    for (int chunksPerRow : {2, 4}) {
        const int warpK = chunksPerRow * 8;
        std::vector<int> smem(static_cast<std::size_t>(16 * warpK), -1);  // holds row * 1000 + k
        for (int idx = 0; idx < 16 * chunksPerRow; ++idx) {
            const int r = idx / chunksPerRow, c = idx % chunksPerRow;
            for (int e = 0; e < 8; ++e)
                smem[static_cast<std::size_t>(r * warpK + swizzleChunk(r, c, chunksPerRow) * 8 + e)] = r * 1000 + c * 8 + e;
        }
        for (int v : smem) EXPECT_GE(v, 0);
        for (int step = 0; step < chunksPerRow / 2; ++step) {
            int rowStart[32];
            for (int l = 0; l < 32; ++l) {
                const int r = l % 16, c = step * 2 + l / 16;
                rowStart[l] = r * warpK + swizzleChunk(r, c, chunksPerRow) * 8;
            }
            for (int m = 0; m < 4; ++m) {  // bank groups of one matrix's 8 row addresses: all distinct
                std::set<int> groups;
                for (int i = 0; i < 8; ++i) groups.insert((rowStart[8 * m + i] * 2 / 16) % 8);
                EXPECT_EQ(groups.size(), 8u) << chunksPerRow << " " << m;
            }
            for (int l = 0; l < 32; ++l) {
                const int lg = l / 4, lt = l % 4;
                for (int m = 0; m < 4; ++m) {
                    const int value = smem[static_cast<std::size_t>(rowStart[8 * m + lg] + 2 * lt)];
                    EXPECT_EQ(value, (lg + 8 * (m % 2)) * 1000 + step * 16 + 8 * (m / 2) + 2 * lt) << l << " " << m;
                    EXPECT_EQ(smem[static_cast<std::size_t>(rowStart[8 * m + lg] + 2 * lt + 1)], value + 1);
                }
            }
        }
    }
}

}  // namespace
}  // namespace tilescope::awq

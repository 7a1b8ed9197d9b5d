// awq_gemm's index maths (gemm_index.h) on the CPU: the flat grid's block order, the swizzle, the
// split-K chunks, and the prefill kernel's stage ring, fragment rows and B-stage layout against the
// planner's prefill buckets.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "kernels/awq_common/awq_format.h"
#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/common/float16.h"

namespace tilescope {
namespace {

TEST(GemmIndex, FlatGridCoversEveryTileAndSplitOnce) {
    const long long mTiles = 3, nTiles = 5;
    const int splitK = 8;
    std::set<std::tuple<long long, long long, int>> seen;
    for (long long b = 0; b < mTiles * nTiles * splitK; ++b) {
        const awq::GemmBlock blk = awq::decodeGemmBlock(b, mTiles, nTiles);
        EXPECT_LT(blk.mTile, mTiles);
        EXPECT_LT(blk.nTile, nTiles);
        EXPECT_LT(blk.split, splitK);
        seen.insert({blk.mTile, blk.nTile, blk.split});
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(mTiles * nTiles * splitK));
}

// AutoAWQ_kernels awq_ext/quantization/gemm_cuda_gen.cu lines 42-43 (blockIdx_y = blockIdx.x % (M tiles *
// N tiles), blockIdx_z = blockIdx.x / (M tiles * N tiles)) with M tile = blockIdx_y / j_factors1 (line 61).
TEST(GemmIndex, FlatGridFollowsUpstreamsBlockOrder) {
    const awq::GemmBlock first = awq::decodeGemmBlock(1, 3, 5);
    EXPECT_EQ(first.nTile, 1);
    EXPECT_EQ(first.mTile, 0);
    EXPECT_EQ(first.split, 0);
    const awq::GemmBlock b = awq::decodeGemmBlock(2 * 15 + 7, 3, 5);
    EXPECT_EQ(b.split, 2);
    EXPECT_EQ(b.mTile, 1);
    EXPECT_EQ(b.nTile, 2);
}

TEST(GemmIndex, SwizzleIsAPermutationOfEachRowsChunks) {
    for (int chunksPerRow : {2, 4})
        for (int row = 0; row < 16; ++row) {
            std::set<int> chunks;
            for (int c = 0; c < chunksPerRow; ++c) chunks.insert(awq::swizzleChunk(row, c, chunksPerRow));
            EXPECT_EQ(chunks.size(), static_cast<std::size_t>(chunksPerRow));
            EXPECT_EQ(*chunks.rbegin(), chunksPerRow - 1);
        }
}

TEST(GemmIndex, SplitsShareTheKChunks) {
    for (long long chunks : {1LL, 7LL, 8LL, 128LL, 129LL}) {
        long long total = 0;
        for (int split = 0; split < 8; ++split) total += awq::chunksOfSplit(chunks, split, 8);
        EXPECT_EQ(total, chunks) << chunks;
    }
    EXPECT_EQ(awq::chunksOfSplit(3, 5, 8), 0);
}

// The prefill kernel keeps the planner's stages of A (CTA_M x CTA_K fp16) in the planner's dynamic smem,
// and the 8-warp buckets add their two K slices' sums up in the same memory afterwards.
TEST(GemmIndex, PrefillARingAndSliceSumFitEveryBucketsClaim) {
    for (const auto& b : AwqGemmFamily::prefillBuckets()) {
        EXPECT_LE(b.stages * b.ctaM * b.ctaK * 2, b.smemBytes) << b.name;
        const long long slices = b.warps / 4;
        EXPECT_EQ(b.ctaK / slices, 64) << b.name;  // every warp's K slice is one gemv_fast K block
        if (slices > 1) {
            EXPECT_LE(b.ctaM * b.ctaN * 4, b.smemBytes) << b.name;
        }
    }
}

TEST(GemmIndex, PrefillSplitsCoverEveryKTileOnce) {
    for (long long tiles : {1LL, 2LL, 3LL, 32LL, 33LL})
        for (int splitK : {1, 2}) {
            long long next = 0;
            for (int split = 0; split < splitK; ++split) {
                if (awq::prefillTilesOfSplit(tiles, split, splitK) == 0) continue;
                EXPECT_EQ(awq::prefillFirstTile(tiles, split, splitK), next);
                next += awq::prefillTilesOfSplit(tiles, split, splitK);
            }
            EXPECT_EQ(next, tiles) << tiles << " " << splitK;
        }
    EXPECT_EQ(awq::prefillFirstTile(32, 1, 2), 16);  // upstream: cta_offset_k = blockIdx_z * (K / SPLITK)
}

// Every weight of a gemv_fast-packed matrix is where the prefill kernel's lane reads it: lane t's word of
// row n's 32-wide half, nibble slot s of 16-bit lane h, is K row 8s + 2t + h of that half.
TEST(GemmIndex, PrefillWordsHoldTheLanesFragmentRows) {
    const long long n = 12, k = 256;
    for (long long row = 0; row < n; ++row)
        for (long long kBlock = 0; kBlock < k; kBlock += 64)
            for (int half = 0; half < 2; ++half)
                for (int t = 0; t < 4; ++t)
                    for (int slot = 0; slot < 4; ++slot)
                        for (int h = 0; h < 2; ++h) {
                            const long long kk = kBlock + half * 32 + awq::prefillRowOfSlot(t, slot, h);
                            const awq::FastLocation at = awq::fastLocation(row, kk, k);
                            EXPECT_EQ(at.element, 2 * awq::prefillWordOf(row, kBlock, half, t, k) + h) << row << " " << kk;
                            EXPECT_EQ(at.nibble, slot) << row << " " << kk;
                        }
}

// The prefill kernel's ring holds A, B and the group's scales and zeros per stage: the stages it keeps
// fit every bucket's claim (both 64-deep buckets share one instantiation: the smaller claim decides), and
// the 8-warp buckets' slice sums fit in the ring.
TEST(GemmIndex, PrefillStagesFitEveryBucketsClaim) {
    for (const auto& b : AwqGemmFamily::prefillBuckets()) {
        const int ctaM = static_cast<int>(b.ctaM), ctaK = static_cast<int>(b.ctaK);
        const int ring = awq::prefillRingStages(ctaK, static_cast<int>(b.stages));
        EXPECT_GE(ring, 2) << b.name;
        EXPECT_LE(ring * awq::prefillStageBytes(ctaM, ctaK), b.smemBytes) << b.name;
        if (b.warps / 4 > 1) {
            EXPECT_LE(b.ctaM * b.ctaN * 4, ring * awq::prefillStageBytes(ctaM, ctaK)) << b.name;
        }
        EXPECT_EQ(b.ctaN, 128) << b.name;
        EXPECT_EQ(128 % b.ctaK, 0) << b.name;  // G = 128: one group of scales per K tile
    }
    EXPECT_EQ(awq::prefillStageBytes(16, 128), 12800);
}

// B goes from [N/4, K] int16 into a stage in 16-byte chunks (row group g, chunk c at prefillBOffset), and a
// warp's ldmatrix.x4 of half h (lane 8f + g addresses column warpN*32 + 8f + g) gives lane (g, t) in
// register f exactly the word prefillWordOf names for column 8f + g of the warp, without bank conflicts.
TEST(GemmIndex, PrefillBStageGivesEveryLaneItsWords) {
    for (int ctaK : {64, 128}) {
        const long long k = 384, col0 = 256;
        const long long kTile = 128;  // the tile's first K (a multiple of ctaK)
        std::vector<long long> sourceOf(static_cast<std::size_t>(awq::kPrefillRowGroups * ctaK * 2), -1);
        for (int g = 0; g < awq::kPrefillRowGroups; ++g)
            for (int c = 0; c < ctaK / 8; ++c) {
                const int offset = awq::prefillBOffset(g, c, ctaK);
                ASSERT_GE(offset, 0);
                ASSERT_LT(offset + 16, static_cast<int>(sourceOf.size()) + 1);
                ASSERT_EQ(offset % 16, 0);
                EXPECT_EQ(sourceOf[static_cast<std::size_t>(offset)], -1) << "chunk written twice";
                sourceOf[static_cast<std::size_t>(offset)] = (col0 / 4 + g) * k + kTile + c * 8;  // int16 index
            }
        for (int warpN = 0; warpN < 4; ++warpN)
            for (int slice = 0; slice < ctaK / 64; ++slice)
                for (int half = 0; half < 2; ++half)
                    for (int f = 0; f < 4; ++f) {
                        std::set<int> bankGroups;
                        for (int g = 0; g < 8; ++g) {
                            const int column = warpN * 32 + 8 * f + g;  // the column lane 8f + g addresses
                            const int offset = awq::prefillBOffset(column / 4, awq::prefillBChunk(slice, column % 4, half), ctaK);
                            bankGroups.insert((offset / 16) % 8);
                            const long long source = sourceOf[static_cast<std::size_t>(offset)];
                            ASSERT_GE(source, 0);
                            for (int t = 0; t < 4; ++t)
                                EXPECT_EQ((source + 2 * t) / 2, awq::prefillWordOf(col0 + column, kTile + slice * 64, half, t, k))
                                    << ctaK << " " << column << " " << half << " " << t;
                        }
                        EXPECT_EQ(bankGroups.size(), 8u) << ctaK << " " << warpN << " " << f;
                    }
    }
}

// Every nibble slot of both 16-bit lanes of a word reads back exactly as magic + q after one and-or.
TEST(GemmIndex, PrefillSlotsReadEveryNibbleExactly) {
    for (unsigned word : {0x00000000u, 0xffffffffu, 0x12345678u, 0x89abcdefu, 0xf0e1d2c3u, 0x0f1e2d3cu})
        for (int slot = 0; slot < 4; ++slot) {
            const unsigned bits = (awq::prefillSlotLanes(word, slot) & awq::prefillSlotMask(slot)) | awq::prefillSlotMagic(slot);
            const float magic = halfBitsToFloat(static_cast<std::uint16_t>(awq::prefillSlotMagic(slot) & 0xffffu));
            for (int lane = 0; lane < 2; ++lane) {
                const float value = halfBitsToFloat(static_cast<std::uint16_t>(bits >> (16 * lane)));
                EXPECT_EQ(value - magic, static_cast<float>((word >> (16 * lane + 4 * slot)) & 0xfu)) << std::hex << word << " " << slot;
            }
        }
}

}  // namespace
}  // namespace tilescope

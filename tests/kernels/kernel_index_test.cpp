#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <tuple>

#include "core/device_spec.h"
#include "kernels/attention/attention_index.h"
#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/gemm_bucket/plan.h"

namespace tilescope {
namespace {

TEST(GemmIndex, FlatGridCoversEveryTileAndSplitOnce) {
    const long long mTiles = 3, nTiles = 5;
    const int splitK = 8;
    std::set<std::tuple<long long, long long, int>> seen;
    for (long long b = 0; b < mTiles * nTiles * splitK; ++b) {
        const awq::GemmBlock blk = awq::decodeGemmBlock(b, nTiles, splitK);
        EXPECT_LT(blk.mTile, mTiles);
        EXPECT_LT(blk.nTile, nTiles);
        seen.insert({blk.mTile, blk.nTile, blk.split});
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(mTiles * nTiles * splitK));
}

TEST(GemmIndex, SplitsShareTheKChunks) {
    for (long long chunks : {1LL, 7LL, 8LL, 128LL, 129LL}) {
        long long total = 0;
        for (int split = 0; split < 8; ++split) total += awq::chunksOfSplit(chunks, split, 8);
        EXPECT_EQ(total, chunks) << chunks;
    }
    EXPECT_EQ(awq::chunksOfSplit(3, 5, 8), 0);
}

// The prefill kernel's stage ring plus its dequantised slice must fit the planner's smem claim.
TEST(GemmIndex, PrefillStagesFitEveryBucketsClaim) {
    for (const auto& b : AwqGemmFamily::prefillBuckets()) {
        const long long stage = (b.ctaM * b.ctaK + b.ctaN * b.ctaK / 4) * 2;
        const long long slice = 16 * b.ctaN * 2;
        const int stages = awq::prefillStagesThatFit(b.smemBytes, stage, slice, static_cast<int>(b.stages));
        EXPECT_GE(stages, 1) << b.name;
        EXPECT_LE(stages, b.stages) << b.name;
        EXPECT_LE(stages * stage + slice, b.smemBytes) << b.name;
    }
    // Upstream's formula rows keep all their stages; the M > 192 row (50,176 B) keeps three.
    const auto& buckets = AwqGemmFamily::prefillBuckets();
    EXPECT_EQ(awq::prefillStagesThatFit(buckets[0].smemBytes, 12288, 4096, 4), 4);
    EXPECT_EQ(awq::prefillStagesThatFit(buckets[4].smemBytes, 12288, 4096, 4), 3);
}

// The kernels size their stage ring from the planner's claim: it must give the planner's stages.
TEST(BucketIndex, StageCountFromTheClaimEqualsThePlannersStages) {
    for (const auto& cell : GemmBucketFamily::cells()) {
        SCOPED_TRACE(cell.name);
        const long long stage = bucket::stageBytes(cell.stageWeightRows, cell.stageActivationRows) * cell.stageChunks;
        EXPECT_EQ(bucket::stagesThatFit(cell.smemBytes, stage), cell.stages);
        if (cell.small) continue;
        EXPECT_EQ(stage * cell.stages, cell.smemBytes);
        EXPECT_EQ(bucket::blockN(static_cast<int>(cell.rows)), cell.blockN);
        EXPECT_EQ(bucket::swapsOperands(static_cast<int>(cell.rows)), cell.swap);
    }
}

// Each of the 8 rows an ldmatrix phase reads (same logical chunk) lands in its own 16-byte bank
// group, and every row's 8 chunks stay a permutation of the row.
TEST(BucketIndex, SwizzleSpreadsEightRowsOverAllBankGroups) {
    for (int chunk = 0; chunk < 8; ++chunk)
        for (int firstRow : {0, 8, 16, 48, 120}) {
            std::set<int> groups;
            for (int r = firstRow; r < firstRow + 8; ++r) groups.insert((bucket::swizzledOffset(r, chunk) % 128) / 16);
            EXPECT_EQ(groups.size(), 8u) << chunk << " " << firstRow;
        }
    for (int r = 0; r < 16; ++r) {
        std::set<int> chunks;
        for (int c = 0; c < 8; ++c) {
            const int offset = bucket::swizzledOffset(r, c);
            EXPECT_EQ(offset / 128, r);
            chunks.insert(offset % 128 / 16);
        }
        EXPECT_EQ(chunks.size(), 8u);
    }
    EXPECT_EQ(bucket::swizzledOffset(3, 1), 3 * 128 + 2 * 16);  // 1 ^ 3 = 2
    EXPECT_EQ(bucket::swizzledOffset(9, 1), 9 * 128 + 0 * 16);  // 1 ^ (9 % 8) = 0
}

// gemm_ar.cuh Strip::make: N/8 tiles over the CTAs, contiguous, the first N/8 % CTAs one wider.
TEST(BucketIndex, ColumnStripsCoverEveryTileOnceAndEvenly) {
    for (int columnTiles : {896, 512, 32, 152, 153, 1024, 131072}) {
        int next = 0, widest = 0, narrowest = 1 << 30;
        for (int cta = 0; cta < bucket::kGridCap; ++cta) {
            const bucket::ColumnStrip s = bucket::columnStrip(cta, bucket::kGridCap, columnTiles);
            EXPECT_EQ(s.first, next) << columnTiles << " cta " << cta;
            next += s.count;
            widest = std::max(widest, s.count);
            narrowest = std::min(narrowest, s.count);
        }
        EXPECT_EQ(next, columnTiles);
        EXPECT_LE(widest - narrowest, 1) << columnTiles;
    }
    EXPECT_EQ(bucket::columnStrip(0, 152, 896).count, 6);    // 896 = 5 * 152 + 136
    EXPECT_EQ(bucket::columnStrip(135, 152, 896).count, 6);
    EXPECT_EQ(bucket::columnStrip(136, 152, 896).count, 5);
    EXPECT_EQ(bucket::columnStrip(136, 152, 896).first, 136 * 6);
    EXPECT_EQ(bucket::columnStrip(151, 152, 32).count, 0);   // N = 256: CTAs past tile 31 idle
}

// Launcher3 geometry per cell at N = 7168: 112 tiles for every cell >= 32.
TEST(BucketIndex, TileCountsFollowUpstreamsSwapRule) {
    const int cells[] = {32, 64, 128, 256, 512};
    const int padded[] = {32, 64, 128, 256, 512};
    const int bn[] = {16, 32, 64, 128, 256};
    const long long alongA[] = {56, 56, 1, 2, 4}, alongB[] = {2, 2, 112, 56, 28};
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(bucket::paddedRows(cells[i]), padded[i]);
        EXPECT_EQ(bucket::blockN(cells[i]), bn[i]);
        EXPECT_EQ(bucket::tilesAlongA(7168, cells[i]), alongA[i]);
        EXPECT_EQ(bucket::tilesAlongB(7168, cells[i]), alongB[i]);
        EXPECT_EQ(bucket::tileCount(7168, cells[i]), 112);
        EXPECT_EQ(bucket::gridFor(bucket::tileCount(7168, cells[i])), 112);
    }
    EXPECT_TRUE(bucket::swapsOperands(64));
    EXPECT_FALSE(bucket::swapsOperands(128));
    EXPECT_EQ(bucket::gridFor(256), 152);
}

// The tile raster visits every (A, B) tile exactly once, whatever the stripe remainder.
TEST(BucketIndex, TileRasterIsABijection) {
    for (auto [tilesA, tilesB] : {std::pair<long long, long long>{56, 2}, {1, 112}, {2, 56}, {4, 28}, {4, 16}, {3, 37}, {80, 2}}) {
        std::set<std::pair<long long, long long>> seen;
        for (long long t = 0; t < tilesA * tilesB; ++t) {
            const bucket::TileCoord c = bucket::tileCoordinates(t, tilesA, tilesB);
            EXPECT_GE(c.a, 0);
            EXPECT_LT(c.a, tilesA);
            EXPECT_GE(c.b, 0);
            EXPECT_LT(c.b, tilesB);
            seen.insert({c.a, c.b});
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(tilesA * tilesB)) << tilesA << " x " << tilesB;
    }
    // Swapped cells: consecutive tiles share a 128-row weight strip (B = the two token slots).
    EXPECT_EQ(bucket::tileCoordinates(0, 56, 2).a, 0);
    EXPECT_EQ(bucket::tileCoordinates(1, 56, 2).a, 0);
    EXPECT_EQ(bucket::tileCoordinates(1, 56, 2).b, 1);
    EXPECT_EQ(bucket::tileCoordinates(2, 56, 2).a, 1);
}

TEST(AttentionIndex, CausalKeyTiles) {
    using attention::keyTilesForBlock;
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, false), 16);
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, true), 2);      // rows 0..127 see keys 0..127
    EXPECT_EQ(keyTilesForBlock(896, 128, 64, 1024, 1024, true), 16);
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 100, 1000, true), 16);       // bottom-right: row 63 sees keys 0..963
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 1000, 100, true), 0);        // rows 0..63 see no key
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 50, 50, false), 1);
    EXPECT_EQ(attention::lastVisibleKey(5, 10, 10, true), 5);
    EXPECT_EQ(attention::lastVisibleKey(5, 10, 10, false), 9);
}

TEST(AttentionIndex, RowsPerWarpAndHeadDimRounding) {
    EXPECT_EQ(attention::rowsPerWarp(128, 4), 32);
    EXPECT_EQ(attention::rowsPerWarp(128, 8), 16);
    EXPECT_EQ(attention::rowsPerWarp(48, 4), 16);  // 3 warps compute, one loads only
    EXPECT_EQ(attention::rowsPerWarp(32, 4), 16);
    EXPECT_EQ(attention::roundHeadDim(80, 16), 80);
    EXPECT_EQ(attention::roundHeadDim(72, 16), 80);
}

}  // namespace
}  // namespace tilescope

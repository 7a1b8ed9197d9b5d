#include <gtest/gtest.h>

#include <set>
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

TEST(BucketIndex, StageCountFromTheClaimEqualsThePlannersStages) {
    for (const auto& cell : GemmBucketFamily::cells()) {
        if (cell.blockN == 0) {  // small cells: 16 rows + 56 columns per stage
            const int stages = bucket::stagesThatFit(cell.smemBytes, bucket::stageBytes(bucket::kSmallCellRows, bucket::kSmallCellBlockN));
            EXPECT_GE(stages, 2) << cell.name;
            continue;
        }
        EXPECT_EQ(bucket::stageBytes(bucket::kRowsPerPass, cell.blockN) * cell.stages, cell.smemBytes) << cell.name;
        EXPECT_EQ(bucket::stagesThatFit(cell.smemBytes, bucket::stageBytes(bucket::kRowsPerPass, cell.blockN)), cell.stages) << cell.name;
    }
    EXPECT_EQ(bucket::rowsPerPass(32), 32);
    EXPECT_EQ(bucket::rowsPerPass(512), 128);
    EXPECT_EQ(bucket::tilesAlongN(7168, 256), 28);
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

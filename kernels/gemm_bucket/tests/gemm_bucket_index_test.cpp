// gemm_bucket's index maths (bucket_index.h) on the CPU: the stage ring against the planner's cells,
// the swizzle, the copy maps, the column strips and the tile raster.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/gemm_bucket/plan.h"

namespace tilescope {
namespace {

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

// The copy maps fill every 16-byte chunk of a stage exactly once: large cells (256 threads, rows t / 8 +
// 32 i of 128 + BN; destination = pass 0's + 4,096 i, the kernel's precomputed form; rows < 128 are the
// A part), small cells (224 threads, 5 passes of 28 rows, the 5th only for threads of rows < 16).
TEST(BucketIndex, CopyMapsFillEveryStageChunkOnce) {
    for (int bn : {16, 32, 64, 128, 256}) {
        const int rows = bucket::kTileRows + bn;
        std::vector<int> hits(static_cast<std::size_t>(rows * 8), 0);
        const int passes = (rows + 31) / 32;
        for (int tid = 0; tid < 256; ++tid)
            for (int i = 0; i < passes; ++i) {
                const int r = bucket::copyRow(tid, i, 256), c = bucket::copyColumn(tid);
                if (r >= rows) {
                    EXPECT_EQ(i, passes - 1) << bn;  // only the last pass runs past the stage (BN 16)
                    EXPECT_LT(bn, 32);
                    continue;
                }
                const int offset = bucket::swizzledOffset(bucket::copyRow(tid, 0, 256), c) + i * 32 * 128;
                EXPECT_EQ(offset, bucket::swizzledOffset(r, c)) << bn << " " << tid << " " << i;
                EXPECT_EQ(r < bucket::kTileRows, i < bucket::kTileRows / 32);  // passes 0-3 are the A part
                ++hits[static_cast<std::size_t>(offset / 16)];
            }
        for (int h : hits) EXPECT_EQ(h, 1) << bn;
    }
    std::vector<int> hits(16384 / 16, 0);
    for (int tid = 0; tid < bucket::kSmallThreads; ++tid)
        for (int i = 0; i < 5; ++i) {
            const int q = bucket::copyRow(tid, i, bucket::kSmallThreads);
            const bool owns = (i + 1) * 28 <= 128 || q < 128;  // the kernel's copyOwn
            EXPECT_EQ(owns, q < 128) << tid << " " << i;
            if (!owns) continue;
            const int offset = bucket::smallStageOffset(q, bucket::copyColumn(tid));
            EXPECT_EQ(offset, (q / 64) * 8192 + bucket::swizzledOffset(q % 64, tid % 8));
            ++hits[static_cast<std::size_t>(offset / 16)];
        }
    for (int h : hits) EXPECT_EQ(h, 1);
    EXPECT_EQ(bucket::smallStageOffset(64, 0), 8192);
    EXPECT_EQ(bucket::smallStageOffset(49, 1), 49 * 128 + 0 * 16);  // 1 ^ (49 % 8) = 0
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
    EXPECT_EQ(bucket::columnStrip(0, 152, 896).count, 6);  // 896 = 5 * 152 + 136
    EXPECT_EQ(bucket::columnStrip(135, 152, 896).count, 6);
    EXPECT_EQ(bucket::columnStrip(136, 152, 896).count, 5);
    EXPECT_EQ(bucket::columnStrip(136, 152, 896).first, 136 * 6);
    EXPECT_EQ(bucket::columnStrip(151, 152, 32).count, 0);  // N = 256: CTAs past tile 31 idle
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

}  // namespace
}  // namespace tilescope

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <tuple>
#include <vector>

#include "core/model/device_spec.h"
#include "kernels/attention/attention_index.h"
#include "kernels/awq_gemm/gemm_index.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/awq_common/awq_format.h"
#include "kernels/common/float16.h"
#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/gemm_bucket/plan.h"

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

TEST(AttentionIndex, CausalKeyTiles) {
    using attention::keyTilesForBlock;
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, false), 16);
    EXPECT_EQ(keyTilesForBlock(0, 128, 64, 1024, 1024, true), 2);  // rows 0..127 see keys 0..127
    EXPECT_EQ(keyTilesForBlock(896, 128, 64, 1024, 1024, true), 16);
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 100, 1000, true), 16);  // bottom-right: row 63 sees keys 0..963
    EXPECT_EQ(keyTilesForBlock(0, 64, 64, 1000, 100, true), 0);   // rows 0..63 see no key
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

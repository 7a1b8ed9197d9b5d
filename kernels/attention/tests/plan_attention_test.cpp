// attention against KERNELS.md section 3: FA2's tile table and the SM120 tile search.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/attention/plan.h"
#include "kernels/attention/split_kv_index.h"
#include "tests/core/plan_rows.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::expectCompilerRegisters;
using test::limitName;
using test::plan;

std::string hd(int d) { return "head_dim=" + std::to_string(d) + ",head_dim_v=" + std::to_string(d); }

// ---- fa2 --------------------------------------------------------------------------------

struct Fa2Row {
    const char* device;
    int headDim;
    bool causal;
    const char* tile;
    std::int64_t blockM;
    std::int64_t threads;
    std::int64_t smem;
};

TEST(AttentionFa2, TileTablePerHeadDimBucketAndDevice) {
    // smem = (kBlockM + 2 * kBlockN) * d * 2 with d the bucket.
    const Fa2Row rows[] = {
        {"h100-sxm", 32, false, "128x128/4", 128, 128, (128 + 256) * 32 * 2},   // 24,576
        {"h100-sxm", 64, false, "128x128/4", 128, 128, (128 + 256) * 64 * 2},   // 49,152
        {"h100-sxm", 40, false, "128x128/4", 128, 128, (128 + 256) * 64 * 2},   // 40 -> bucket 64
        {"h100-sxm", 96, false, "128x64/4", 128, 128, (128 + 128) * 96 * 2},    // 49,152
        {"h100-sxm", 128, false, "128x64/4", 128, 128, (128 + 128) * 128 * 2},  // 65,536
        {"a100-80gb-sxm", 128, true, "128x64/4", 128, 128, 65536},              // sm_80 is not sm8x
        {"rtx-4090", 128, false, "128x32/4", 128, 128, (128 + 64) * 128 * 2},   // sm_89 non-causal: 49,152
        {"rtx-4090", 128, true, "64x64/4", 64, 128, (64 + 128) * 128 * 2},      // sm_89 causal: 49,152
        {"l4", 128, false, "128x32/4", 128, 128, 49152},
        {"rtx-5090", 128, false, "128x64/4", 128, 128, 65536},                  // sm_120 is not sm8x
        {"h100-sxm", 192, false, "128x64/8", 128, 256, (128 + 128) * 192 * 2},  // 98,304
        // 256: 128x64/8 only when opt-in >= 131,072 and smem/SM < 196,608 (A100: 166,912 / 167,936).
        {"a100-80gb-sxm", 256, false, "128x64/8", 128, 256, (128 + 128) * 256 * 2},  // 131,072
        {"h100-sxm", 256, false, "64x64/4", 64, 128, (64 + 128) * 256 * 2},          // smem/SM 233,472: 98,304
        {"rtx-4090", 256, false, "64x64/4", 64, 128, 98304},                         // opt-in 101,376 < 131,072
    };
    for (const auto& row : rows) {
        const std::string shape = hd(row.headDim) + ",causal=" + (row.causal ? "1" : "0");
        const LaunchPlan p = plan("attention", "fa2", shape, row.device);
        SCOPED_TRACE(std::string(row.device) + " " + shape);
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_EQ(p.tile, row.tile);
        EXPECT_EQ(p.dynamicSmem, row.smem);
        EXPECT_EQ(p.staticSmem, 0);
        EXPECT_EQ(p.optsIntoLargeSmem, row.smem > 49152);  // above 48 KB the kernel opts in
        EXPECT_EQ(p.threadsPerBlock(), row.threads);
        // grid (ceil(seqlen_q / kBlockM), batch, heads) with seqlen_q 2048, batch 1, heads 32.
        EXPECT_EQ(p.grid, (Dim3{2048 / row.blockM, 1, 32}));
        expectCompilerRegisters(p, device(row.device));
    }
}

TEST(AttentionFa2, PreAmpereIsUnsupportedDevice) {
    const LaunchPlan p = plan("attention", "fa2", "", "t4");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(p.message, "FlashAttention only supports Ampere GPUs or newer.");
    EXPECT_EQ(limitName(p), "compute_capability");
    EXPECT_EQ(p.limit->limit, 80);
    EXPECT_EQ(p.limit->actual, 75);
    EXPECT_EQ(p.failingParameter, -1);
    EXPECT_EQ(p.fix,
              "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU; or this shape runs on "
              "every database GPU of sm_80, sm_86, sm_87, sm_89, sm_90, sm_120, and on b200, gb10");
}

// ---- shapes the planners refuse, one row each -------------------------------------------

class AttentionRefuses : public testing::TestWithParam<test::RefusalRow> {};

TEST_P(AttentionRefuses, WithUpstreamsMessageLimitAndFix) { test::expectRefusal("attention", GetParam()); }

// One row per case, as a table (clang-format would put every field on its own line).
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Rows, AttentionRefuses,
    testing::Values(
        // No head_dim alone passes while head_dim_v stays 264 (FA2 needs them equal), so the fix moves
        // both together (core/model/fix_finder.cpp); no device helps.
        test::RefusalRow{.name = "Fa2HeadDimAbove256", .variant = "fa2", .shape = "head_dim=264,head_dim_v=264",
                         .message = "FlashAttention forward only supports head dimension at most 256",
                         .limit = "head_dim", .limitValue = 256, .actual = 264,
                         .fix = "nearest passing head_dim and head_dim_v: 256 (batch=1,seqlen_q=2048,seqlen_k=2048,heads=32,"
                                "head_dim=256,head_dim_v=256,causal=0,num_splits=0,dropout=0,fa2_version=283); or route head_dim > 256 to another backend "
                                "(e.g. sm120_tile_search, or PyTorch SDPA)"},
        test::RefusalRow{.name = "Fa2HeadDimMultipleOf8", .variant = "fa2", .shape = "head_dim=100,head_dim_v=100",
                         .message = "query, key, value, and out_ must have a head_size that is a multiple of 8",
                         .limit = "head_dim % 8"},
        // The size check comes before the multiple-of-8 check.
        test::RefusalRow{.name = "Fa2SizeBeforeMultipleOf8", .variant = "fa2", .shape = "head_dim=260,head_dim_v=260",
                         .message = "FlashAttention forward only supports head dimension at most 256"},
        test::RefusalRow{.name = "Fa2HeadDimVEqualsHeadDim", .variant = "fa2", .shape = "head_dim=128,head_dim_v=64",
                         .message = "FlashAttention-2 forward needs head_dim_v == head_dim (got 128 and 64)",
                         .limit = "head_dim_v", .fixParameter = 5, .fixValue = 128},
        // Batch and heads at most 65,535 (grid y and z); small tokens so that memory does not fail first.
        test::RefusalRow{.name = "Fa2BatchOnGridY", .variant = "fa2", .shape = "batch=65536,seqlen_q=1,seqlen_k=1,heads=1",
                         .verdict = Verdict::InvalidLaunch, .limit = "max_grid_dim_y", .actual = 65536,
                         .fixParameter = 0, .fixValue = 65535},
        test::RefusalRow{.name = "Fa2HeadsOnGridZ", .variant = "fa2", .shape = "batch=1,seqlen_q=1,seqlen_k=1,heads=65536",
                         .verdict = Verdict::InvalidLaunch, .launchRejection = true, .limit = "max_grid_dim_z",
                         .fixParameter = 3, .fixValue = 65535},
        test::RefusalRow{.name = "Sm120MessageNamesSm89", .variant = "sm120_tile_search",
                         .shape = "head_dim=512,head_dim_v=512", .verdict = Verdict::NoTileFits,
                         .message = "(head_dim, head_dim_v)=(512, 512) exceeds SM89 shared-memory capacity (101376 bytes)",
                         .device = "rtx-4090"},
        // H100: 1024 needs 131,072 * 3 + 2,048 = 395,264.
        test::RefusalRow{.name = "Sm120MessageNamesSm90", .variant = "sm120_tile_search",
                         .shape = "head_dim=1024,head_dim_v=1024", .verdict = Verdict::NoTileFits,
                         .message = "(head_dim, head_dim_v)=(1024, 1024) exceeds SM90 shared-memory capacity (232448 bytes)"},
        test::RefusalRow{.name = "Sm120PreAmpere", .variant = "sm120_tile_search", .shape = "head_dim=256,head_dim_v=256",
                         .verdict = Verdict::UnsupportedDevice, .device = "t4"},
        // Per sequence: Q, K, V, O fp16 = 2048 * 32 * (128 + 256 + 128) * 2 = 67,108,864 B, plus the
        // fp32 LSE 32 * 2048 * 4 = 262,144 B: 67,371,008 B. 80 GiB = 85,899,345,920 B -> 1,275 sequences.
        test::RefusalRow{.name = "Fa2OutOfMemoryAlongBatch", .variant = "fa2", .shape = "batch=2000",
                         .verdict = Verdict::OutOfMemory, .message = "CUDA error: out of memory", .limit = "memory_bytes",
                         .limitValue = 85899345920, .actual = 2000 * std::int64_t{67371008},
                         .fix = "nearest passing batch: 1275 (batch=1275,seqlen_q=2048,seqlen_k=2048,heads=32,head_dim=128,"
                                "head_dim_v=128,causal=0,num_splits=0,dropout=0,fa2_version=283); or this shape runs on h200, b200, gb10",
                         .cudaErrorCode = 2}),
    test::rowName);
// clang-format on

TEST(AttentionFa2, PaddingWasteOnSeqlenQ) {
    // two 128-row tiles (forced one split: 32 heads x 4 m-blocks would split on 132 SMs)
    const LaunchPlan p = plan("attention", "fa2", "seqlen_q=200,num_splits=1", "h100-sxm");
    EXPECT_EQ(p.grid.x, 2);
    EXPECT_DOUBLE_EQ(p.paddingWaste, 56.0 / 256.0);
}

// ---- fa2 split-KV (flash_api.cpp num_splits_heuristic / set_params_splitkv) -------------

// Upstream's choices, computed by hand from flash-attention v2.8.3 flash_api.cpp
// num_splits_heuristic (a line-by-line transcription run with float32 rounding, not this code):
// arguments are batch*heads*ceil(seqlen_q/64), 2 x the SM count, ceil(seqlen_k/block_n), 128.
struct HeuristicRow {
    std::int64_t work, sms, nBlocks;
    int splits;
};

TEST(AttentionSplitKv, HeuristicMatchesUpstreamOnSeveralSmCounts) {
    const HeuristicRow rows[] = {
        // decode, seqlen_k 32768, 32 heads, d128 (256 blocks of 128) on 58/108/114/128/132/148/170 SMs
        {32, 116, 256, 7},
        {32, 216, 256, 6},
        {32, 228, 256, 7},
        {32, 256, 256, 7},
        {32, 264, 256, 7},
        {32, 296, 256, 8},
        {32, 340, 256, 9},
        // 8 heads, seqlen_k 8192 (64 blocks): 13 splits on 58 SMs, 22 on 108, 32 from 132 SMs on
        {8, 116, 64, 13},
        {8, 216, 64, 22},
        {8, 264, 64, 32},
        {8, 340, 64, 32},
        // batch 4 x 32 heads = 128 CTAs: 1 split only at >= 0.8 x 2 x SMs
        {128, 116, 128, 1},
        {128, 216, 128, 3},
        {128, 228, 128, 5},
        {128, 264, 128, 2},
        {128, 340, 128, 5},
        // 256 CTAs fill every device but the 170-SM one
        {256, 296, 64, 1},
        {256, 340, 64, 5},
        // few n blocks cap the splits; ineligible counts (same blocks per split) are skipped
        {32, 264, 2, 2},
        {4, 264, 8, 8},
        {16, 116, 8, 4},
        {1, 116, 1024, 103},
        {1, 264, 1024, 114},
        {1, 116, 256, 86},
        {1, 264, 256, 128},
        // nothing to split, or nothing to do
        {32, 264, 1, 1},
        {32, 264, 0, 1},
        {0, 264, 10, 1},
    };
    for (const auto& row : rows) {
        SCOPED_TRACE(std::to_string(row.work) + " blocks, " + std::to_string(row.sms) + " SM slots, " + std::to_string(row.nBlocks) +
                     " n blocks");
        EXPECT_EQ(attention::numSplitsHeuristic(row.work, row.sms, row.nBlocks, 128), row.splits);
    }
    EXPECT_EQ(attention::splitKvBlockN(40), 256);
    EXPECT_EQ(attention::splitKvBlockN(64), 256);
    EXPECT_EQ(attention::splitKvBlockN(72), 128);
    EXPECT_EQ(attention::splitKvBlockN(128), 128);
    EXPECT_EQ(attention::splitKvBlockN(136), 64);
}

// split_kv_index.h: the kernels' shared-memory swizzle, split partition and accumulator layout.
TEST(AttentionSplitKv, SwizzleIsAPermutationAndLdmatrixRowsMissEachOther) {
    for (int dim : {32, 64, 96, 128, 192, 256}) {
        const int chunks = dim / attention::kChunkElements;
        for (int row = 0; row < 64; ++row) {
            std::vector<bool> seen(static_cast<std::size_t>(chunks), false);
            for (int c = 0; c < chunks; ++c) {
                const int physical = attention::splitKvSwizzledChunk(row, c, chunks);
                ASSERT_GE(physical, 0);
                ASSERT_LT(physical, chunks);
                EXPECT_FALSE(seen[static_cast<std::size_t>(physical)]) << dim << " row " << row;
                seen[static_cast<std::size_t>(physical)] = true;
                // The swizzle reads only row % 8: the kernels address by lane % 8.
                EXPECT_EQ(physical, attention::splitKvSwizzledChunk(row % 8, c, chunks));
            }
        }
        // ldmatrix: eight consecutive rows (from a multiple of 8) at one logical chunk hit eight of
        // the eight 16-byte bank groups.
        for (int row0 = 0; row0 < 64; row0 += 8)
            for (int c = 0; c < chunks; ++c) {
                std::vector<bool> bank(8, false);
                for (int r = row0; r < row0 + 8; ++r) {
                    const int group = (attention::splitKvSwizzledOffset(r, c * 8, dim) / attention::kChunkElements) % 8;
                    EXPECT_FALSE(bank[static_cast<std::size_t>(group)]) << dim << " rows " << row0 << " chunk " << c;
                    bank[static_cast<std::size_t>(group)] = true;
                }
            }
    }
    EXPECT_EQ(attention::splitKvSwizzledOffset(3, 21, 128), 3 * 128 + (2 ^ 3) * 8 + 5);
}

TEST(AttentionSplitKv, SplitsCoverEveryKeyBlockOnce) {
    const struct {
        long long seqlenK;
        int blockN, splits;
    } rows[] = {{32768, 128, 7}, {32768, 128, 128}, {200, 128, 2}, {1, 64, 3}, {1000, 256, 5}, {0, 128, 4}, {4096, 64, 13}};
    for (const auto& row : rows) {
        const long long blocks = (row.seqlenK + row.blockN - 1) / row.blockN;
        long long next = 0;
        for (int split = 0; split < row.splits; ++split) {
            const attention::KeyBlockRange r = attention::splitKeyBlocks(row.seqlenK, row.blockN, split, row.splits);
            if (r.begin >= r.end) {
                EXPECT_GE(r.begin, blocks);  // empty splits are the last ones
                continue;
            }
            EXPECT_EQ(r.begin, next);
            next = r.end;
        }
        EXPECT_EQ(next, blocks) << row.seqlenK << " / " << row.splits;
    }
    // 256 blocks over 7 splits: 37 each (ceil), the last 34.
    EXPECT_EQ(attention::splitKeyBlocks(32768, 128, 6, 7).begin, 222);
    EXPECT_EQ(attention::splitKeyBlocks(32768, 128, 6, 7).end, 256);
}

TEST(AttentionSplitKv, AccumulatorAndOutputRows) {
    // [splits, batch, heads, seqlen_q]: split 2, batch 1, head 3, query 4 of (b 2, h 5, sq 7).
    EXPECT_EQ(attention::accumRow(2, 1, 3, 4, 2, 5, 7), ((2 * 2 + 1) * 5 + 3) * 7 + 4);
    // Flat (batch, head, query) -> O row [batch, seqlen_q, heads].
    for (long long b = 0; b < 2; ++b)
        for (long long h = 0; h < 5; ++h)
            for (long long q = 0; q < 7; ++q) EXPECT_EQ(attention::outputRowOfFlatRow((b * 5 + h) * 7 + q, 5, 7), (b * 7 + q) * 5 + h);
    EXPECT_EQ(attention::combineMaxSplits(1), 2);
    EXPECT_EQ(attention::combineMaxSplits(2), 2);
    EXPECT_EQ(attention::combineMaxSplits(7), 8);
    EXPECT_EQ(attention::combineMaxSplits(33), 64);
    EXPECT_EQ(attention::combineMaxSplits(128), 128);
}

constexpr const char* kDecode = "batch=1,seqlen_q=1,seqlen_k=32768,heads=32,head_dim=128,head_dim_v=128";

TEST(AttentionSplitKv, DecodeOnH200IsSevenSplitsAndACombine) {
    const LaunchPlan p = plan("attention", "fa2", kDecode, "h200");
    ASSERT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.splitK, 7);
    EXPECT_EQ(p.kernelSymbol, "flash_fwd_splitkv_d128_m64n128w4");
    EXPECT_EQ(p.tile, "64x128/4 split-KV");
    EXPECT_EQ(p.grid, (Dim3{1, 7, 32}));  // (ceil(1/64), splits, batch*heads): 224 CTAs
    EXPECT_EQ(p.threadsPerBlock(), 128);
    EXPECT_EQ(p.dynamicSmem, (64 + 2 * 128) * 128 * 2);  // 81,920
    EXPECT_TRUE(p.optsIntoLargeSmem);
    EXPECT_EQ(p.gridParameter[1], 2);  // seqlen_k moves the heuristic's splits
    EXPECT_EQ(p.gridParameter[2], 0);  // batch*heads on grid.z: batch is the axis
    EXPECT_EQ(p.note,
              "num_splits 7 from num_splits_heuristic(32, 2 x 132 SMs, 256 K/V blocks, 128): split-KV kernel, "
              "then the combine kernel");
    ASSERT_EQ(p.extraLaunches.size(), 1u);
    const ExtraLaunch& c = p.extraLaunches[0];
    EXPECT_EQ(c.role, "combine");
    EXPECT_EQ(c.kernelSymbol, "flash_fwd_splitkv_combine_m4");  // d128 % 128 == 0: 4 rows per CTA
    EXPECT_EQ(c.grid, (Dim3{8, 1, 1}));                         // ceil(1 * 32 * 1 / 4)
    EXPECT_EQ(c.threadsPerBlock(), 128);
    EXPECT_EQ(c.dynamicSmem, 8 * (4 + 1) * 4);  // kMaxSplits 8 x (kBlockM + 1) fp32
    // Buffers: Q 8,192 + K,V 536,870,912 + O 8,192 + LSE 128 + accumulators 7 x 32 x (128 + 1) x 4 = 115,584.
    EXPECT_EQ(p.deviceMemoryBytes, 8192 + 536870912 + 8192 + 128 + 115584);
    EXPECT_DOUBLE_EQ(p.bytesMoved, 8192.0 + 536870912 + 8192 + 128 + 2 * 115584);  // written, then read back
    expectCompilerRegisters(p, device("h200"));
    if (c.registers) {
        ASSERT_TRUE(c.occupancy);
        EXPECT_GT(c.occupancy->activeBlocksPerSm, 0);
    }
    ASSERT_EQ(p.candidates.size(), 2u);  // the split tile, then the one-split tile for comparison
    EXPECT_EQ(p.candidates[1].name, "128x64/4");
}

TEST(AttentionSplitKv, SplitsFollowTheDevicesSmCount) {
    const std::pair<const char*, int> rows[] = {{"l4", 7},       {"a100-80gb-sxm", 6}, {"h100-pcie", 7}, {"rtx-4090", 7},
                                                {"h100-sxm", 7}, {"b200", 8},          {"rtx-5090", 9}};
    for (const auto& [id, splits] : rows) {
        const LaunchPlan p = plan("attention", "fa2", kDecode, id);
        SCOPED_TRACE(id);
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_EQ(p.splitK, splits);
        EXPECT_EQ(p.grid, (Dim3{1, splits, 32}));
    }
}

TEST(AttentionSplitKv, SplitsAlongSeqlenKAndBatch) {
    // 132 SMs, 32 heads, seqlen_q 1: one split while one 128-key block, then one split per block up
    // to 8, then the 85 % rule settles on 7.
    const std::pair<int, int> seqlenK[] = {{128, 1}, {129, 2}, {384, 3}, {1024, 8}, {2048, 8}, {4096, 7}, {131072, 7}};
    for (const auto& [sk, splits] : seqlenK) {
        const LaunchPlan p = plan("attention", "fa2", "batch=1,seqlen_q=1,seqlen_k=" + std::to_string(sk) + ",heads=32", "h200");
        SCOPED_TRACE(sk);
        EXPECT_EQ(p.splitK, splits);
        EXPECT_EQ(p.extraLaunches.size(), splits > 1 ? 1u : 0u);
        EXPECT_EQ(p.kernelSymbol, splits > 1 ? "flash_fwd_splitkv_d128_m64n128w4" : "flash_fwd_d128_m128n64w4");
    }
    const std::pair<int, int> batch[] = {{1, 7}, {2, 4}, {3, 5}, {4, 2}, {6, 4}, {7, 1}, {16, 1}};
    for (const auto& [b, splits] : batch) {
        const LaunchPlan p = plan("attention", "fa2", "batch=" + std::to_string(b) + ",seqlen_q=1,seqlen_k=32768,heads=32", "h200");
        SCOPED_TRACE(b);
        EXPECT_EQ(p.splitK, splits);
        if (splits == 1) EXPECT_EQ(p.grid, (Dim3{1, b, 32}));
        else EXPECT_EQ(p.grid, (Dim3{1, splits, b * 32}));
    }
    // Prefill-sized work never splits: the tile table's plans are unchanged.
    const LaunchPlan prefill = plan("attention", "fa2", "", "h200");
    EXPECT_EQ(prefill.splitK, 1);
    EXPECT_TRUE(prefill.extraLaunches.empty());
    EXPECT_TRUE(prefill.note.empty());
}

TEST(AttentionSplitKv, ExplicitNumSplitsOverridesTheHeuristic) {
    const LaunchPlan one = plan("attention", "fa2", std::string(kDecode) + ",num_splits=1", "h200");
    EXPECT_EQ(one.verdict, Verdict::Ok);
    EXPECT_EQ(one.kernelSymbol, "flash_fwd_d128_m128n64w4");
    EXPECT_EQ(one.grid, (Dim3{1, 1, 32}));
    EXPECT_TRUE(one.extraLaunches.empty());
    EXPECT_EQ(one.note, "num_splits 1 (forced): one kernel");
    const LaunchPlan four = plan("attention", "fa2", std::string(kDecode) + ",num_splits=4", "h200");
    EXPECT_EQ(four.grid, (Dim3{1, 4, 32}));
    EXPECT_EQ(four.gridParameter[1], 7);  // num_splits
    ASSERT_EQ(four.extraLaunches.size(), 1u);
    EXPECT_EQ(four.extraLaunches[0].dynamicSmem, 4 * 5 * 4);
    // More splits than K/V blocks is allowed (the last splits are empty): 128 x 2 blocks.
    const LaunchPlan most = plan("attention", "fa2", "batch=1,seqlen_q=1,seqlen_k=256,heads=32,num_splits=128", "h200");
    EXPECT_EQ(most.verdict, Verdict::Ok);
    EXPECT_EQ(most.grid, (Dim3{1, 128, 32}));
    EXPECT_EQ(most.extraLaunches[0].dynamicSmem, 128 * 5 * 4);  // 2,560
    const LaunchPlan tooMany = plan("attention", "fa2", std::string(kDecode) + ",num_splits=129", "h200");
    EXPECT_EQ(tooMany.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(tooMany.message, "num_splits > 128 not supported");
    EXPECT_EQ(limitName(tooMany), "num_splits");
    EXPECT_EQ(tooMany.limit->limit, 128);
    EXPECT_EQ(tooMany.limit->actual, 129);
    EXPECT_EQ(tooMany.fixShape.value()[7], 128);
}

TEST(AttentionSplitKv, BatchTimesHeadsOnGridZ) {
    // Split: grid.z = batch * heads <= 65,535. 2,048 x 32 = 65,536 fails; batch 2,047 passes.
    const LaunchPlan p = plan("attention", "fa2", "batch=2048,seqlen_q=1,seqlen_k=16,heads=32,num_splits=2", "h200");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(limitName(p), "max_grid_dim_z");
    EXPECT_EQ(p.limit->limit, 65535);
    EXPECT_EQ(p.limit->actual, 65536);
    EXPECT_EQ(p.failingParameter, 0);
    EXPECT_EQ(p.fixShape.value()[0], 2047);
    // The heuristic never splits that much work (65,536 >= 0.8 x 264): one kernel, grid (1, 2048, 32).
    const LaunchPlan h = plan("attention", "fa2", "batch=2048,seqlen_q=1,seqlen_k=16,heads=32", "h200");
    EXPECT_EQ(h.verdict, Verdict::Ok);
    EXPECT_EQ(h.grid, (Dim3{1, 2048, 32}));
}

TEST(AttentionSplitKv, SplitTilePerHeadDim) {
    // run_mha_fwd_splitkv_dispatch: kBlockM 64, kBlockN 256 (d <= 64), 128 (d <= 128), 64; smem
    // (64 + 2 kBlockN) x d x 2. Combine rows: 4 (d % 128 == 0), 8 (d % 64 == 0), else 16.
    struct Row {
        int headDim;
        const char* symbol;
        std::int64_t smem;
        const char* combine;
        std::int64_t combineRows;
    };
    const Row rows[] = {
        {32, "flash_fwd_splitkv_d32_m64n256w4", (64 + 512) * 32 * 2, "flash_fwd_splitkv_combine_m16", 16},
        {64, "flash_fwd_splitkv_d64_m64n256w4", (64 + 512) * 64 * 2, "flash_fwd_splitkv_combine_m8", 8},
        {80, "flash_fwd_splitkv_d96_m64n128w4", (64 + 256) * 96 * 2, "flash_fwd_splitkv_combine_m16", 16},
        {128, "flash_fwd_splitkv_d128_m64n128w4", (64 + 256) * 128 * 2, "flash_fwd_splitkv_combine_m4", 4},
        {192, "flash_fwd_splitkv_d192_m64n64w4", (64 + 128) * 192 * 2, "flash_fwd_splitkv_combine_m8", 8},
        {256, "flash_fwd_splitkv_d256_m64n64w4", (64 + 128) * 256 * 2, "flash_fwd_splitkv_combine_m4", 4},
    };
    for (const auto& row : rows) {
        const LaunchPlan p =
            plan("attention", "fa2", "batch=1,seqlen_q=100,seqlen_k=8192,heads=8,num_splits=3," + hd(row.headDim), "rtx-4090");
        SCOPED_TRACE(row.headDim);
        ASSERT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_EQ(p.kernelSymbol, row.symbol);
        EXPECT_EQ(p.dynamicSmem, row.smem);
        EXPECT_EQ(p.grid, (Dim3{2, 3, 8}));
        EXPECT_DOUBLE_EQ(p.paddingWaste, 28.0 / 128.0);
        ASSERT_EQ(p.extraLaunches.size(), 1u);
        EXPECT_EQ(p.extraLaunches[0].kernelSymbol, row.combine);
        EXPECT_EQ(p.extraLaunches[0].grid.x, (8 * 100 + row.combineRows - 1) / row.combineRows);
        EXPECT_EQ(p.extraLaunches[0].dynamicSmem, 4 * (row.combineRows + 1) * 4);
        expectCompilerRegisters(p, device("rtx-4090"));
    }
}

TEST(AttentionFa2, Hdim96CausalOnSm8xIs64x64) {
    // flash_fwd_launch_template.h run_mha_fwd_hdim96: "if (is_sm8x) { if constexpr(!Is_causal) 128 x 64
    // else 64 x 64 }", 4 warps; sm_80 and sm_90 keep 128 x 64.
    struct Row {
        const char* device;
        bool causal;
        const char* tile;
        std::int64_t blockM;
    };
    const Row rows[] = {{"rtx-4090", true, "64x64/4", 64},
                        {"l4", true, "64x64/4", 64},
                        {"rtx-4090", false, "128x64/4", 128},
                        {"a100-80gb-sxm", true, "128x64/4", 128},
                        {"h100-sxm", true, "128x64/4", 128}};
    for (const auto& row : rows) {
        const LaunchPlan p = plan("attention", "fa2", hd(96) + ",causal=" + (row.causal ? "1" : "0"), row.device);
        SCOPED_TRACE(row.device);
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_EQ(p.tile, row.tile);
        EXPECT_EQ(p.dynamicSmem, (row.blockM + 2 * 64) * 96 * 2);
        EXPECT_EQ(p.grid, (Dim3{2048 / row.blockM, 1, 32}));
        expectCompilerRegisters(p, device(row.device));
    }
    EXPECT_EQ(plan("attention", "fa2", hd(96) + ",causal=1", "rtx-4090").kernelSymbol, "flash_fwd_d96_m64n64w4");
}

TEST(AttentionFa2, SeqlenQ1IsNotCausal) {
    // mha_fwd: "causal=true is the same as causal=false in this case" (seqlen_q == 1): on sm_89 d128
    // takes the non-causal 128x32 tile, not the causal 64x64.
    const LaunchPlan p = plan("attention", "fa2", "seqlen_q=1,seqlen_k=256,causal=1,num_splits=1", "rtx-4090");
    EXPECT_EQ(p.tile, "128x32/4");
    EXPECT_EQ(plan("attention", "fa2", "seqlen_q=2,seqlen_k=256,causal=1,num_splits=1", "rtx-4090").tile, "64x64/4");
}

// ---- sm120_tile_search -------------------------------------------------------------------

// smem = tile_m*hd*2 + tile_n*hd*2 + tile_n*hdv*2 + 2048 (+ 16*tile_m for the sheared (256,256) tiles).
TEST(AttentionSm120, Hdim256OnRtx5090NeedsExactlyTheOptInLimit) {
    const LaunchPlan p = plan("attention", "sm120_tile_search", hd(256), "rtx-5090");
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.tile, "(64,64)");
    // 64*256*2 + 64*256*2 + 64*256*2 + 2048 + 16*64 = 32,768 * 3 + 2,048 + 1,024 = 101,376.
    EXPECT_EQ(p.dynamicSmem, 101376);
    EXPECT_TRUE(p.optsIntoLargeSmem);
    EXPECT_EQ(p.grid, (Dim3{2048 / 64, 1, 32}));
    EXPECT_EQ(p.threadsPerBlock(), 128);
    ASSERT_EQ(p.candidates.size(), 4u);
    EXPECT_EQ(p.candidates[1].name, "(64,48)");
    EXPECT_EQ(p.candidates[1].smemBytes, 32768 + 24576 + 24576 + 2048 + 1024);  // 84,992
    EXPECT_EQ(p.candidates[2].name, "(48,64)");
    EXPECT_EQ(p.candidates[2].smemBytes, 24576 + 32768 + 32768 + 2048 + 768);  // 92,928
    EXPECT_EQ(p.candidates[3].name, "(32,64)");
    EXPECT_EQ(p.candidates[3].smemBytes, 16384 + 32768 + 32768 + 2048 + 512);  // 84,480
    expectCompilerRegisters(p, device("rtx-5090"));
}

TEST(AttentionSm120, Hdim512OnRtx5090NoTileFits) {
    const LaunchPlan p = plan("attention", "sm120_tile_search", hd(512), "rtx-5090");
    EXPECT_EQ(p.verdict, Verdict::NoTileFits);
    EXPECT_EQ(p.message, "(head_dim, head_dim_v)=(512, 512) exceeds SM120 shared-memory capacity (101376 bytes)");
    EXPECT_EQ(limitName(p), "smem_per_block_optin");
    EXPECT_EQ(p.limit->limit, 101376);
    // (128,64): 131,072 + 65,536 + 65,536 + 2,048 = 264,192; (64,64): 65,536 * 3 + 2,048 = 198,656.
    EXPECT_EQ(p.limit->actual, 198656);
    ASSERT_EQ(p.candidates.size(), 2u);
    EXPECT_EQ(p.candidates[0].smemBytes, 264192);
    EXPECT_FALSE(p.candidates[0].fits);
    // head_dim 128 with head_dim_v 512: (64,64) = 16,384 + 16,384 + 65,536 + 2,048 = 100,352 fits;
    // 144 gives 104,448. No head_dim between 128 and 512 fits; head_dim_v = 512 is what holds it
    // there (issue #31 item 11), and the fix says so.
    EXPECT_EQ(p.fix,
              "nearest passing head_dim: 128, given head_dim_v = 512 (nearer head_dim values fail with that head_dim_v) "
              "(batch=1,seqlen_q=2048,seqlen_k=2048,heads=32,head_dim=128,"
              "head_dim_v=512,causal=0,num_splits=0,dropout=0,fa2_version=283); or route this head_dim to another backend, or use a GPU "
              "with a larger opt-in shared-memory limit; or this shape runs on every database GPU of sm_90, and on b200");
}

TEST(AttentionSm120, TileFitsAt512OnH100) {
    // The refusals naming SM89 and SM90 are rows of AttentionRefuses (Sm120MessageNamesSm89, ...Sm90).
    // H100: (64,64) at 512 = 198,656 <= 232,448 fits; 1024 needs 131,072 * 3 + 2,048 = 395,264.
    const LaunchPlan ok = plan("attention", "sm120_tile_search", hd(512), "h100-sxm");
    EXPECT_EQ(ok.verdict, Verdict::Ok);
    EXPECT_EQ(ok.tile, "(64,64)");
    EXPECT_EQ(ok.tileIndex, 1);
    EXPECT_EQ(ok.dynamicSmem, 198656);
}

TEST(AttentionSm120, CandidateOrderBySize) {
    // (128,128) only when max(hd, hdv) <= 64: 64*... = 16,384 * 3 + 2,048 = 51,200.
    const LaunchPlan small = plan("attention", "sm120_tile_search", hd(64), "rtx-5090");
    EXPECT_EQ(small.tile, "(128,128)");
    EXPECT_EQ(small.dynamicSmem, 51200);
    ASSERT_EQ(small.candidates.size(), 3u);
    // 128: (128,64) = 32,768 + 16,384 + 16,384 + 2,048 = 67,584.
    const LaunchPlan mid = plan("attention", "sm120_tile_search", hd(128), "rtx-5090");
    EXPECT_EQ(mid.tile, "(128,64)");
    EXPECT_EQ(mid.dynamicSmem, 67584);
    ASSERT_EQ(mid.candidates.size(), 2u);
    // 100 rounds up to 112: (128,64) = 28,672 + 14,336 + 14,336 + 2,048 = 59,392.
    const LaunchPlan rounded = plan("attention", "sm120_tile_search", hd(100), "rtx-5090");
    EXPECT_EQ(rounded.tile, "(128,64)");
    EXPECT_EQ(rounded.dynamicSmem, 59392);
    // 250 rounds up to 256: the sheared (256,256) list. (240 is already a multiple of 16.)
    EXPECT_EQ(plan("attention", "sm120_tile_search", hd(250), "rtx-5090").dynamicSmem, 101376);
    // (256, 128) is not (256,256): regular list, (128,64) = 65,536 + 32,768 + 16,384 + 2,048 = 116,736 too big,
    // (64,64) = 32,768 + 32,768 + 16,384 + 2,048 = 83,968.
    const LaunchPlan mixed = plan("attention", "sm120_tile_search", "head_dim=256,head_dim_v=128", "rtx-5090");
    EXPECT_EQ(mixed.tile, "(64,64)");
    EXPECT_EQ(mixed.dynamicSmem, 83968);
    EXPECT_EQ(mixed.tileIndex, 1);
}

TEST(AttentionSm120, SmallerOptInFallsToTheNextShearedTile) {
    DeviceSpec small = test::device("rtx-5090");
    small.id = "opt-in-90000";
    small.smemPerBlockOptin = 90000;  // below (64,64)'s 101,376 and (48,64)'s 92,928, above (64,48)'s 84,992
    const LaunchPlan p = test::planOn("attention", "sm120_tile_search", hd(256), small);
    EXPECT_EQ(p.verdict, Verdict::Ok);
    EXPECT_EQ(p.tile, "(64,48)");
    EXPECT_EQ(p.tileIndex, 1);
    EXPECT_EQ(p.dynamicSmem, 84992);
    EXPECT_EQ(p.grid.x, 2048 / 64);
}

}  // namespace
}  // namespace tilescope

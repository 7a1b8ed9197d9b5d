// attention against KERNELS.md section 3: FA2's tile table and the SM120 tile search.
#include <gtest/gtest.h>

#include "test_support.h"

namespace tilescope {
namespace {

using test::limitName;
using test::device;
using test::expectCompilerRegisters;
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
        {"h100-sxm", 32, false, "128x128/4", 128, 128, (128 + 256) * 32 * 2},     // 24,576
        {"h100-sxm", 64, false, "128x128/4", 128, 128, (128 + 256) * 64 * 2},     // 49,152
        {"h100-sxm", 40, false, "128x128/4", 128, 128, (128 + 256) * 64 * 2},     // 40 -> bucket 64
        {"h100-sxm", 96, false, "128x64/4", 128, 128, (128 + 128) * 96 * 2},      // 49,152
        {"h100-sxm", 128, false, "128x64/4", 128, 128, (128 + 128) * 128 * 2},    // 65,536
        {"a100-80gb-sxm", 128, true, "128x64/4", 128, 128, 65536},                // sm_80 is not sm8x
        {"rtx-4090", 128, false, "128x32/4", 128, 128, (128 + 64) * 128 * 2},     // sm_89 non-causal: 49,152
        {"rtx-4090", 128, true, "64x64/4", 64, 128, (64 + 128) * 128 * 2},        // sm_89 causal: 49,152
        {"l4", 128, false, "128x32/4", 128, 128, 49152},
        {"rtx-5090", 128, false, "128x64/4", 128, 128, 65536},                    // sm_120 is not sm8x
        {"h100-sxm", 192, false, "128x64/8", 128, 256, (128 + 128) * 192 * 2},    // 98,304
        // 256: 128x64/8 only when opt-in >= 131,072 and smem/SM < 196,608 (A100: 166,912 / 167,936).
        {"a100-80gb-sxm", 256, false, "128x64/8", 128, 256, (128 + 128) * 256 * 2},  // 131,072
        {"h100-sxm", 256, false, "64x64/4", 64, 128, (64 + 128) * 256 * 2},          // smem/SM 233,472: 98,304
        {"rtx-4090", 256, false, "64x64/4", 64, 128, 98304},                          // opt-in 101,376 < 131,072
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
    EXPECT_EQ(p.fix, "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU; or this "
                     "shape runs on a100-80gb-sxm, l4, rtx-4090, h100-sxm, h100-pcie, h200, b200, rtx-5090");
}

TEST(AttentionFa2, HeadDimAbove256) {
    const LaunchPlan p = plan("attention", "fa2", hd(264), "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "FlashAttention forward only supports head dimension at most 256");
    EXPECT_EQ(limitName(p), "head_dim");
    EXPECT_EQ(p.limit->limit, 256);
    EXPECT_EQ(p.limit->actual, 264);
    // head_dim_v stays 264, so no head_dim alone passes; no device helps either.
    EXPECT_EQ(p.fix, "route head_dim > 256 to another backend (e.g. sm120_tile_search, or PyTorch SDPA)");
}

TEST(AttentionFa2, HeadDimMultipleOf8) {
    const LaunchPlan p = plan("attention", "fa2", hd(100), "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "query, key, value, and out_ must have a head_size that is a multiple of 8");
    EXPECT_EQ(limitName(p), "head_dim % 8");
    // The size check comes before the multiple-of-8 check.
    EXPECT_EQ(plan("attention", "fa2", hd(260), "h100-sxm").message,
              "FlashAttention forward only supports head dimension at most 256");
}

TEST(AttentionFa2, HeadDimVMustEqualHeadDim) {
    const LaunchPlan p = plan("attention", "fa2", "head_dim=128,head_dim_v=64", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "FlashAttention-2 forward needs head_dim_v == head_dim (got 128 and 64)");
    EXPECT_EQ(limitName(p), "head_dim_v");
    EXPECT_EQ(p.fixShape.value()[5], 128);
}

TEST(AttentionFa2, BatchAndHeadsAtMost65535) {
    // Small tokens so that memory does not fail first.
    const LaunchPlan b = plan("attention", "fa2", "batch=65536,seqlen_q=1,seqlen_k=1,heads=1", "h100-sxm");
    EXPECT_EQ(b.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(limitName(b), "max_grid_dim_y");
    EXPECT_EQ(b.limit->actual, 65536);
    EXPECT_EQ(b.fixShape.value()[0], 65535);
    const LaunchPlan h = plan("attention", "fa2", "batch=1,seqlen_q=1,seqlen_k=1,heads=65536", "h100-sxm");
    EXPECT_EQ(h.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(limitName(h), "max_grid_dim_z");
    EXPECT_EQ(h.fixShape.value()[3], 65535);
    EXPECT_EQ(h.message, test::defaultLaunchRejection().message);
}

TEST(AttentionFa2, OutOfMemoryAlongBatch) {
    // Per sequence: Q, K, V, O fp16 = 2048 * 32 * (128 + 256 + 128) * 2 = 67,108,864 B, plus the
    // fp32 LSE 32 * 2048 * 4 = 262,144 B: 67,371,008 B. 80 GiB = 85,899,345,920 B -> 1,275 sequences.
    const LaunchPlan p = plan("attention", "fa2", "batch=2000", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::OutOfMemory);
    EXPECT_EQ(p.message, "CUDA error: out of memory");
    EXPECT_EQ(limitName(p), "memory_bytes");
    EXPECT_EQ(p.limit->limit, 85899345920);
    EXPECT_EQ(p.limit->actual, 2000 * std::int64_t{67371008});
    EXPECT_EQ(p.cudaError->code, 2);
    EXPECT_EQ(p.fix, "nearest passing batch: 1275 (batch=1275,seqlen_q=2048,seqlen_k=2048,heads=32,head_dim=128,"
                     "head_dim_v=128,causal=0); or this shape runs on h200, b200");
}

TEST(AttentionFa2, PaddingWasteOnSeqlenQ) {
    const LaunchPlan p = plan("attention", "fa2", "seqlen_q=200", "h100-sxm");  // two 128-row tiles
    EXPECT_EQ(p.grid.x, 2);
    EXPECT_DOUBLE_EQ(p.paddingWaste, 56.0 / 256.0);
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
    // 144 gives 104,448. No head_dim between 128 and 512 fits.
    EXPECT_EQ(p.fix, "nearest passing head_dim: 128 (batch=1,seqlen_q=2048,seqlen_k=2048,heads=32,head_dim=128,"
                     "head_dim_v=512,causal=0); or route this head_dim to another backend, or use a GPU with a larger "
                     "opt-in shared-memory limit; or this shape runs on h100-sxm, h100-pcie, h200, b200");
}

TEST(AttentionSm120, MessageNamesTheArch) {
    EXPECT_EQ(plan("attention", "sm120_tile_search", hd(512), "rtx-4090").message,
              "(head_dim, head_dim_v)=(512, 512) exceeds SM89 shared-memory capacity (101376 bytes)");
    // H100: (64,64) at 512 = 198,656 <= 232,448 fits; 1024 needs 131,072 * 3 + 2,048 = 395,264.
    const LaunchPlan ok = plan("attention", "sm120_tile_search", hd(512), "h100-sxm");
    EXPECT_EQ(ok.verdict, Verdict::Ok);
    EXPECT_EQ(ok.tile, "(64,64)");
    EXPECT_EQ(ok.tileIndex, 1);
    EXPECT_EQ(ok.dynamicSmem, 198656);
    EXPECT_EQ(plan("attention", "sm120_tile_search", hd(1024), "h100-sxm").message,
              "(head_dim, head_dim_v)=(1024, 1024) exceeds SM90 shared-memory capacity (232448 bytes)");
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

TEST(AttentionSm120, PreAmpereIsUnsupportedDevice) {
    EXPECT_EQ(plan("attention", "sm120_tile_search", hd(256), "t4").verdict, Verdict::UnsupportedDevice);
}

}  // namespace
}  // namespace tilescope

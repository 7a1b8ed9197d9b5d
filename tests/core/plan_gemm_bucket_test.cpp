// gemm_bucket against KERNELS.md section 4: M cells, per-cell launch, and the opt-in boundary.
#include <gtest/gtest.h>

#include "kernels/gemm_bucket/plan.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::limitName;
using test::device;
using test::expectCompilerRegisters;
using test::plan;

TEST(GemmBucket, MAbove512IsBucketOverflow) {
    const LaunchPlan p = plan("gemm_bucket", "oproj", "M=640", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::BucketOverflow);
    EXPECT_EQ(p.message, "gemm_ar: M=640 outside [1, 512]");
    EXPECT_EQ(limitName(p), "max_tokens");
    EXPECT_EQ(p.limit->limit, 512);
    EXPECT_EQ(p.limit->actual, 640);
    EXPECT_FALSE(p.cudaError);
    EXPECT_EQ(p.fix, "nearest passing M: 512 (M=512,N=7168,K=8192); or chunk M into <= 512-row blocks: 2 calls for M=640");
}

TEST(GemmBucket, MZeroIsBucketOverflow) {
    const LaunchPlan p = plan("gemm_bucket", "oproj", "M=0", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::BucketOverflow);
    EXPECT_EQ(p.message, "gemm_ar: M=0 outside [1, 512]");
    EXPECT_EQ(p.fix, "nearest passing M: 1 (M=1,N=7168,K=8192)");
}

TEST(GemmBucket, StageFormulaGivesKernelsMdFigures) {
    // stages = min(12, 225,280 / (16,384 + BN*128)); smem = stages * (16,384 + BN*128).
    const std::int64_t expected[][3] = {{32, 16, 12 * 18432},   // 221,184
                                        {64, 32, 11 * 20480},   // 225,280
                                        {128, 64, 9 * 24576},   // 221,184
                                        {256, 128, 6 * 32768},  // 196,608
                                        {512, 256, 4 * 49152}}; // 196,608
    const auto& cells = GemmBucketFamily::cells();
    ASSERT_EQ(cells.size(), 7u);
    EXPECT_EQ(cells[0].smemBytes, 98400);
    EXPECT_EQ(cells[1].smemBytes, 98400);
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(cells[i + 2].rows, expected[i][0]);
        EXPECT_EQ(cells[i + 2].blockN, expected[i][1]);
        EXPECT_EQ(cells[i + 2].smemBytes, expected[i][2]);
    }
}

struct CellRow {
    const char* m;
    std::int64_t cell;
    std::int64_t grid;
    std::int64_t threads;
    std::int64_t smem;
    double waste;
};

TEST(GemmBucket, EachCellsLaunchOnH100) {
    // Cells <= 16: grid 152 x block 224, 98,400 B. Larger: grid min(ceil(7168/BN), 132 SMs), block 256.
    const CellRow rows[] = {
        {"1", 8, 152, 224, 98400, 7.0 / 8},   {"5", 8, 152, 224, 98400, 3.0 / 8},
        {"16", 16, 152, 224, 98400, 0.0},     {"17", 32, 132, 256, 221184, 15.0 / 32},  // 448 tiles
        {"40", 64, 132, 256, 225280, 24.0 / 64},                                         // 224 tiles
        {"128", 128, 112, 256, 221184, 0.0},                                            // 7168/64 = 112
        {"200", 256, 56, 256, 196608, 56.0 / 256},                                      // 7168/128 = 56
        {"512", 512, 28, 256, 196608, 0.0},                                             // 7168/256 = 28
    };
    for (const auto& row : rows) {
        const LaunchPlan p = plan("gemm_bucket", "oproj", std::string("M=") + row.m, "h100-sxm");
        SCOPED_TRACE(row.m);
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        ASSERT_TRUE(p.bucketCell);
        EXPECT_EQ(*p.bucketCell, row.cell);
        EXPECT_EQ(p.grid, (Dim3{row.grid, 1, 1}));
        EXPECT_EQ(p.threadsPerBlock(), row.threads);
        EXPECT_EQ(p.dynamicSmem, row.smem);
        EXPECT_TRUE(p.optsIntoLargeSmem);
        EXPECT_DOUBLE_EQ(p.paddingWaste, row.waste);
        expectCompilerRegisters(p, device("h100-sxm"));
    }
}

TEST(GemmBucket, GridFollowsTheSmCount) {
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=32", "b200").grid.x, 148);  // min(448, 148 SMs)
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=8", "b200").grid.x, 152);   // small cells: fixed 152
}

TEST(GemmBucket, BigCellsFailOnA100) {
    // 221,184 B > A100's 166,912 B opt-in limit.
    const LaunchPlan p = plan("gemm_bucket", "oproj", "M=32", "a100-80gb-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.message, "CUDA error: invalid argument");
    EXPECT_EQ(limitName(p), "smem_per_block_optin");
    EXPECT_EQ(p.limit->limit, 166912);
    EXPECT_EQ(p.limit->actual, 221184);
    EXPECT_EQ(p.cudaError->name, "cudaErrorInvalidValue");
    EXPECT_EQ(p.fix, "nearest passing M: 16 (M=16,N=7168,K=8192); or chunk M into calls of at most 16 rows: the largest "
                     "cell whose shared memory fits this GPU's opt-in limit; or this shape runs on h100-sxm, h100-pcie, "
                     "h200, b200");
    // Every M in 17..512 fails there; on the consumer cards too (101,376 B).
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=512", "a100-80gb-sxm").verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=16", "rtx-5090").verdict, Verdict::Ok);  // 98,400 <= 101,376
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=17", "rtx-5090").verdict, Verdict::InvalidLaunch);
    // From 640 on A100 the nearest passing M is 16: 17..512 fail on shared memory, 513.. overflow.
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=640", "a100-80gb-sxm").fixShape.value()[0], 16);
}

TEST(GemmBucket, KAndNChecks) {
    const LaunchPlan k = plan("gemm_bucket", "oproj", "K=8000", "h100-sxm");
    EXPECT_EQ(k.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(k.message, "gemm_ar: K=8000 must be a multiple of 128");
    EXPECT_EQ(limitName(k), "K % 128");
    EXPECT_EQ(k.fixShape.value()[2], 7936);  // 62 x 128, 64 below; 8064 is 64 above: the smaller wins
    const LaunchPlan n = plan("gemm_bucket", "oproj", "N=7000", "h100-sxm");
    EXPECT_EQ(n.message, "gemm_ar: N=7000 must be a multiple of 256");
    EXPECT_EQ(limitName(n), "N % 256");
    EXPECT_EQ(n.fixShape.value()[1], 6912);  // 27 x 256 is 88 below; 7168 is 168 above
}

}  // namespace
}  // namespace tilescope

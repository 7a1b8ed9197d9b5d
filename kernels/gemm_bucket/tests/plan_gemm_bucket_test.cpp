// gemm_bucket against KERNELS.md section 4: M cells, per-cell launch, and the opt-in boundary.
#include <gtest/gtest.h>

#include "kernels/gemm_bucket/plan.h"
#include "tests/core/plan_rows.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::expectCompilerRegisters;
using test::limitName;
using test::plan;

// ---- shapes the planner refuses before any launch, one row each ---------------------------

class GemmBucketRefuses : public testing::TestWithParam<test::RefusalRow> {};

TEST_P(GemmBucketRefuses, WithUpstreamsMessageLimitAndFix) {
    test::expectRefusal("gemm_bucket", GetParam());
    // The planner's own refusals are no CUDA error; only a launch the runtime rejects is.
    if (!GetParam().cudaError) {
        EXPECT_FALSE(plan("gemm_bucket", GetParam().variant, GetParam().shape, GetParam().device).cudaError);
    }
}

// One row per case, as a table (clang-format would put every field on its own line).
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Rows, GemmBucketRefuses,
    testing::Values(
        test::RefusalRow{.name = "MAbove512", .variant = "oproj", .shape = "M=640", .verdict = Verdict::BucketOverflow,
                         .message = "gemm_ar: M=640 outside [1, 512]", .limit = "max_tokens", .limitValue = 512,
                         .actual = 640,
                         .fix = "nearest passing M: 512 (M=512,N=7168,K=8192); or chunk M into <= 512-row blocks: 2 "
                                "calls for M=640"},
        test::RefusalRow{.name = "MZero", .variant = "oproj", .shape = "M=0", .verdict = Verdict::BucketOverflow,
                         .message = "gemm_ar: M=0 outside [1, 512]", .fix = "nearest passing M: 1 (M=1,N=7168,K=8192)"},
        // 62 x 128, 64 below; 8064 is 64 above: the smaller wins.
        test::RefusalRow{.name = "KMultipleOf128", .variant = "oproj", .shape = "K=8000",
                         .message = "gemm_ar: K=8000 must be a multiple of 128", .limit = "K % 128", .fixParameter = 2,
                         .fixValue = 7936},
        // 27 x 256 is 88 below; 7168 is 168 above.
        test::RefusalRow{.name = "NMultipleOf256", .variant = "oproj", .shape = "N=7000",
                         .message = "gemm_ar: N=7000 must be a multiple of 256", .limit = "N % 256", .fixParameter = 1,
                         .fixValue = 6912},
        // 221,184 B > A100's 166,912 B opt-in limit.
        test::RefusalRow{.name = "BigCellsFailOnA100", .variant = "oproj", .shape = "M=32", .verdict = Verdict::InvalidLaunch,
                         .message = "CUDA error: invalid argument", .limit = "smem_per_block_optin", .limitValue = 166912,
                         .actual = 221184,
                         .fix = "nearest passing M: 16 (M=16,N=7168,K=8192); or chunk M into calls of at most 16 rows: the "
                                "largest cell whose shared memory fits this GPU's opt-in limit; or this shape runs on every "
                                "database GPU of sm_90, and on b200",
                         .device = "a100-80gb-sxm", .cudaError = "cudaErrorInvalidValue"}),
    test::rowName);
// clang-format on

TEST(GemmBucket, StageFormulaGivesKernelsMdFigures) {
    // gemm_ar.cuh d3_ns: stages = min(12, 225,280 / (16,384 + BN*128)); Launcher3::kSmem = stages * that.
    // d3_bn / Launcher3::kBN: BN = 16, 32 (swapped cells 32, 64), then 64, 128, 256.
    const std::int64_t expected[][4] = {{32, 16, 12, 12 * 18432},   // 221,184
                                        {64, 32, 11, 11 * 20480},   // 225,280
                                        {128, 64, 9, 9 * 24576},    // 221,184
                                        {256, 128, 6, 6 * 32768},   // 196,608
                                        {512, 256, 4, 4 * 49152}};  // 196,608
    const auto& cells = GemmBucketFamily::cells();
    ASSERT_EQ(cells.size(), 7u);
    // Launcher<M<=16>: S=6 stages of CH=2 chunks of 48 weight rows + 16 activation rows, plus 2*S mbarriers.
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(cells[i].small);
        EXPECT_EQ(cells[i].smemBytes, 98400);
        EXPECT_EQ(cells[i].threads, 224);  // kThreads = (kCWarps + 1) * 32
        EXPECT_EQ(cells[i].stages * cells[i].stageChunks * (cells[i].stageWeightRows + cells[i].stageActivationRows) * 128 + 2 * 6 * 8,
                  98400);
    }
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& c = cells[i + 2];
        SCOPED_TRACE(c.name);
        EXPECT_EQ(c.rows, expected[i][0]);
        EXPECT_EQ(c.blockN, expected[i][1]);
        EXPECT_EQ(c.stages, expected[i][2]);
        EXPECT_EQ(c.smemBytes, expected[i][3]);
        EXPECT_EQ(c.threads, 256);
    }
}

// What a stage's two parts hold: Launcher3 kSwap = M <= 64 puts W in the 16 KB (128-row) part.
struct StageRow {
    std::int64_t cell;
    bool swap;
    std::int64_t weightRows, activationRows, chunks;
};

TEST(GemmBucket, StageHoldsWeightRowsWhenSwapped) {
    const StageRow rows[] = {
        {8, false, 48, 16, 2},    {16, false, 48, 16, 2},  // oproj_ar_kernel: kBNRows = 48, Mp = 16, CH = 2
        {32, true, 128, 16, 1},   {64, true, 128, 32, 1},  // swapped: 128 weight rows + BN tokens
        {128, false, 64, 128, 1}, {256, false, 128, 128, 1}, {512, false, 256, 128, 1},
    };
    const auto& cells = GemmBucketFamily::cells();
    for (std::size_t i = 0; i < cells.size(); ++i) {
        SCOPED_TRACE(cells[i].name);
        EXPECT_EQ(cells[i].rows, rows[i].cell);
        EXPECT_EQ(cells[i].swap, rows[i].swap);
        EXPECT_EQ(cells[i].stageWeightRows, rows[i].weightRows);
        EXPECT_EQ(cells[i].stageActivationRows, rows[i].activationRows);
        EXPECT_EQ(cells[i].stageChunks, rows[i].chunks);
    }
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=20", "h100-sxm").note,
              "operands swapped: 112 tiles of 128 weight rows x 16 tokens on 112 CTAs (132 SMs); a stage holds 128 weight "
              "rows + 16 activation rows x 64 k, 12 stages");
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=300", "h100-sxm").note,
              "112 tiles of 128 tokens x 256 weight rows on 112 CTAs (132 SMs); a stage holds 256 weight rows + 128 "
              "activation rows x 64 k, 4 stages");
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=9", "h100-sxm").note,
              "N/8 = 896 column tiles spread over 152 CTAs (132 SMs), 5 or 6 per CTA; a stage holds 2 x (48 weight rows + "
              "16 activation rows) x 64 k, 6 stages");
}

struct CellRow {
    const char* m;
    std::int64_t cell;
    std::int64_t grid;
    std::int64_t tiles;
    bool swap;
    std::int64_t threads;
    std::int64_t smem;
    double waste;
};

TEST(GemmBucket, EachCellsLaunchOnH100) {
    // Cells <= 16: grid kM1Grid_() = 152 x block 224, 98,400 B, the N/8 = 896 column tiles spread over it.
    // Larger (Launcher3): tiles = swap ? (N/128)*(Mp/BN) : (Mp/128)*(N/BN), kGrid = min(tiles, 152), block 256.
    const CellRow rows[] = {
        {"1", 8, 152, 896, false, 224, 98400, 7.0 / 8},         {"5", 8, 152, 896, false, 224, 98400, 3.0 / 8},
        {"16", 16, 152, 896, false, 224, 98400, 0.0},           {"17", 32, 112, 112, true, 256, 221184, 15.0 / 32},  // 56 * 32/16
        {"40", 64, 112, 112, true, 256, 225280, 24.0 / 64},                                                          // 56 * 64/32
        {"128", 128, 112, 112, false, 256, 221184, 0.0},                                                             // 1 * 7168/64
        {"200", 256, 112, 112, false, 256, 196608, 56.0 / 256},                                                      // 2 * 7168/128
        {"512", 512, 112, 112, false, 256, 196608, 0.0},                                                             // 4 * 7168/256
    };
    for (const auto& row : rows) {
        const LaunchPlan p = plan("gemm_bucket", "oproj", std::string("M=") + row.m + ",N=7168,K=2048", "h100-sxm");
        SCOPED_TRACE(row.m);
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        ASSERT_TRUE(p.bucketCell);
        EXPECT_EQ(*p.bucketCell, row.cell);
        EXPECT_EQ(p.grid, (Dim3{row.grid, 1, 1}));
        EXPECT_EQ(p.workTiles, row.tiles);
        EXPECT_EQ(p.operandsSwapped, row.swap);
        EXPECT_EQ(p.threadsPerBlock(), row.threads);
        EXPECT_EQ(p.dynamicSmem, row.smem);
        EXPECT_TRUE(p.optsIntoLargeSmem);
        EXPECT_DOUBLE_EQ(p.paddingWaste, row.waste);
        expectCompilerRegisters(p, device("h100-sxm"));
    }
}

// The grid is upstream's min(tiles, 152) on every GPU: at N=7168 every cell >= 32 launches 112
// CTAs whether the device has 108, 132, 148 or 170 SMs (the old planner gave min(N/BN, SMs)).
struct GridRow {
    std::int64_t n;
    std::int64_t grid[7];  // cells 8 .. 512
};

TEST(GemmBucket, GridPerCellDoesNotFollowTheSmCount) {
    const std::int64_t cellsM[] = {8, 16, 32, 64, 128, 256, 512};
    const GridRow rows[] = {
        {7168, {152, 152, 112, 112, 112, 112, 112}},
        {4096, {152, 152, 64, 64, 64, 64, 64}},        // 32 strips x 2; 4096/64; 2 x 32; 4 x 16
        {256, {152, 152, 4, 4, 4, 4, 4}},              // N/8 = 32 column tiles: 120 CTAs get none
        {10240, {152, 152, 152, 152, 152, 152, 152}},  // 160 tiles everywhere: capped at 152
        {16384, {152, 152, 152, 152, 152, 152, 152}},  // 256 tiles
        {2304, {152, 152, 36, 36, 36, 36, 36}},        // 18 strips x 2; 2304/64; 2 x 18; 4 x 9
    };
    for (const char* dev : {"a100-80gb-sxm", "h100-sxm", "h100-pcie", "h200", "b200", "rtx-5090", "rtx-4090"}) {
        for (const auto& row : rows) {
            for (std::size_t i = 0; i < 7; ++i) {
                const std::string shape = "M=" + std::to_string(cellsM[i]) + ",N=" + std::to_string(row.n) + ",K=2048";
                const LaunchPlan p = plan("gemm_bucket", "oproj", shape, dev);
                SCOPED_TRACE(std::string(dev) + " " + shape);
                EXPECT_EQ(p.grid.x, row.grid[i]);  // set even where the launch then fails on shared memory
            }
        }
    }
}

TEST(GemmBucket, SwapBoundaryIsBetweenCells64And128) {
    const LaunchPlan at64 = plan("gemm_bucket", "oproj", "M=64,N=7168,K=2048", "h200");
    const LaunchPlan at65 = plan("gemm_bucket", "oproj", "M=65,N=7168,K=2048", "h200");
    EXPECT_TRUE(at64.operandsSwapped);
    EXPECT_FALSE(at65.operandsSwapped);
    EXPECT_EQ(at64.kernelSymbol, "gemm_bucket_bn32");
    EXPECT_EQ(at65.kernelSymbol, "gemm_bucket_bn64");
    EXPECT_FALSE(plan("gemm_bucket", "oproj", "M=16", "h200").operandsSwapped);  // small cells keep x as A
}

TEST(GemmBucket, EveryCellAbove16FailsOnA100AndTheConsumerCards) {
    // The M=32 row of GemmBucketRefuses: 221,184 B > A100's 166,912 B opt-in. Every M in 17..512
    // fails there; on the consumer cards too (101,376 B).
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=512", "a100-80gb-sxm").verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=16", "rtx-5090").verdict, Verdict::Ok);  // 98,400 <= 101,376
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=17", "rtx-5090").verdict, Verdict::InvalidLaunch);
    // From 640 on A100 the nearest passing M is 16: 17..512 fail on shared memory, 513.. overflow.
    EXPECT_EQ(plan("gemm_bucket", "oproj", "M=640", "a100-80gb-sxm").fixShape.value()[0], 16);
}

}  // namespace
}  // namespace tilescope

// awq_gemm against KERNELS.md section 2: gemm, legacy_grid_y and prefill.
#include <gtest/gtest.h>

#include "kernels/awq_gemm/plan.h"
#include "tests/core/plan_rows.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::expectCompilerRegisters;
using test::limitName;
using test::plan;

// ---- gemm -------------------------------------------------------------------------------

TEST(AwqGemm, WideTileWhenNIsAMultipleOf128) {
    const LaunchPlan p = plan("awq_gemm", "gemm", "M=16,N=4096,K=4096,group_size=128", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::Ok);
    EXPECT_EQ(p.tile, "m16n128k32");
    EXPECT_EQ(p.staticSmem, 10496);
    EXPECT_EQ(p.dynamicSmem, 0);
    EXPECT_EQ(p.block, (Dim3{32, 2, 1}));
    EXPECT_EQ(p.splitK, 8);
    EXPECT_EQ(p.grid, (Dim3{1 * (4096 / 128) * 8, 1, 1}));  // ceil(16/16) * N/128 * split_k = 256
    ASSERT_EQ(p.candidates.size(), 2u);
    EXPECT_EQ(p.tileIndex, 0);
    expectCompilerRegisters(p, device("h100-sxm"));
}

TEST(AwqGemm, NarrowTileWhenNIsOnlyAMultipleOf64) {
    // N=192: 192 % 128 = 64 -> m16n64k32; grid.x = 1 * 192/64 * 8 = 24.
    const LaunchPlan p = plan("awq_gemm", "gemm", "M=16,N=192,K=4096,group_size=64", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.tile, "m16n64k32");
    EXPECT_EQ(p.tileIndex, 1);
    EXPECT_EQ(p.staticSmem, 6144);
    EXPECT_EQ(p.grid, (Dim3{24, 1, 1}));
}

TEST(AwqGemm, SeedShapeFlattenedIntoGridX) {
    // M=32768, N=5376: ceil(32768/16) * 5376/128 * 8 = 2048 * 42 * 8 = 688,128 on grid.x: launches.
    const LaunchPlan p = plan("awq_gemm", "gemm", "M=32768,N=5376", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.grid, (Dim3{688128, 1, 1}));
    EXPECT_EQ(p.note, "at M >= 1024 AutoAWQ dequantizes and runs an fp16 matmul instead (vLLM from M >= 256)");
}

TEST(AwqGemm, PaddingWasteAndDispatchNote) {
    // M=17: two 16-row tiles, 15 of 32 rows padding.
    const LaunchPlan p = plan("awq_gemm", "gemm", "M=17", "h100-sxm");
    EXPECT_EQ(p.grid.x, 2 * 32 * 8);
    EXPECT_DOUBLE_EQ(p.paddingWaste, 15.0 / 32.0);
    EXPECT_TRUE(p.note.empty());
    EXPECT_EQ(plan("awq_gemm", "gemm", "M=256", "h100-sxm").note, "at M >= 256 vLLM dequantizes and runs an fp16 matmul instead");
}

// ---- shapes the three variants refuse, one row each --------------------------------------

class AwqGemmRefuses : public testing::TestWithParam<test::RefusalRow> {};

TEST_P(AwqGemmRefuses, WithUpstreamsMessageLimitAndFix) { test::expectRefusal("awq_gemm", GetParam()); }

// One row per case, as a table (clang-format would put every field on its own line).
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Rows, AwqGemmRefuses,
    testing::Values(
        // gemm: AutoAWQ's checks in its order.
        test::RefusalRow{.name = "GemmCtaN", .variant = "gemm", .shape = "N=4100",
                         .message = "OC is not multiple of cta_N = 64", .limit = "cta_N", .limitValue = 64,
                         .actual = 4100, .fix = "nearest passing N: 4096 (M=16,N=4096,K=4096,group_size=128)"},
        // 32 and 64 are both 16 away and both pass: the smaller wins.
        test::RefusalRow{.name = "GemmGroupSizeMultipleOf32", .variant = "gemm", .shape = "group_size=48",
                         .message = "Group size should be a multiple of 32", .limit = "group_size % 32",
                         .fix = "nearest passing group_size: 32 (M=16,N=4096,K=4096,group_size=32)"},
        // N=4160 = 65 x 64 passes cta_N but not N % 128; 4096 and 4224 are both 64 away.
        test::RefusalRow{.name = "GemmNMultipleOfGroup", .variant = "gemm", .shape = "N=4160,group_size=128",
                         .message = "OC is not multiple of Group size", .limit = "N % group_size", .fixParameter = 1,
                         .fixValue = 4096},
        test::RefusalRow{.name = "GemmKMultipleOfGroup", .variant = "gemm", .shape = "K=4160,group_size=128",
                         .message = "IC is not multiple of Group size (K=4160, group_size=128)",
                         .limit = "K % group_size"},
        // cta_N is checked first: N=100 fails cta_N although group 48 fails too.
        test::RefusalRow{.name = "GemmCtaNBeforeGroupSize", .variant = "gemm", .shape = "N=100,group_size=48",
                         .message = "OC is not multiple of cta_N = 64"},
        // M=0 or N=0: a zero grid.
        test::RefusalRow{.name = "GemmZeroM", .variant = "gemm", .shape = "M=0", .verdict = Verdict::InvalidLaunch,
                         .launchRejection = true, .limit = "min_grid_dim_x", .limitValue = 1, .actual = 0,
                         .fix = "nearest passing M: 1 (M=1,N=4096,K=4096,group_size=128)"},
        test::RefusalRow{.name = "GemmZeroN", .variant = "gemm", .shape = "N=0", .verdict = Verdict::InvalidLaunch},
        test::RefusalRow{.name = "LegacyOnlyThe128WideTile", .variant = "legacy_grid_y", .shape = "N=4160,group_size=64",
                         .message = "OC is not multiple of cta_N = 128", .limitValue = 128},
        // prefill: only AutoAWQ's WQLinear_GEMVFast asserts guard the shape (see OnlyGemvFastsAssertsGuardTheShape).
        test::RefusalRow{.name = "PrefillNMultipleOf8", .variant = "prefill", .shape = "N=4100",
                         .message = "AssertionError (AutoAWQ gemv_fast.py: assert out_features % (32 // self.w_bit) == 0)",
                         .limit = "N % 8"},
        test::RefusalRow{.name = "PrefillKMultipleOfGroup", .variant = "prefill", .shape = "K=4160",
                         .limit = "K % group_size"},
        test::RefusalRow{.name = "PrefillGroupSize128", .variant = "prefill", .shape = "group_size=64",
                         .message = "the prefill GEMM kernel only supports group size 128 (got 64)", .fixParameter = 3,
                         .fixValue = 128},
        // 73,728 B > T4's 65,536 B opt-in limit: a real cross-device boundary. M 65..128 share the
        // 73,728 B bucket; 129 (53,248 B) is 1 away, 64 is 64 away.
        test::RefusalRow{.name = "PrefillM128ExceedsT4OptIn", .variant = "prefill", .shape = "M=128",
                         .verdict = Verdict::InvalidLaunch, .message = "CUDA error: invalid argument",
                         .limit = "smem_per_block_optin", .limitValue = 65536, .actual = 73728,
                         .fix = "nearest passing M: 129 (M=129,N=4096,K=4096,group_size=128); or this shape runs on every "
                                "database GPU of sm_80, sm_86, sm_87, sm_89, sm_90, sm_120, and on b200, gb10",
                         .device = "t4", .cudaError = "cudaErrorInvalidValue", .cudaErrorCode = 1}),
    test::rowName);
// clang-format on

TEST(AwqGemm, GridXOverflowAtAbsurdM) {
    // ceil(2^24/16) * 2^20/128 * 8 = 2^20 * 2^13 * 2^3 = 2^36 > 2^31 - 1.
    const LaunchPlan p = plan("awq_gemm", "gemm", "M=16777216,N=1048576", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(limitName(p), "max_grid_dim_x");
    EXPECT_EQ(p.limit->limit, 2147483647);
    EXPECT_EQ(p.limit->actual, std::int64_t{1} << 36);
}

// ---- legacy_grid_y ----------------------------------------------------------------------

TEST(AwqGemmLegacy, SeedShapeOverflowsGridY) {
    // grid.y = ceil(32768/16) * 5376/128 = 2048 * 42 = 86,016 > 65,535 (llm-awq issue #7).
    const LaunchPlan p = plan("awq_gemm", "legacy_grid_y", "M=32768,N=5376", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.message, test::defaultLaunchRejection().message);
    EXPECT_EQ(p.grid, (Dim3{1, 86016, 8}));
    EXPECT_EQ(p.block, (Dim3{32, 2, 1}));
    EXPECT_EQ(p.staticSmem, 10496);
    EXPECT_EQ(limitName(p), "max_grid_dim_y");
    EXPECT_EQ(p.limit->limit, 65535);
    EXPECT_EQ(p.limit->actual, 86016);
    EXPECT_EQ(p.cudaError->name, test::defaultLaunchRejection().error.name);
    EXPECT_EQ(p.cudaError->code, test::defaultLaunchRejection().error.code);
    // Largest passing M: ceil(M/16) * 42 <= 65,535 -> ceil(M/16) <= 1,560 -> M <= 24,960.
    EXPECT_EQ(p.fix,
              "nearest passing M: 24960 (M=24960,N=5376,K=4096,group_size=128); or use the default gemm "
              "variant: upstream fixed this by flattening the grid into grid.x");
    EXPECT_EQ(plan("awq_gemm", "legacy_grid_y", "M=24960,N=5376", "h100-sxm").grid, (Dim3{1, 65520, 8}));
    EXPECT_EQ(plan("awq_gemm", "legacy_grid_y", "M=24961,N=5376", "h100-sxm").verdict, Verdict::InvalidLaunch);
    // The same limit on every device: no device suggestion.
    EXPECT_EQ(p.fix.find("runs on"), std::string::npos);
}

// ---- prefill ----------------------------------------------------------------------------

// KERNELS.md: smem = (CTA_M*CTA_K + CTA_N*CTA_K/4 + SCALES) * STAGES * 2,
// SCALES = (G >= CTA_K ? CTA_N/(G/CTA_K) : CTA_N*CTA_K/G) * STAGES * 2, with G = 128.
std::int64_t prefillSmemFormula(std::int64_t ctaM, std::int64_t ctaN, std::int64_t ctaK, std::int64_t stages) {
    constexpr std::int64_t g = 128;
    const std::int64_t scales = (g >= ctaK ? ctaN / (g / ctaK) : ctaN * ctaK / g) * stages * 2;
    return (ctaM * ctaK + ctaN * ctaK / 4 + scales) * stages * 2;
}

TEST(AwqGemmPrefill, BucketTableMatchesKernelsMd) {
    EXPECT_EQ(prefillSmemFormula(16, 128, 128, 4), 57344);  // (2048 + 4096 + 1024) * 8
    EXPECT_EQ(prefillSmemFormula(16, 128, 128, 3), 41472);  // (2048 + 4096 + 768) * 6
    EXPECT_EQ(prefillSmemFormula(32, 128, 128, 4), 73728);  // (4096 + 4096 + 1024) * 8
    EXPECT_EQ(prefillSmemFormula(64, 128, 64, 4), 53248);   // (4096 + 2048 + 512) * 8
    const auto& buckets = AwqGemmFamily::prefillBuckets();
    ASSERT_EQ(buckets.size(), 5u);
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(buckets[i].smemBytes, prefillSmemFormula(buckets[i].ctaM, buckets[i].ctaN, buckets[i].ctaK, buckets[i].stages)) << i;
    EXPECT_EQ(buckets[4].smemBytes, 50176);  // the > 192 row as KERNELS.md gives it
}

struct PrefillRow {
    const char* m;
    Dim3 grid;
    std::int64_t threads;
    std::int64_t smem;
    int splitK;
    bool optIn;
};

TEST(AwqGemmPrefill, EachBucketsLaunch) {
    // N=4096: grid = ceil(M/CTA_M) * 4096/128 * split_k; block (32, warps).
    const PrefillRow rows[] = {
        {"1", {1 * 32 * 2, 1, 1}, 256, 57344, 2, true}, {"32", {2 * 32 * 2, 1, 1}, 256, 57344, 2, true},
        {"64", {4 * 32, 1, 1}, 256, 41472, 1, false},  // 41,472 <= 49,152: no opt-in needed
        {"128", {4 * 32, 1, 1}, 256, 73728, 1, true},  // CTA_M 32
        {"192", {3 * 32, 1, 1}, 128, 53248, 1, true},  // CTA_M 64, 4 warps
        {"4096", {64 * 32, 1, 1}, 128, 50176, 1, true},
    };
    for (const auto& row : rows) {
        const LaunchPlan p = plan("awq_gemm", "prefill", std::string("M=") + row.m, "h100-sxm");
        EXPECT_EQ(p.verdict, Verdict::Ok) << row.m << ": " << p.message;
        EXPECT_EQ(p.grid, row.grid) << row.m;
        EXPECT_EQ(p.threadsPerBlock(), row.threads) << row.m;
        EXPECT_EQ(p.dynamicSmem, row.smem) << row.m;
        EXPECT_EQ(p.splitK, row.splitK) << row.m;
        EXPECT_EQ(p.optsIntoLargeSmem, row.optIn) << row.m;
        EXPECT_EQ(p.candidates.size(), 5u);
    }
}

// AutoAWQ_kernels awq_ext/quantization_new/gemm/gemm_cuda.cu line 39: threads_per_block(WARP_SIZE, NUM_WARPS).
TEST(AwqGemmPrefill, BlockIsThirtyTwoByWarps) {
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=32", "h100-sxm").block, (Dim3{32, 8, 1}));
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=128", "h100-sxm").block, (Dim3{32, 8, 1}));
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=192", "h100-sxm").block, (Dim3{32, 4, 1}));
    // line 1025 (the M > 192 kernel): threads_per_block(WARP_SIZE, NUM_WARPS) with 4 warps.
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=4096", "h100-sxm").block, (Dim3{32, 4, 1}));
}

// gemm_cuda.cu lines 37-38: j_factors1 = num_out_channels / CTA_N / 1 (rounded down), num_blocks =
// (num_out_feats + CTA_M - 1) / CTA_M * j_factors1 * SPLITK; lines 1023-1024 likewise without SPLITK.
TEST(AwqGemmPrefill, GridRoundsNTilesDown) {
    // N = 4160 = 32 x 128 + 64: 32 N tiles, not 33.
    const LaunchPlan p = plan("awq_gemm", "prefill", "M=256,N=4160", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.grid, (Dim3{4 * 32, 1, 1}));
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=16,N=4160", "h100-sxm").grid, (Dim3{1 * 32 * 2, 1, 1}));
    EXPECT_NE(p.note.find("rounded down"), std::string::npos);
    // N = 64: j_factors1 = 0, a zero grid.
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=16,N=64", "h100-sxm").verdict, Verdict::InvalidLaunch);
}

// gemm_forward_cuda_prefill (gemm_cuda.cu lines 929-1032) checks nothing; AutoAWQ's WQLinear_GEMVFast
// (awq/modules/linear/gemv_fast.py lines 80-85) asserts in_features % group_size, out_features % 8 and
// out_features % 4: so N = 4160 (not a multiple of 128, nor of cta_N's 64 with group 128) launches.
TEST(AwqGemmPrefill, OnlyGemvFastsAssertsGuardTheShape) {
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=256,N=4160", "h100-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=256,N=4168", "h100-sxm").verdict, Verdict::Ok);
    // The shapes those asserts refuse are rows of AwqGemmRefuses (PrefillNMultipleOf8, PrefillKMultipleOfGroup).
}

// gemm_cuda.cu lines 514-584: split 0 stores, later splits add into C under a semaphore: no
// [split_k, M, N] partials. Output traffic: one store, then a read and a store per later split.
TEST(AwqGemmPrefill, SplitKReducesInPlace) {
    const LaunchPlan p = plan("awq_gemm", "prefill", "M=32,N=4096,K=4096", "h100-sxm");
    ASSERT_EQ(p.splitK, 2);
    const double weights = 4096.0 * 4096 / 2, scalesAndZeros = 2 * 32.0 * 4096 * 2, activations = 32.0 * 4096 * 2;
    const double output = 32.0 * 4096 * 2;
    EXPECT_DOUBLE_EQ(p.bytesMoved, weights + scalesAndZeros + activations + 3 * output);
    EXPECT_EQ(p.deviceMemoryBytes, static_cast<std::int64_t>(weights + scalesAndZeros + activations + output + 2 * 32 * 4));
}

TEST(AwqGemmPrefill, SmallerBucketsFitT4) {
    // M=128 is refused on a T4 (AwqGemmRefuses' PrefillM128ExceedsT4OptIn); 64 and 32 fit.
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=64", "t4").verdict, Verdict::Ok);
    EXPECT_EQ(plan("awq_gemm", "prefill", "M=32", "t4").verdict, Verdict::Ok);  // 57,344 <= 65,536 with opt-in
}

}  // namespace
}  // namespace tilescope

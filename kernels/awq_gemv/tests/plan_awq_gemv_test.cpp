// awq_gemv against KERNELS.md section 1: every check, message, limit, fix and launch figure.
#include <gtest/gtest.h>

#include "tests/core/plan_rows.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::device;
using test::expectCompilerRegisters;
using test::limitName;
using test::plan;

// ---- gemv -------------------------------------------------------------------------------

TEST(AwqGemv, Batch1LaunchesWithOneWarpPerChannel) {
    for (const char* g : {"64", "128"}) {
        const LaunchPlan p = plan("awq_gemv", "gemv", std::string("M=1,N=4096,K=4096,group_size=") + g, "h100-sxm");
        EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
        EXPECT_TRUE(p.message.empty());
        EXPECT_FALSE(p.limit);
        EXPECT_TRUE(p.fix.empty());
        EXPECT_EQ(p.grid, (Dim3{1, 4096 / 4, 1}));  // grid (1, N/4, B)
        EXPECT_EQ(p.block, (Dim3{32, 4, 1}));
        EXPECT_EQ(p.staticSmem, 0);
        EXPECT_EQ(p.dynamicSmem, 0);
        EXPECT_EQ(p.kernelSymbol, "awq_gemv_kernel");
        expectCompilerRegisters(p, device("h100-sxm"));
    }
}

// ---- shapes both variants refuse, one row each ---------------------------------------------

class AwqGemvRefuses : public testing::TestWithParam<test::RefusalRow> {};

TEST_P(AwqGemvRefuses, WithUpstreamsMessageLimitAndFix) {
    test::expectRefusal("awq_gemv", GetParam());
    EXPECT_FALSE(plan("awq_gemv", GetParam().variant, GetParam().shape, GetParam().device).cudaError)
        << "a Python check, not a runtime error";
}

// One row per case, as a table (clang-format would put every field on its own line).
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Rows, AwqGemvRefuses,
    testing::Values(
        test::RefusalRow{.name = "GemvBatchAboveOne", .variant = "gemv", .shape = "M=8",
                         .message = "AWQ GEMV kernel only supports batch size 1 (got batch size 8); use a GEMM-packed "
                                    "checkpoint (quantization_config.version = \"gemm\")",
                         .limit = "batch_size", .limitValue = 1, .actual = 8,
                         .fix = "nearest passing M: 1 (M=1,N=4096,K=4096,group_size=128); or use awq_gemm: a GEMM-packed "
                                "checkpoint (quantization_config.version = \"gemm\") accepts any batch",
                         .fixParameter = 0, .fixValue = 1},
        test::RefusalRow{.name = "GemvBatchZero", .variant = "gemv", .shape = "M=0", .messageHas = "(got batch size 0)"},
        // The batch check comes before the group size.
        test::RefusalRow{.name = "GemvBatchBeforeGroupSize", .variant = "gemv", .shape = "M=2,group_size=32",
                         .limit = "batch_size"},
        // 1..63 all fail, 64 is the first passing value above.
        test::RefusalRow{.name = "GemvGroupSize32", .variant = "gemv", .shape = "group_size=32",
                         .message = "Unsupported group size for gemv kernel.", .limit = "group_size", .actual = 32,
                         .fix = "nearest passing group_size: 64 (M=1,N=4096,K=4096,group_size=64)"},
        // 100: 64 is 36 below, 128 is 28 above.
        test::RefusalRow{.name = "GemvGroupSize100", .variant = "gemv", .shape = "group_size=100", .fixParameter = 3,
                         .fixValue = 128},
        // 4000 = 125 x 32, 10 below.
        test::RefusalRow{.name = "GemvKMultipleOf32", .variant = "gemv", .shape = "K=4010",
                         .message = "K must be a multiple of 32 for the GEMV kernel's 16-byte loads (got K=4010)",
                         .limit = "K % 32", .fix = "nearest passing K: 4000 (M=1,N=4096,K=4000,group_size=128)"},
        // 4096 and 4100 are both 2 away: the smaller wins the tie.
        test::RefusalRow{.name = "GemvNMultipleOf4", .variant = "gemv", .shape = "N=4098",
                         .message = "N must be a multiple of 4, one warp per output channel (got N=4098)",
                         .limit = "N % 4", .fix = "nearest passing N: 4096 (M=1,N=4096,K=4096,group_size=128)"},
        test::RefusalRow{.name = "FastBatch8", .variant = "gemv_fast", .shape = "M=8",
                         .message = "Unsupported batch size for gemv kernel.", .limit = "batch_size", .limitValue = 7,
                         .actual = 8,
                         .fix = "nearest passing M: 7 (M=7,N=4096,K=4096,group_size=128); or use awq_gemm: upstream sends "
                                "8 or more rows to a GEMM kernel (gemv_fast is chosen only for batch < 8 and one token)"},
        test::RefusalRow{.name = "FastBatchZero", .variant = "gemv_fast", .shape = "M=0",
                         .message = "Unsupported batch size for gemv kernel."},
        test::RefusalRow{.name = "FastGroupSize64", .variant = "gemv_fast", .shape = "group_size=64",
                         .message = "Unsupported group size for gemv kernel.", .limit = "group_size", .limitValue = 128,
                         .fix = "nearest passing group_size: 128 (M=1,N=4096,K=4096,group_size=128)"},
        // 3968 and 4032 are both 32 away: the smaller wins.
        test::RefusalRow{.name = "FastKMultipleOf64", .variant = "gemv_fast", .shape = "K=4000",
                         .message = "K must be a multiple of 64 for the gemv_fast kernel (got K=4000)", .limit = "K % 64",
                         .fixParameter = 2, .fixValue = 3968},
        test::RefusalRow{.name = "FastNMultipleOf8", .variant = "gemv_fast", .shape = "N=4100",
                         .message = "N must be a multiple of 8 for the gemv_fast kernel (got N=4100)", .limit = "N % 8",
                         .fixParameter = 1, .fixValue = 4096}),
    test::rowName);
// clang-format on

TEST(AwqGemv, GridYAbove65535IsInvalidLaunch) {
    // grid.y = N/4 = 262144/4 = 65,536 > max_grid_dim_y 65,535.
    const LaunchPlan p = plan("awq_gemv", "gemv", "N=262144", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.message, test::defaultLaunchRejection().message);
    EXPECT_EQ(limitName(p), "max_grid_dim_y");
    EXPECT_EQ(p.limit->limit, 65535);
    EXPECT_EQ(p.limit->actual, 65536);
    ASSERT_TRUE(p.cudaError);
    EXPECT_EQ(p.cudaError->name, test::defaultLaunchRejection().error.name);
    EXPECT_EQ(p.cudaError->code, test::defaultLaunchRejection().error.code);
    EXPECT_EQ(p.grid, (Dim3{1, 65536, 1}));
    // 262,140 / 4 = 65,535: the largest N that launches.
    EXPECT_EQ(p.fix, "nearest passing N: 262140 (M=1,N=262140,K=4096,group_size=128)");
    EXPECT_EQ(plan("awq_gemv", "gemv", "N=262140", "h100-sxm").verdict, Verdict::Ok);
}

// ---- gemv_fast --------------------------------------------------------------------------

TEST(AwqGemvFast, Batch1To7Launch) {
    for (int b = 1; b <= 7; ++b) {
        const LaunchPlan p = plan("awq_gemv", "gemv_fast", "M=" + std::to_string(b), "h100-sxm");
        EXPECT_EQ(p.verdict, Verdict::Ok) << b;
        EXPECT_EQ(p.grid, (Dim3{4096 / 8, 1, 1}));  // grid N/8
        EXPECT_EQ(p.block, (Dim3{256, 1, 1}));
        EXPECT_EQ(p.staticSmem, 512 * b);  // 512 x B bytes
        EXPECT_EQ(p.dynamicSmem, 0);
        EXPECT_EQ(p.kernelSymbol, "awq_gemv_fast_b" + std::to_string(b));
        expectCompilerRegisters(p, device("h100-sxm"));
    }
}

// The static smem is llm-awq's declaration (awq/kernels/csrc/quantization_new/gemv/gemv_cuda.cu, line 111:
// `__shared__ float out_smem[BlockSize / WARP_SIZE * 2][Num * kInterleave]`, BlockSize 256, Num = N_PER_BLOCK 2
// x Batch, kInterleave 4), the one KERNELS.md pins. AutoAWQ_kernels' copy of the kernel
// (awq_ext/quantization_new/gemv/gemv_cuda.cu, lines 123-124) declares `extern __shared__` instead and
// launches with no dynamic smem (line 285): 0 bytes there.
TEST(AwqGemvFast, StaticSmemIsLlmAwqsOutSmemDeclaration) {
    constexpr int kBlockSize = 256, kWarpSize = 32, kNPerBlock = 2, kInterleave = 4;
    for (int b = 1; b <= 7; ++b) {
        const LaunchPlan p = plan("awq_gemv", "gemv_fast", "M=" + std::to_string(b), "h100-sxm");
        const int declared = (kBlockSize / kWarpSize * 2) * (kNPerBlock * b * kInterleave) * static_cast<int>(sizeof(float));
        EXPECT_EQ(p.staticSmem, declared) << b;
        EXPECT_EQ(p.grid, (Dim3{4096 / (kNPerBlock * kInterleave), 1, 1}));  // n / N_PER_BLOCK / K_INTERLEAVE (llm-awq line 277)
    }
}

TEST(AwqGemv, HugeShapeIsOutOfMemoryNotOverflow) {
    // N=2^20, K=2^20: 2^40 / 2 B of 4-bit weights = 512 GiB > 80 GiB.
    const LaunchPlan p = plan("awq_gemv", "gemv", "N=1048572,K=1048576", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);  // grid.y = 262,143 is checked before memory
    const LaunchPlan q = plan("awq_gemv", "gemv_fast", "N=1048576,K=1048576", "h100-sxm");
    EXPECT_EQ(q.verdict, Verdict::OutOfMemory);
    EXPECT_EQ(q.message, "CUDA error: out of memory");
    EXPECT_EQ(limitName(q), "memory_bytes");
    EXPECT_EQ(q.cudaError->code, 2);
}

}  // namespace
}  // namespace tilescope

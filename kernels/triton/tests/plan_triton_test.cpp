// triton: the pipeliner's shared-memory formula against the figure Triton itself printed, Triton's
// OutOfResources texts, the verdict per database GPU, the fix, and no invented registers.
#include <gtest/gtest.h>

#include <ostream>

#include "kernels/triton/plan.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// triton-lang/triton PR #1561 (2023-04-21): the matmul tutorial at BLOCK_SIZE_M=128, BLOCK_SIZE_N=256,
// BLOCK_SIZE_K=64, num_stages=4, num_warps=4, fp16 on an A100 printed
// "out of resource: shared memory, Required: 196608, Hardware limit: 166912. Reducing block sizes or `num_stages` may help."
constexpr std::string_view kPr1561 = "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,num_stages=4,num_warps=4,dtype_bytes=2";
constexpr std::string_view kPr1561Printed =
    "out of resource: shared memory, Required: 196608, Hardware limit: 166912. Reducing block sizes or `num_stages` may help.";

TEST(TritonSmem, FormulaGivesTheFigureTritonPrintedInPr1561) { EXPECT_EQ(TritonFamily::pipelinedSmemBytes(128, 256, 64, 4, 2), 196608); }

TEST(TritonSmem, ScalesWithStagesBlocksAndElementSize) {
    EXPECT_EQ(TritonFamily::pipelinedSmemBytes(128, 256, 64, 3, 2), 147456);
    EXPECT_EQ(TritonFamily::pipelinedSmemBytes(128, 256, 32, 4, 2), 98304);
    EXPECT_EQ(TritonFamily::pipelinedSmemBytes(64, 64, 32, 2, 1), 8192);
    EXPECT_EQ(TritonFamily::pipelinedSmemBytes(64, 64, 32, 2, 4), 32768);
}

TEST(TritonPlan, Pr1561ConfigFailsOnA100WithTritonsExactText) {
    const LaunchPlan p = plan("triton", "", kPr1561, "a100-80gb-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.message, kPr1561Printed);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->name, "smem_per_block_optin");
    EXPECT_EQ(p.limit->limit, 166912);
    EXPECT_EQ(p.limit->actual, 196608);
    EXPECT_FALSE(p.cudaError) << "Triton raises before any launch: no CUDA error";
    EXPECT_TRUE(p.hasLaunch()) << "the launch Triton would make, refused";
    EXPECT_EQ(p.dynamicSmem, 196608);
    // The fix: the largest num_stages that fits, and smaller blocks at the stages asked for.
    ASSERT_TRUE(p.fixShape);
    EXPECT_EQ((*p.fixShape)[TritonFamily::NumStages], 3);
    EXPECT_NE(p.fix.find("nearest passing num_stages: 3"), std::string::npos) << p.fix;
    EXPECT_NE(p.fix.find("num_stages=3 is the largest that fits (147,456 B of 166,912 B)"), std::string::npos) << p.fix;
    EXPECT_NE(p.fix.find("keeping num_stages=4: BLOCK_K=32 (98,304 B)"), std::string::npos) << p.fix;
    EXPECT_NE(p.fix.find("every database GPU of sm_90"), std::string::npos) << "232,448 B opt-in on Hopper fits 196,608: " << p.fix;
}

TEST(TritonPlan, Pr1561ConfigWithThreeStagesLaunchesOnA100) {
    const LaunchPlan p =
        plan("triton", "", "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,num_stages=3,num_warps=4,M=4096,N=4096,K=4096", "a100-80gb-sxm");
    ASSERT_TRUE(p.ok()) << p.message;
    EXPECT_EQ(p.dynamicSmem, 147456);
    EXPECT_TRUE(p.optsIntoLargeSmem);
    EXPECT_EQ(p.grid, (Dim3{32 * 16, 1, 1}));  // cdiv(4096, 128) x cdiv(4096, 256)
    EXPECT_EQ(p.block, (Dim3{128, 1, 1}));
    // Registers are Triton's: unknown, and no occupancy is claimed from them.
    EXPECT_FALSE(p.registers);
    EXPECT_FALSE(p.occupancy);
    EXPECT_NE(p.note.find("registers are Triton's choice (unknown here)"), std::string::npos) << p.note;
}

TEST(TritonPlan, GridRoundsUpPartialTiles) {
    const LaunchPlan p = plan("triton", "", "M=1000,N=300,K=64,BLOCK_M=64,BLOCK_N=128,BLOCK_K=32,num_stages=2", "h100-sxm");
    ASSERT_TRUE(p.ok()) << p.message;
    EXPECT_EQ(p.grid.x, 16 * 3);
}

// The tutorial's first autotuner config (128 x 256 x 64, 3 stages, 8 warps, fp16: 147,456 B) on every
// GPU whose opt-in limit the database holds: what an autotuner should not try where it fails.
struct DeviceRow {
    std::string_view device;
    bool launches;
    std::int64_t hardwareLimit;
};

// What gtest prints for a row, and ctest lists beside the test's name: the row's fields, not its
// raw bytes (which held pointers, so the listed names changed from run to run).
void PrintTo(const DeviceRow& row, std::ostream* os) {
    *os << row.device << (row.launches ? " launches" : " refuses") << ", limit " << row.hardwareLimit;
}

class TritonPerDevice : public testing::TestWithParam<DeviceRow> {};

TEST_P(TritonPerDevice, VerdictAndTheLimitTritonPrints) {
    const DeviceRow row = GetParam();
    const LaunchPlan p = plan("triton", "", "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,num_stages=3,num_warps=8", row.device);
    EXPECT_EQ(p.ok(), row.launches) << p.message;
    if (!row.launches) {
        EXPECT_EQ(p.message, tritonOutOfResourcesText("shared memory", 147456, row.hardwareLimit));
    }
}

// One row per case, as a table (clang-format would put every field on its own line).
// clang-format off
INSTANTIATE_TEST_SUITE_P(Devices, TritonPerDevice,
                         testing::Values(DeviceRow{"t4", false, 65536}, DeviceRow{"a100-80gb-sxm", true, 166912},
                                         DeviceRow{"l4", false, 101376}, DeviceRow{"rtx-4090", false, 101376},
                                         DeviceRow{"h100-sxm", true, 232448}, DeviceRow{"h200", true, 232448},
                                         DeviceRow{"b200", true, 232448}, DeviceRow{"rtx-5090", false, 101376}),
                         [](const testing::TestParamInfo<DeviceRow>& row) {
                             std::string name(row.param.device);
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });
// clang-format on

TEST(TritonPlan, MoreThan32WarpsFailsTritonsThreadsCheck) {
    const LaunchPlan p = plan("triton", "", "BLOCK_M=64,BLOCK_N=64,BLOCK_K=32,num_stages=2,num_warps=64", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(p.message, "out of resource: threads, Required: 2048, Hardware limit: 1024. Reducing block sizes or `num_stages` may help.");
    EXPECT_EQ(p.failingParameter, TritonFamily::NumWarps);
    ASSERT_TRUE(p.fixShape);
    EXPECT_EQ((*p.fixShape)[TritonFamily::NumWarps], 32);
}

TEST(TritonPlan, BlockNotAPowerOfTwoIsTritonsArangeError) {
    const LaunchPlan p = plan("triton", "", "BLOCK_K=48", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "arange's range must be a power of 2");
    EXPECT_EQ(p.failingParameter, TritonFamily::BlockK);
    ASSERT_TRUE(p.fixShape);
    EXPECT_EQ((*p.fixShape)[TritonFamily::BlockK], 32);  // 32 and 64 are 16 away; the smaller wins
}

TEST(TritonPlan, ElementSizeOtherThan124IsRefused) {
    const LaunchPlan p = plan("triton", "", "dtype_bytes=3", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.failingParameter, TritonFamily::DtypeBytes);
}

TEST(TritonPlan, StagesCandidatesMarkWhatFits) {
    const LaunchPlan p = plan("triton", "", kPr1561, "a100-80gb-sxm");
    ASSERT_EQ(p.candidates.size(), 8u);
    EXPECT_EQ(p.candidates[2].name, "num_stages=3");
    EXPECT_TRUE(p.candidates[2].fits);
    EXPECT_FALSE(p.candidates[3].fits);
    EXPECT_EQ(p.candidates[3].smemBytes, 196608);
    EXPECT_EQ(p.tile, "num_stages=4");
}

TEST(TritonFamilyInfo, HasNoDeviceCode) { EXPECT_FALSE(test::kernel("triton", "").family->hasDeviceCode()); }

}  // namespace
}  // namespace tilescope

// The block check-launch gives a reported kernel whose report has none (a ptxas entry), worked by
// hand from the register rule of core/model/launch_checks.cpp (KERNELS.md "Device limits"):
//   registers per warp = registers x 32 rounded up to the allocation unit of 256;
//   a block's warps are checked rounded up to a multiple of the 4 register sub-partitions;
//   the block fits when (registers per warp) x (checked warps) <= regs_per_block (65,536 on every
//   database GPU; threads per block at most 1,024).
// Register counts are ptxas -v figures of tests/data/ptxas (this project's sm_90 build and the
// small nvcc compile there), plus 100, a count where the allocation unit alone moves the answer.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "core/model/fitting_block.h"
#include "test_support.h"

namespace tilescope {
namespace {

struct FittingBlockCase {
    std::int64_t registers;
    std::int64_t block;
    const char* working;
};

void PrintTo(const FittingBlockCase& c, std::ostream* os) { *os << c.registers << " registers"; }

std::string caseName(const ::testing::TestParamInfo<FittingBlockCase>& info) { return "Registers" + std::to_string(info.param.registers); }

class LargestBlockWhoseRegistersFit : public ::testing::TestWithParam<FittingBlockCase> {};

const KernelFamily& launchFamily() {
    const KernelFamily* family = builtinKernels().launchFiguresFamily();
    if (!family) throw std::logic_error("no family takes a launch's own figures");
    return *family;
}

Shape withRegisters(std::int64_t registers) {
    const KernelFamily& family = launchFamily();
    Shape shape = Shape::defaults(family.parameters());
    shape[family.launchFigureParameters()->registers] = registers;
    return shape;
}

TEST_P(LargestBlockWhoseRegistersFit, OnEveryDatabaseArchitecture) {
    const FittingBlockCase& c = GetParam();
    SCOPED_TRACE(c.working);
    // One device per compute capability the database has a 64K register file and 1,024 threads for.
    for (const char* id : {"t4", "a100-80gb-sxm", "a10", "l4", "h100-sxm", "b200", "rtx-5090"}) {
        const DeviceSpec& device = test::device(id);
        ASSERT_EQ(device.regsPerBlock, 65536) << id;
        ASSERT_EQ(device.maxThreadsPerBlock, 1024) << id;
        EXPECT_EQ(largestBlockWhoseRegistersFit(launchFamily(), withRegisters(c.registers), device), c.block) << id;
    }
}

INSTANTIATE_TEST_SUITE_P(
    HandWorked, LargestBlockWhoseRegistersFit,
    ::testing::Values(FittingBlockCase{40, 1024, "40 x 32 = 1,280 per warp: 51 warps fit, the 1,024-thread limit decides"},
                      FittingBlockCase{64, 1024, "64 x 32 = 2,048 per warp: 32 warps x 2,048 = 65,536 exactly"},
                      FittingBlockCase{80, 768, "2,560 per warp: 25 warps fit, checked as 28 (x 2,560 = 71,680 > 65,536): 24 warps"},
                      FittingBlockCase{100, 512,
                                       "3,200 rounds up to 3,328 per warp: 17 to 20 warps are checked as 20 (66,560 > 65,536): 16 warps "
                                       "(without the unit 20 x 3,200 = 64,000 would give 640)"},
                      FittingBlockCase{104, 512, "3,328 per warp: 19 warps fit, checked as 20 (66,560 > 65,536): 16 warps"},
                      FittingBlockCase{159, 384, "5,088 rounds up to 5,120 per warp: 12 warps (61,440) fit, 13 are checked as 16"},
                      FittingBlockCase{255, 256, "8,160 rounds up to 8,192 per warp: 8 warps = 65,536 exactly"}),
    caseName);

// Only out_of_resources makes a size too large. 64 KB of dynamic shared memory without the opt-in
// passes the 48 KB default, a rule checked before the registers', so every size fails on it and the
// search stops at the first, the 1,024-thread limit (check-launch opts such a kernel in first).
TEST(LargestBlockWhoseRegistersFitOnly, AFailureBeforeTheRegisterRuleGivesTheThreadLimit) {
    const KernelFamily& family = launchFamily();
    const LaunchFigureParameters& figures = *family.launchFigureParameters();
    Shape shape = withRegisters(80);
    shape[figures.dynamicSmem] = 65536;
    shape[figures.smemOptin] = 0;
    const DeviceSpec& h100 = test::device("h100-sxm");
    EXPECT_EQ(largestBlockWhoseRegistersFit(family, shape, h100), 1024);
    shape[figures.smemOptin] = 1;  // within the 232,448 B opt-in limit: the registers decide again
    EXPECT_EQ(largestBlockWhoseRegistersFit(family, shape, h100), 768);
}

// The block's y and z go to 1 whatever the shape held: the search is along x only. (Kept at 2 x 2,
// x = 1,024 would break the block limit before the register rule, and 1,024 would come back.)
TEST(LargestBlockWhoseRegistersFitOnly, SearchesAlongXOnly) {
    const KernelFamily& family = launchFamily();
    Shape shape = withRegisters(255);
    shape[family.launchFigureParameters()->blockY] = 2;
    shape[family.launchFigureParameters()->blockZ] = 2;
    EXPECT_EQ(largestBlockWhoseRegistersFit(family, shape, test::device("h100-sxm")), 256);
}

// A device file may give a smaller register file than any database GPU: at 16,384 registers per block,
// 255 registers (8,192 per warp, one warp checked as 4: 32,768) fit no block, and the warp size comes back.
TEST(LargestBlockWhoseRegistersFitOnly, NoneFitsGivesTheWarpSize) {
    DeviceSpec small = test::device("h100-sxm");
    small.regsPerBlock = 16384;
    EXPECT_EQ(largestBlockWhoseRegistersFit(launchFamily(), withRegisters(255), small), 32);
    EXPECT_EQ(largestBlockWhoseRegistersFit(launchFamily(), withRegisters(64), small), 256);  // 2,048 x 8 warps = 16,384
}

}  // namespace
}  // namespace tilescope

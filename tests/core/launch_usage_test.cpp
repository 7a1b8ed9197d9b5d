#include "core/series/launch_usage.h"

#include <gtest/gtest.h>

#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "kernels/builtin_kernels.h"

using namespace tilescope;

namespace {

const LaunchUsage& row(const std::vector<LaunchUsage>& rows, const std::string& label) {
    for (const auto& r : rows)
        if (r.label == label) return r;
    throw std::runtime_error("no row " + label);
}

}  // namespace

TEST(LaunchUsage, LegacyGridYIsOverItsLimit) {
    auto kernel = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y");
    ASSERT_TRUE(kernel);
    const DeviceSpec& device = *DeviceDatabase::embedded().find("h100-sxm");
    auto shape = parseShape("M=32768,N=5376,K=4096,group_size=128", kernel->family->parameters());
    ASSERT_TRUE(shape);
    const LaunchPlan plan = planWithFix(*kernel, *shape, device, nullptr);
    const auto rows = launchUsage(plan, device);
    const LaunchUsage& gridY = row(rows, "grid.y");
    EXPECT_EQ(gridY.limitName, "max_grid_dim_y");
    EXPECT_EQ(*gridY.value, 86016);
    EXPECT_EQ(*gridY.limit, 65535);
    EXPECT_TRUE(gridY.over());
    EXPECT_FALSE(row(rows, "grid.x").over());
    EXPECT_EQ(*row(rows, "threads per block").value, 64);
    EXPECT_EQ(*row(rows, "static shared memory").value, 10496);
    EXPECT_EQ(row(rows, "shared memory per block").limitName, "smem_per_block");
    // Registers come from the compiler's table; a plan that does not launch has no waves.
    ASSERT_TRUE(plan.registers);
    EXPECT_EQ(*row(rows, "registers per thread").value, *plan.registers);
    EXPECT_TRUE(row(rows, "registers per thread").fraction().has_value());
    EXPECT_FALSE(row(rows, "waves").limit.has_value());
    // Issue #15 item 5: the waves row said "needs the register count" beside a known register count.
    EXPECT_FALSE(row(rows, "waves").value.has_value());
    EXPECT_EQ(row(rows, "waves").unknownWhy.find("register"), std::string::npos);
    EXPECT_NE(row(rows, "waves").unknownWhy.find("invalid_launch"), std::string::npos);
}

// Issue #15 item 3: at M=0 legacy_grid_y's grid.y is 0; the Launch chart drew it at 0 % in blue and
// the fix offered the default gemm variant, which fails at M=0 too.
TEST(LaunchUsage, AnEmptyGridDimensionFailsAndOffersNoVariantThatAlsoFails) {
    auto kernel = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y");
    ASSERT_TRUE(kernel);
    const DeviceSpec& device = *DeviceDatabase::embedded().find("h100-sxm");
    auto shape = parseShape("M=0,N=5376,K=4096,group_size=128", kernel->family->parameters());
    ASSERT_TRUE(shape);
    const LaunchPlan plan = planWithFix(*kernel, *shape, device, nullptr);
    ASSERT_FALSE(plan.ok());
    ASSERT_TRUE(plan.limit);
    EXPECT_EQ(plan.limit->name, "min_grid_dim_y");
    EXPECT_EQ(plan.fix.find("default gemm variant"), std::string::npos) << plan.fix;
    const auto rows = launchUsage(plan, device);
    const LaunchUsage& gridY = row(rows, "grid.y");
    EXPECT_EQ(*gridY.value, 0);
    EXPECT_FALSE(gridY.over());
    EXPECT_TRUE(gridY.under());
    EXPECT_TRUE(gridY.fails());
    EXPECT_FALSE(row(rows, "grid.x").fails());
    // Past grid.y's ceiling the flattened grid is still offered.
    auto large = parseShape("M=32768,N=5376,K=4096,group_size=128", kernel->family->parameters());
    ASSERT_TRUE(large);
    EXPECT_NE(planWithFix(*kernel, *large, device, nullptr).fix.find("default gemm variant"), std::string::npos);
}

// Issue #15 item 5: 65,536 of 65,535 read "100.0 %", as if within the limit.
TEST(LaunchUsage, PercentTextNeverRoundsAFigureOverItsLimitDownToTheLimit) {
    LaunchUsage justOver{"grid.z", "max_grid_dim_z", 65536.0, 65535.0, "blocks"};
    EXPECT_TRUE(justOver.over());
    EXPECT_EQ(justOver.percentText(), "100.002 %");
    LaunchUsage atLimit{"grid.z", "max_grid_dim_z", 65535.0, 65535.0, "blocks"};
    EXPECT_EQ(atLimit.percentText(), "100.0 %");
    LaunchUsage justUnder{"grid.z", "max_grid_dim_z", 65534.0, 65535.0, "blocks"};
    EXPECT_EQ(justUnder.percentText(), "100.0 %");  // rounds up to, never past, the limit
    LaunchUsage half{"block.x", "max_block_dim_x", 512.0, 1024.0, "threads"};
    EXPECT_EQ(half.percentText(), "50.0 %");
    LaunchUsage tiny{"grid.y", "max_grid_dim_y", 1.0, 65535.0, "blocks"};
    EXPECT_EQ(tiny.percentText(), "0.002 %");
    LaunchUsage unknown{"registers per thread", "max_regs_per_thread", std::nullopt, 255.0, "registers"};
    EXPECT_EQ(unknown.percentText(), "");
}

TEST(LaunchUsage, OptInPlansAreMeasuredAgainstTheOptInCeiling) {
    auto kernel = resolveKernel(builtinKernels(), "gemm_bucket", "");
    ASSERT_TRUE(kernel);
    const DeviceSpec& device = *DeviceDatabase::embedded().find("h100-sxm");
    auto shape = parseShape("M=300", kernel->family->parameters());
    ASSERT_TRUE(shape);
    const LaunchPlan plan = kernel->family->plan(kernel->variant, *shape, device, PlanDetail::Full);
    ASSERT_TRUE(plan.optsIntoLargeSmem);
    const auto rows = launchUsage(plan, device);
    const LaunchUsage& total = row(rows, "shared memory per block");
    EXPECT_EQ(total.limitName, "smem_per_block_optin");
    EXPECT_EQ(*total.limit, static_cast<double>(device.smemPerBlockOptin));
    EXPECT_NEAR(*total.fraction(), static_cast<double>(plan.totalSmem()) / static_cast<double>(device.smemPerBlockOptin), 1e-12);
}

// Issue #15 item 4: at group_size=138 the planner refuses before choosing a kernel, yet the Launch
// page drew a 1x1x1 launch "within limit" with "no ptxas register table" beside it.
TEST(LaunchUsage, APlanRefusedBeforeItChoosesAKernelHasNoLaunchToShow) {
    const DeviceSpec& device = *DeviceDatabase::embedded().find("h100-sxm");
    for (const char* variant : {"gemm", "prefill"}) {
        auto kernel = resolveKernel(builtinKernels(), "awq_gemm", variant);
        ASSERT_TRUE(kernel);
        auto shape = parseShape("M=16,N=4096,K=4096,group_size=138", kernel->family->parameters());
        ASSERT_TRUE(shape);
        const LaunchPlan plan = planWithFix(*kernel, *shape, device, nullptr);
        EXPECT_FALSE(plan.ok()) << variant;
        EXPECT_FALSE(plan.hasLaunch()) << variant;
        EXPECT_TRUE(launchUsage(plan, device).empty()) << variant;
    }
    // A launch that the runtime refuses is still a launch, drawn with its failing bar.
    auto legacy = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y");
    auto large = parseShape("M=32768,N=5376,K=4096,group_size=128", legacy->family->parameters());
    const LaunchPlan refused = planWithFix(*legacy, *large, device, nullptr);
    EXPECT_TRUE(refused.hasLaunch());
    EXPECT_FALSE(launchUsage(refused, device).empty());
}

// Issue 31 item 4: a custom launch with 65,536 B of static shared memory is refused before it has a
// launch; the Shared memory page drew "static 0 B + dynamic 0 B". Core says which bytes were refused
// (the page tested the limit's name itself).
TEST(LaunchUsage, RefusedSharedMemoryIsTheBytesAskedFor) {
    const DeviceSpec& device = *DeviceDatabase::embedded().find("h100-sxm");
    auto custom = resolveKernel(builtinKernels(), "custom", "launch");
    ASSERT_TRUE(custom) << custom.error();
    auto shape = parseShape("registers=14,static_smem=65536", custom->family->parameters());
    ASSERT_TRUE(shape);
    const LaunchPlan plan = planWithFix(*custom, *shape, device, nullptr);
    ASSERT_FALSE(plan.hasLaunch());
    const auto refused = refusedSharedMemory(plan);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->actual, 65536);
    EXPECT_EQ(refused->limit, device.smemPerBlock);
    // A refusal about something else (group_size) has no shared memory to draw, nor has a plan with a launch.
    auto gemm = resolveKernel(builtinKernels(), "awq_gemm", "gemm");
    EXPECT_FALSE(refusedSharedMemory(
        planWithFix(*gemm, *parseShape("M=16,N=4096,K=4096,group_size=138", gemm->family->parameters()), device, nullptr)));
    auto legacy = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y");
    EXPECT_FALSE(refusedSharedMemory(
        planWithFix(*legacy, *parseShape("M=32768,N=5376,K=4096,group_size=128", legacy->family->parameters()), device, nullptr)));
}

// Issue #15 item 4: a divisibility limit read "group_size % 32 = 32, actual 138".
TEST(LaunchUsage, DescribeLimitSaysWhatADivisibilityCheckNeeds) {
    EXPECT_EQ(describeLimit({"group_size % 32", 32, 138}), "group_size must be a multiple of 32, actual 138 (138 % 32 = 10)");
    EXPECT_EQ(describeLimit({"head_dim % 8", 8, 100}), "head_dim must be a multiple of 8, actual 100 (100 % 8 = 4)");
    EXPECT_EQ(describeLimit({"N % group_size", 128, 4100}), "N must be a multiple of group_size = 128, actual 4,100 (4,100 % 128 = 4)");
    EXPECT_EQ(describeLimit({"max_grid_dim_y", 65535, 86016}), "max_grid_dim_y = 65,535, actual 86,016");
}

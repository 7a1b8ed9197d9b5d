#include "core/launch_usage.h"

#include <gtest/gtest.h>

#include "core/device_spec.h"
#include "core/fix_finder.h"
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

// The custom family: any kernel's launch from its figures, checked like the bundled families' launches
// (core/launch_checks), with the registers the shape gives, not the ptxas table (issue 16).
#include <gtest/gtest.h>

#include "kernels/custom/plan.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

LaunchPlan custom(std::string_view shape, std::string_view deviceId) { return test::plan("custom", "launch", shape, deviceId); }

LaunchPlan customOn(std::string_view shape, const DeviceSpec& device) { return test::planOn("custom", "launch", shape, device); }

DeviceSpec withRuntime(std::string_view id, int runtime) {
    DeviceSpec spec = test::device(id);
    spec.cudaRuntime = runtime;
    return spec;
}

TEST(CustomFamily, IsRegisteredWithoutDeviceCode) {
    const KernelChoice k = test::kernel("custom", "");
    EXPECT_EQ(k.variantName(), "launch");
    EXPECT_FALSE(k.family->hasDeviceCode());
    EXPECT_TRUE(test::kernel("awq_gemm", "").family->hasDeviceCode());
    std::vector<std::string> names;
    for (const ParameterSpec& p : k.family->parameters()) names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers", "static_smem",
                                               "dynamic_smem", "smem_optin"}));
}

TEST(CustomFamily, DefaultLaunchesEverywhereWithRegistersLimitingOccupancy) {
    for (const DeviceSpec& spec : DeviceDatabase::embedded().devices()) {
        SCOPED_TRACE(spec.id);
        const LaunchPlan p = customOn("", spec);
        ASSERT_TRUE(p.ok()) << p.message;
        EXPECT_EQ(p.block, (Dim3{256, 1, 1}));
        ASSERT_TRUE(p.registers);
        EXPECT_EQ(*p.registers, 168);  // the shape's figure: no table entry overrides it
        ASSERT_TRUE(p.occupancy);
        // 168 x 32 = 5,376 registers a warp, 8 warps = 43,008 a block: one block in a 64 K register file.
        EXPECT_EQ(p.occupancy->blockLimitRegisters, 1);
        EXPECT_EQ(p.occupancy->activeBlocksPerSm, 1);
        EXPECT_NE(p.occupancy->limiters & static_cast<unsigned>(OccupancyLimiter::Registers), 0u);
    }
}

TEST(CustomFamily, WavesFollowTheGrid) {
    const DeviceSpec& h100 = test::device("h100-sxm");
    const LaunchPlan p = custom("grid_x=" + std::to_string(2 * h100.smCount), "h100-sxm");
    ASSERT_TRUE(p.occupancy);
    EXPECT_DOUBLE_EQ(p.occupancy->waves, 2.0);  // one block per SM (registers), two blocks per SM's worth of grid
}

TEST(CustomFamily, BlockOverTheDeviceLimit) {
    for (const int runtime : kCudaRuntimeChoices) {
        const LaunchRejection rejection = launchConfigurationRejection(runtime);
        const LaunchPlan x = customOn("block_x=2048,registers=32", withRuntime("h100-sxm", runtime));
        EXPECT_EQ(x.verdict, Verdict::InvalidLaunch);
        EXPECT_EQ(test::limitName(x), "max_block_dim_x");
        EXPECT_EQ(x.message, rejection.message);
        ASSERT_TRUE(x.cudaError);
        EXPECT_EQ(x.cudaError->code, rejection.error.code);
        EXPECT_EQ(x.failingParameter, CustomFamily::BlockX);

        const LaunchPlan threads = customOn("block_x=512,block_y=4,registers=32", withRuntime("rtx-4090", runtime));
        EXPECT_EQ(test::limitName(threads), "max_threads_per_block");
        EXPECT_EQ(threads.limit->actual, 2048);
        EXPECT_EQ(threads.message, rejection.message);

        const LaunchPlan z = customOn("block_x=1,block_z=128", withRuntime("t4", runtime));
        EXPECT_EQ(test::limitName(z), "max_block_dim_z");
        EXPECT_EQ(z.failingParameter, CustomFamily::BlockZ);
    }
}

TEST(CustomFamily, GridYOver65535PerRuntime) {
    const LaunchPlan on12 = customOn("grid_y=65536", withRuntime("h200", 12));
    EXPECT_EQ(on12.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(test::limitName(on12), "max_grid_dim_y");
    EXPECT_EQ(on12.limit->limit, 65535);
    EXPECT_EQ(on12.message, "CUDA error: invalid configuration argument");
    EXPECT_EQ(on12.cudaError->name, "cudaErrorInvalidConfiguration");
    EXPECT_EQ(on12.failingParameter, CustomFamily::GridY);
    const LaunchPlan on13 = customOn("grid_y=65536", withRuntime("h200", 13));
    EXPECT_EQ(on13.message, "CUDA error: invalid argument");
    EXPECT_EQ(on13.cudaError->name, "cudaErrorInvalidValue");
    EXPECT_TRUE(customOn("grid_y=65535", withRuntime("h200", 13)).ok());
    // The fix finder walks grid_y back to the limit.
    ASSERT_TRUE(on13.fixShape);
    EXPECT_EQ((*on13.fixShape)[CustomFamily::GridY], 65535);
}

TEST(CustomFamily, StaticSharedMemoryOverThe48KbCapNeverBuilds) {
    // sglang #25484 on an H20: 0xc980 = 51,584 bytes of static shared memory, 0xc000 max.
    const LaunchPlan p = custom("static_smem=51584,dynamic_smem=0", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "ptxas error   : Entry function 'custom_kernel' uses too much shared data (0xc980 bytes, 0xc000 max)");
    EXPECT_EQ(test::limitName(p), "static_smem_per_block");
    EXPECT_EQ(p.failingParameter, CustomFamily::StaticSmem);
    EXPECT_FALSE(p.hasLaunch());  // nothing was built, so nothing launches
    EXPECT_FALSE(p.cudaError);
    EXPECT_TRUE(custom("static_smem=49152,dynamic_smem=0", "h100-sxm").ok());
    // Opting in raises the dynamic limit only.
    EXPECT_EQ(custom("static_smem=51584,dynamic_smem=0,smem_optin=1", "h100-sxm").verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(tooMuchSharedDataText("k", 0xc980, 0xc000),
              "ptxas error   : Entry function 'k' uses too much shared data (0xc980 bytes, 0xc000 max)");
}

TEST(CustomFamily, DynamicSharedMemoryAgainstTheDefaultAndOptInLimits) {
    // Without the attribute the default 48 KB applies; the plan says how to opt in.
    const LaunchPlan plain = custom("dynamic_smem=65536", "rtx-4090");
    EXPECT_EQ(plain.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(test::limitName(plain), "smem_per_block");
    EXPECT_EQ(plain.limit->limit, 49152);
    EXPECT_EQ(plain.message, "CUDA error: invalid argument");
    EXPECT_EQ(plain.cudaError->name, "cudaErrorInvalidValue");
    EXPECT_EQ(plain.failingParameter, CustomFamily::DynamicSmem);
    EXPECT_NE(plain.alternative.find("smem_optin=1"), std::string::npos) << plain.alternative;
    EXPECT_TRUE(custom("dynamic_smem=65536,smem_optin=1", "rtx-4090").ok());
    // flash-attention #2750 on an RTX 4090: 131,072 bytes against sm_89's 101,376 opt-in.
    const LaunchPlan over = custom("dynamic_smem=131072,smem_optin=1", "rtx-4090");
    EXPECT_EQ(over.verdict, Verdict::InvalidLaunch);
    EXPECT_EQ(test::limitName(over), "smem_per_block_optin");
    EXPECT_EQ(over.limit->limit, 101376);
    EXPECT_EQ(over.limit->actual, 131072);
    EXPECT_EQ(over.cudaError->name, "cudaErrorInvalidValue");
    EXPECT_TRUE(over.alternative.empty());  // opting in is already done
    EXPECT_TRUE(custom("dynamic_smem=131072,smem_optin=1", "h100-sxm").ok());
    // Static counts against the same limit as dynamic.
    EXPECT_EQ(test::limitName(custom("static_smem=40000,dynamic_smem=61377,smem_optin=1", "rtx-4090")), "smem_per_block_optin");
    EXPECT_TRUE(custom("static_smem=40000,dynamic_smem=61376,smem_optin=1", "rtx-4090").ok());
}

TEST(CustomFamily, RegistersOverTheBlocksRegisterFile) {
    // 168 x 32 rounded to 5,376 a warp x 32 warps = 172,032 > 65,536.
    const LaunchPlan p = custom("block_x=1024,registers=168", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::OutOfResources);
    EXPECT_EQ(test::limitName(p), "regs_per_block");
    EXPECT_EQ(p.limit->actual, 172032);
    EXPECT_EQ(p.message, "CUDA error: too many resources requested for launch");
    EXPECT_EQ(p.cudaError->name, "cudaErrorLaunchOutOfResources");
    EXPECT_EQ(p.failingParameter, CustomFamily::Registers);
    ASSERT_TRUE(p.fixShape);
    EXPECT_EQ((*p.fixShape)[CustomFamily::Registers], 64);  // 64 x 1,024 = 65,536 exactly
    EXPECT_TRUE(custom("block_x=1024,registers=64", "h100-sxm").ok());
}

TEST(CustomFamily, RegistersSetOccupancyNotTheTable) {
    // 256 threads: 64 registers -> 4 blocks (32 warps, 50 %), 32 registers -> 8 blocks (64 warps, 100 %).
    const LaunchPlan r64 = custom("registers=64,dynamic_smem=0", "h100-sxm");
    ASSERT_TRUE(r64.occupancy);
    EXPECT_EQ(r64.occupancy->blockLimitRegisters, 4);
    EXPECT_DOUBLE_EQ(r64.occupancy->occupancyPct, 50.0);
    const LaunchPlan r32 = custom("registers=32,dynamic_smem=0", "h100-sxm");
    ASSERT_TRUE(r32.occupancy);
    EXPECT_DOUBLE_EQ(r32.occupancy->occupancyPct, 100.0);
}

}  // namespace
}  // namespace tilescope

// Occupancy from cuda_occupancy.h, checked against examples worked by hand. The rules used in the
// arithmetic (cuda_occupancy.h, CUDA 13): registers are allocated per warp in units of 256 and a block
// takes regs/warp x warps; an SM's registers split into 4 sub-partitions of regs_per_sm / 4; shared
// memory is allocated in units of 128 B (cc >= 8; 256 B on cc 7.x) and from cc 8.0 each block also
// takes reserved_smem_per_block (1 KB); the SM's shared memory is the carveout (smem_per_sm, aligned
// up to the next configurable size); blocks/SM: 16 (7.5, 8.6), 24 (8.9, 12.0), 32 (8.0, 9.0);
// from cc 9.0 one barrier per block limits blocks to 2 x (blocks/SM), on 12.0 to 1 x.
#include <gtest/gtest.h>

#include <climits>
#include <optional>
#include <utility>
#include <vector>

#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "core/model/occupancy.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::device;

constexpr unsigned bit(OccupancyLimiter l) { return static_cast<unsigned>(l); }

Occupancy occupancyOf(std::string_view deviceId, OccupancyInput input) {
    Occupancy out;
    EXPECT_TRUE(computeOccupancy(device(deviceId), input, out));
    return out;
}

TEST(Occupancy, H100RegisterLimited) {
    // 128 threads = 4 warps, 64 regs: 64 x 32 = 2,048 regs/warp (a multiple of 256), 8,192 per block.
    // Registers: 65,536 / 4 = 16,384 per sub-partition / 2,048 = 8 warps -> 32 warps/SM -> 8 blocks.
    // Warps: 2,048 / 32 = 64 warps/SM / 4 = 16 blocks. Blocks/SM: 32.
    // Shared memory: 0 + 1,024 reserved = 1,024 B; 233,472 / 1,024 = 228 blocks. Barriers: 64.
    // -> 8 blocks, 32 of 64 warps = 50 %, limited by registers. Grid 2,112: 2,112 / (8 x 132) = 2 waves.
    const Occupancy o = occupancyOf("h100-sxm", {128, 64, 0, 0, false, 2112});
    EXPECT_EQ(o.activeBlocksPerSm, 8);
    EXPECT_EQ(o.activeWarpsPerSm, 32);
    EXPECT_EQ(o.maxWarpsPerSm, 64);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 50.0);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::Registers));
    EXPECT_EQ(o.limiterNames(), std::vector<std::string>{"registers"});
    EXPECT_EQ(o.blockLimitRegisters, 8);
    EXPECT_EQ(o.blockLimitWarps, 16);
    EXPECT_EQ(o.blockLimitBlocks, 32);
    EXPECT_EQ(o.blockLimitSharedMemory, 228);
    EXPECT_EQ(o.allocatedSmemPerBlock, 1024);
    EXPECT_EQ(o.allocatedRegistersPerBlock, 8192);
    EXPECT_DOUBLE_EQ(o.waves, 2.0);
}

TEST(Occupancy, H100SharedMemoryLimitedWithOptIn) {
    // 256 threads = 8 warps, 32 regs: 1,024 regs/warp; 16,384 / 1,024 = 16 warps per sub-partition
    // -> 64 warps -> 8 blocks. Warps: 64 / 8 = 8 blocks.
    // Shared memory: 65,536 + 1,024 = 66,560 B (= 520 x 128); 233,472 / 66,560 = 3.5 -> 3 blocks.
    // -> 3 blocks, 24 of 64 warps = 37.5 %, limited by shared memory.
    const Occupancy o = occupancyOf("h100-sxm", {256, 32, 0, 65536, true, 0});
    EXPECT_EQ(o.activeBlocksPerSm, 3);
    EXPECT_EQ(o.activeWarpsPerSm, 24);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 37.5);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::SharedMemory));
    EXPECT_EQ(o.blockLimitRegisters, 8);
    EXPECT_EQ(o.blockLimitWarps, 8);
    EXPECT_EQ(o.allocatedSmemPerBlock, 66560);
    EXPECT_DOUBLE_EQ(o.waves, 0.0);  // no grid given
}

TEST(Occupancy, WithoutOptInAbove48KbNothingIsResident) {
    // Kineto's bug: with the default limit 49,152 + 1,024 < 66,560 the calculator gives 0 blocks.
    // A kernel that opted in runs (previous test); one that did not cannot launch at all.
    Occupancy out;
    out.activeBlocksPerSm = -7;
    EXPECT_FALSE(computeOccupancy(device("h100-sxm"), {256, 32, 0, 65536, false, 0}, out));
    EXPECT_EQ(out.activeBlocksPerSm, -7);  // left untouched
}

TEST(Occupancy, A100Fa2Hdim256Tile) {
    // The 128x64/8 tile: 256 threads, 131,072 B dynamic, and (say) 128 regs.
    // Registers: 128 x 32 = 4,096/warp; 16,384 / 4,096 = 4 warps per sub-partition -> 16 warps -> 2 blocks.
    // Shared memory: 131,072 + 1,024 = 132,096 B; carveout 167,936 (164 KB); 167,936 / 132,096 = 1.27 -> 1.
    // -> 1 block, 8 of 64 warps = 12.5 %, limited by shared memory.
    const Occupancy o = occupancyOf("a100-80gb-sxm", {256, 128, 0, 131072, true, 0});
    EXPECT_EQ(o.activeBlocksPerSm, 1);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 12.5);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::SharedMemory));
    EXPECT_EQ(o.blockLimitRegisters, 2);
    EXPECT_EQ(o.allocatedSmemPerBlock, 132096);
}

TEST(Occupancy, RegisterGranularityOnRtx4090) {
    // 96 threads = 3 warps, 37 regs: 37 x 32 = 1,184 -> rounded up to 1,280 (5 x 256); 3,840 per block.
    // Registers: 16,384 / 1,280 = 12.8 -> 12 warps per sub-partition -> 48 warps -> 16 blocks.
    // Warps: 1,536 / 32 = 48 warps -> 16 blocks. Blocks/SM (8.9): 24. Shared memory: 102,400 / 1,024 = 100.
    // -> 16 blocks, 48 of 48 warps = 100 %, limited by warps and registers together.
    const Occupancy o = occupancyOf("rtx-4090", {96, 37, 0, 0, false, 0});
    EXPECT_EQ(o.activeBlocksPerSm, 16);
    EXPECT_EQ(o.activeWarpsPerSm, 48);
    EXPECT_EQ(o.maxWarpsPerSm, 48);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 100.0);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::Warps) | bit(OccupancyLimiter::Registers));
    EXPECT_EQ(o.limiterNames(), (std::vector<std::string>{"warps", "registers"}));
    EXPECT_EQ(o.allocatedRegistersPerBlock, 3840);
    EXPECT_EQ(o.blockLimitBlocks, 24);
    EXPECT_EQ(o.blockLimitSharedMemory, 100);
}

TEST(Occupancy, T4HasNoReservedSharedMemory) {
    // 1,024 threads = 32 warps, 64 regs: 2,048/warp, 65,536 per block = the whole register file.
    // Registers: 16,384 / 2,048 = 8 warps per sub-partition -> 32 warps -> 1 block. Warps: 1,024 / 32 = 32 -> 1.
    // Shared memory: 0 B and no reserved KB on 7.5 -> no limit (INT_MAX).
    // -> 1 block, 32 of 32 warps = 100 %.
    const Occupancy o = occupancyOf("t4", {1024, 64, 0, 0, false, 0});
    EXPECT_EQ(o.activeBlocksPerSm, 1);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 100.0);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::Warps) | bit(OccupancyLimiter::Registers));
    EXPECT_EQ(o.allocatedSmemPerBlock, 0);
    EXPECT_EQ(o.blockLimitSharedMemory, INT_MAX);
    EXPECT_EQ(o.blockLimitBlocks, 16);
}

TEST(Occupancy, T4RegisterFileOverflowIsNotResident) {
    // 65 regs: 2,080 -> 2,304 per warp x 32 warps = 73,728 > 65,536 per block.
    Occupancy out;
    EXPECT_FALSE(computeOccupancy(device("t4"), {1024, 65, 0, 0, false, 0}, out));
}

TEST(Occupancy, Rtx5090BlocksAndBarriers) {
    // 32 threads = 1 warp, 16 regs (512/warp): registers allow 128 blocks; warps 48; shared memory
    // 102,400 / 1,024 = 100; blocks/SM 24; barriers on 12.0: 24 x 1 / 1 = 24.
    // -> 24 blocks, 24 of 48 warps = 50 %, limited by blocks and barriers.
    const Occupancy o = occupancyOf("rtx-5090", {32, 16, 0, 0, false, 0});
    EXPECT_EQ(o.activeBlocksPerSm, 24);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 50.0);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::Blocks) | bit(OccupancyLimiter::Barriers));
    EXPECT_EQ(o.limiterNames(), (std::vector<std::string>{"blocks", "barriers"}));
}

TEST(Occupancy, SharedMemoryGranularityAndReservedKbCostABlock) {
    // A100, 128 threads, 8 regs (not limiting), 32,536 B dynamic:
    // 32,536 + 1,024 reserved = 33,560 -> rounded up to 128 B: 33,664. 167,936 / 33,664 = 4.99 -> 4 blocks.
    // (Without the rounding 167,936 / 33,560 = 5.004 -> 5; without the reserved KB 32,640 -> 5.)
    // Warps: 64 / 4 = 16. -> 4 blocks, 16 of 64 warps = 25 %, limited by shared memory.
    const Occupancy o = occupancyOf("a100-80gb-sxm", {128, 8, 0, 32536, false, 0});
    EXPECT_EQ(o.allocatedSmemPerBlock, 33664);
    EXPECT_EQ(o.activeBlocksPerSm, 4);
    EXPECT_DOUBLE_EQ(o.occupancyPct, 25.0);
    EXPECT_EQ(o.limiters, bit(OccupancyLimiter::SharedMemory));
    // Static shared memory counts the same as dynamic.
    const Occupancy s = occupancyOf("a100-80gb-sxm", {128, 8, 32536, 0, false, 0});
    EXPECT_EQ(s.activeBlocksPerSm, 4);
    EXPECT_EQ(s.allocatedSmemPerBlock, 33664);
}

TEST(Occupancy, RejectsNonsense) {
    Occupancy out;
    EXPECT_FALSE(computeOccupancy(device("h100-sxm"), {0, 32, 0, 0, false, 0}, out));
    EXPECT_FALSE(computeOccupancy(device("h100-sxm"), {128, -1, 0, 0, false, 0}, out));
    DeviceSpec unknownArch = device("h100-sxm");
    unknownArch.computeCapability = {42, 0};  // the calculator does not know it
    EXPECT_FALSE(computeOccupancy(unknownArch, {128, 32, 0, 0, false, 0}, out));
}

// ---- occupancy through finishLaunch, with a register table ----------------------------------

LaunchPlan sm120Hdim256Plan() {
    // The launch attention/sm120_tile_search plans for (256,256) on an RTX 5090.
    LaunchPlan plan;
    plan.kernelSymbol = "test_kernel";
    plan.grid = {32, 1, 32};
    plan.block = {128, 1, 1};
    plan.dynamicSmem = 101376;
    plan.optsIntoLargeSmem = true;
    return plan;
}

TEST(OccupancyOfAPlan, UnknownRegistersLeaveOccupancyUnknown) {
    LaunchPlan plan = sm120Hdim256Plan();
    finishLaunch(plan, device("rtx-5090"), KernelResourceTable{}, PlanDetail::Full);
    EXPECT_EQ(plan.verdict, Verdict::Ok);
    EXPECT_FALSE(plan.registers);
    EXPECT_FALSE(plan.occupancy);
}

TEST(OccupancyOfAPlan, KnownRegistersGiveOccupancy) {
    // 128 threads = 4 warps, 128 regs: 4,096/warp; 16,384 / 4,096 = 4 warps per sub-partition -> 4 blocks.
    // Shared memory: 101,376 + 1,024 = 102,400 B = the whole 100 KB carveout -> 1 block.
    // -> 1 block, 4 of 48 warps = 8.33 %; 1,024 blocks / (1 x 170 SMs) = 6.02 waves.
    static const KernelResourceEntry entries[] = {{"test_kernel", 120, {128, 0, 0, 0, 0}}, {"test_kernel", 90, {64, 0, 0, 0, 0}}};
    LaunchPlan plan = sm120Hdim256Plan();
    finishLaunch(plan, device("rtx-5090"), KernelResourceTable(entries), PlanDetail::Full);
    EXPECT_EQ(plan.verdict, Verdict::Ok);
    ASSERT_TRUE(plan.registers);
    EXPECT_EQ(*plan.registers, 128);
    ASSERT_TRUE(plan.occupancy);
    EXPECT_EQ(plan.occupancy->activeBlocksPerSm, 1);
    EXPECT_DOUBLE_EQ(plan.occupancy->occupancyPct, 100.0 * 4 / 48);
    EXPECT_EQ(plan.occupancy->limiters, bit(OccupancyLimiter::SharedMemory));
    EXPECT_DOUBLE_EQ(plan.occupancy->waves, 1024.0 / 170.0);
}

TEST(OccupancyOfAPlan, RegisterTableFallsBackToTheSameMajor) {
    // sm_89 runs sm_86 code; sm_90 code never runs on sm_89; sm_80 is a different minor but the same major.
    static const KernelResourceEntry entries[] = {{"k", 86, {40, 0, 0, 0, 0}}, {"k", 90, {64, 0, 0, 0, 0}}};
    const KernelResourceTable table(entries);
    EXPECT_EQ(table.find("k", {8, 9}).value().registers, 40);
    EXPECT_EQ(table.find("k", {9, 0}).value().registers, 64);
    EXPECT_FALSE(table.find("k", {8, 0}));  // sm_86 code does not run on sm_80
    EXPECT_FALSE(table.find("k", {12, 0}));
    EXPECT_FALSE(table.find("other", {9, 0}));
}

TEST(OccupancyOfAPlan, RecentLookupsAreNeverServedFromAnotherTable) {
    // find() keeps each thread's recent answers: tables with the same symbols but different
    // figures, built one after another at the same address, must each answer for themselves.
    for (int registers = 32; registers <= 40; ++registers) {
        const KernelResourceEntry entries[] = {{"k", 90, {registers, 0, 0, 0, 0}}, {"k2", 90, {registers + 100, 0, 0, 0, 0}}};
        const KernelResourceTable table(entries);
        for (int repeat = 0; repeat < 3; ++repeat) {
            EXPECT_EQ(table.find("k", {9, 0}).value().registers, registers);
            EXPECT_EQ(table.find("k2", {9, 0}).value().registers, registers + 100);
            EXPECT_FALSE(table.find("k", {8, 0}));
        }
    }
}

TEST(Occupancy, CachedAnswersMatchFreshOnesInAnyOrder) {
    // computeOccupancy caches answers per thread: asking many configurations on several devices,
    // in two different orders, must give identical answers, waves included.
    std::vector<std::pair<std::string_view, OccupancyInput>> asks;
    for (std::string_view id : {"h100-sxm", "rtx-5090", "a100-80gb-sxm", "t4"})
        for (int threads : {64, 128, 256, 1024})
            for (int registers : {32, 64, 128})
                for (std::int64_t dynamicSmem : {0, 16384, 49152, 101376})
                    asks.push_back({id, {threads, registers, 0, dynamicSmem, dynamicSmem > 48 * 1024, 1000 + threads}});
    std::vector<std::optional<Occupancy>> first;
    for (const auto& [id, input] : asks) {
        Occupancy out;
        first.push_back(computeOccupancy(device(id), input, out) ? std::optional(out) : std::nullopt);
    }
    for (std::size_t i = asks.size(); i-- > 0;) {
        Occupancy out;
        const bool resident = computeOccupancy(device(asks[i].first), asks[i].second, out);
        ASSERT_EQ(resident, first[i].has_value()) << i;
        if (!resident) continue;
        EXPECT_EQ(out.activeBlocksPerSm, first[i]->activeBlocksPerSm) << i;
        EXPECT_EQ(out.limiters, first[i]->limiters) << i;
        EXPECT_EQ(out.allocatedSmemPerBlock, first[i]->allocatedSmemPerBlock) << i;
        EXPECT_DOUBLE_EQ(out.waves, first[i]->waves) << i;
    }
}

TEST(OccupancyOfAPlan, TooManyRegistersIsOutOfResources) {
    // 1,024 threads x 65 regs: 2,080 -> 2,304 per warp x 32 warps = 73,728 > 65,536.
    static const KernelResourceEntry entries[] = {{"test_kernel", 90, {65, 0, 0, 0, 0}}};
    LaunchPlan plan;
    plan.kernelSymbol = "test_kernel";
    plan.block = {1024, 1, 1};
    finishLaunch(plan, device("h100-sxm"), KernelResourceTable(entries), PlanDetail::Full);
    EXPECT_EQ(plan.verdict, Verdict::OutOfResources);
    EXPECT_EQ(plan.message, "CUDA error: too many resources requested for launch");
    ASSERT_TRUE(plan.limit);
    EXPECT_EQ(plan.limit->name, "regs_per_block");
    EXPECT_EQ(plan.limit->limit, 65536);
    EXPECT_EQ(plan.limit->actual, 73728);
    EXPECT_EQ(plan.cudaError->code, 701);
    EXPECT_FALSE(plan.occupancy);
}

TEST(OccupancyOfAPlan, RegisterCheckRoundsWarpsToSubPartitions) {
    // 320 threads = 10 warps, 200 regs: 6,400 regs/warp (25 x 256), 64,000 for 10 warps <= 65,536, but the
    // hardware checks as if every one of the 4 sub-partitions got the same warps: 12 x 6,400 = 76,800 > 65,536.
    // cuda_occupancy.h (cudaOccMaxBlocksPerSMRegsLimit, "Hardware check") gives 0 blocks.
    static const KernelResourceEntry entries[] = {{"test_kernel", 90, {200, 0, 0, 0, 0}}};
    LaunchPlan plan;
    plan.kernelSymbol = "test_kernel";
    plan.block = {320, 1, 1};
    finishLaunch(plan, device("h100-sxm"), KernelResourceTable(entries), PlanDetail::Full);
    EXPECT_EQ(plan.verdict, Verdict::OutOfResources);
    ASSERT_TRUE(plan.limit);
    EXPECT_EQ(plan.limit->actual, 76800);
    Occupancy out;
    EXPECT_FALSE(computeOccupancy(device("h100-sxm"), {320, 200, 0, 0, false, 0}, out));
}

TEST(OccupancyOfAPlan, PlannersReadRegistersFromTheCompilerOnEveryDevice) {
    // The generated ptxas table covers every compiled arch: each ok plan on each database device
    // reports its kernel's registers from it, and an occupancy from cuda_occupancy.h.
    ASSERT_FALSE(compiledKernelResources().empty());
    for (const auto& spec : DeviceDatabase::embedded().devices()) {
        for (const auto& family : builtinKernels().families()) {
            if (!family->hasDeviceCode()) continue;  // custom: registers are a parameter, not the compiler's
            for (std::size_t v = 0; v < family->variants().size(); ++v) {
                if (test::modelOnlyVariant(*family, v)) continue;
                const LaunchPlan p = family->plan(static_cast<int>(v), Shape::defaults(family->parameters()), spec, PlanDetail::Full);
                SCOPED_TRACE(spec.id + " " + std::string(family->name()) + "/" + std::string(p.variant));
                if (p.verdict < Verdict::InvalidLaunch) continue;  // refused before a launch was computed
                EXPECT_FALSE(p.kernelSymbol.empty());
                // CUDA 13 builds cc >= 7.5 only (KERNELS.md): on a Pascal or Volta GPU the build has no
                // ptxas report, and the plan says its registers are unknown rather than borrow another arch's.
                if (spec.computeCapability < ComputeCapability{7, 5}) {
                    EXPECT_FALSE(compiledKernelResources().find(p.kernelSymbol, spec.computeCapability));
                    EXPECT_FALSE(p.registers);
                    continue;
                }
                test::expectCompilerRegisters(p, spec);
            }
        }
    }
}

}  // namespace
}  // namespace tilescope

#include "core/series/occupancy_curves.h"

#include <gtest/gtest.h>

#include "core/model/device_spec.h"

using namespace tilescope;

namespace {

const DeviceSpec& h100() { return *DeviceDatabase::embedded().find("h100-sxm"); }

double at(const OccupancyCurve& curve, double x) {
    for (std::size_t i = 0; i < curve.x.size(); ++i)
        if (curve.x[i] == x) return curve.activeWarps[i];
    ADD_FAILURE() << "no point at " << x;
    return -1;
}

}  // namespace

TEST(OccupancyCurves, BlockSizeCurveSpansEveryWarpMultiple) {
    const auto curves = occupancyCurves(h100(), {256, 32, 0, 0, false});
    EXPECT_EQ(curves.blockSize.x.size(), static_cast<std::size_t>(h100().maxThreadsPerBlock / h100().warpSize));
    EXPECT_EQ(curves.blockSize.x.front(), h100().warpSize);
    EXPECT_EQ(curves.blockSize.x.back(), h100().maxThreadsPerBlock);
    EXPECT_EQ(curves.maxWarpsPerSm, 64);
    // 256 threads x 32 registers, no shared memory: the SM fills up (the spreadsheet's 100 %).
    EXPECT_EQ(at(curves.blockSize, 256), 64);
    ASSERT_TRUE(curves.current);
    EXPECT_EQ(curves.current->activeWarpsPerSm, 64);
}

TEST(OccupancyCurves, RegisterCurveFollowsTheRegisterFile) {
    const auto curves = occupancyCurves(h100(), {256, 32, 0, 0, false});
    EXPECT_EQ(curves.registers.x.size(), static_cast<std::size_t>(h100().maxRegsPerThread));
    // 64 regs: 2048 per warp -> 65536 / 2048 = 32 warps; 255 regs round to 8192 per warp -> 8 warps.
    EXPECT_EQ(at(curves.registers, 64), 32);
    EXPECT_EQ(at(curves.registers, 255), 8);
    for (std::size_t i = 1; i < curves.registers.activeWarps.size(); ++i)
        EXPECT_LE(curves.registers.activeWarps[i], curves.registers.activeWarps[i - 1]);
}

TEST(OccupancyCurves, SharedMemoryCurveStopsAtTheLimitThatApplies) {
    const auto plain = occupancyCurves(h100(), {128, 32, 1024, 0, false});
    EXPECT_EQ(plain.sharedMemory.x.front(), 1024);
    EXPECT_LE(plain.sharedMemory.x.back(), static_cast<double>(h100().smemPerBlock));
    const auto optIn = occupancyCurves(h100(), {128, 32, 1024, 0, true});
    EXPECT_GT(optIn.sharedMemory.x.back(), static_cast<double>(h100().smemPerBlock));
    EXPECT_LE(optIn.sharedMemory.x.back(), static_cast<double>(h100().smemPerBlockOptin));
    for (std::size_t i = 1; i < optIn.sharedMemory.activeWarps.size(); ++i)
        EXPECT_LE(optIn.sharedMemory.activeWarps[i], optIn.sharedMemory.activeWarps[i - 1]);
    // Near the opt-in ceiling only one 4-warp block fits per SM.
    EXPECT_EQ(optIn.sharedMemory.activeWarps.back(), 4);
}

TEST(OccupancyCurves, CurrentPointIsAbsentWhenTheBlockCannotBeResident) {
    const auto curves = occupancyCurves(h100(), {1024, 255, 0, 0, false});  // 1024 x 255 regs > 64 K
    EXPECT_FALSE(curves.current.has_value());
    EXPECT_EQ(at(curves.blockSize, 1024), 0);
}

TEST(OccupancyCurves, LimiterTextNamesTheLimiterOrNone) {
    Occupancy o;
    EXPECT_EQ(limiterText(o), "none");
    o.limiters = static_cast<unsigned>(OccupancyLimiter::Registers) | static_cast<unsigned>(OccupancyLimiter::SharedMemory);
    EXPECT_EQ(limiterText(o), "registers, shared memory");
}

// Occupancy from the CUDA toolkit's own calculator (cuda_occupancy.h), filled from a DeviceSpec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilescope {

struct DeviceSpec;

enum class OccupancyLimiter : unsigned { Warps = 1, Registers = 2, SharedMemory = 4, Blocks = 8, Barriers = 16 };

struct Occupancy {
    int activeBlocksPerSm = 0;
    int activeWarpsPerSm = 0;
    int maxWarpsPerSm = 0;
    double occupancyPct = 0.0;  // active warps / max warps x 100
    unsigned limiters = 0;      // OccupancyLimiter bits
    // Blocks per SM each resource alone would allow (INT_MAX when it does not limit).
    int blockLimitWarps = 0;
    int blockLimitRegisters = 0;
    int blockLimitSharedMemory = 0;
    int blockLimitBlocks = 0;
    std::int64_t allocatedSmemPerBlock = 0;  // after granularity and the reserved 1 KB
    int allocatedRegistersPerBlock = 0;
    double waves = 0.0;  // grid blocks / (active blocks per SM x SMs)

    std::vector<std::string> limiterNames() const;  // "registers", "shared memory", ...
};

struct OccupancyInput {
    int threadsPerBlock = 0;
    int registersPerThread = 0;
    std::int64_t staticSmem = 0;
    std::int64_t dynamicSmem = 0;
    bool optIn = false;           // the kernel raised cudaFuncAttributeMaxDynamicSharedMemorySize
    std::int64_t gridBlocks = 0;  // for waves; 0 leaves waves at 0
};

// Returns false (and leaves `out` untouched) when the configuration cannot be resident at all
// or the calculator rejects the input (e.g. an architecture it does not know).
bool computeOccupancy(const DeviceSpec& device, const OccupancyInput& input, Occupancy& out);

}  // namespace tilescope

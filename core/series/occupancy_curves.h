// The three graphs of NVIDIA's CUDA Occupancy Calculator spreadsheet ("impact of varying block
// size / register count / shared memory"): active warps per SM as one input varies and the
// others stay at the kernel's configuration. Every point comes from computeOccupancy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/occupancy.h"

namespace tilescope {

struct DeviceSpec;

struct OccupancyCurve {
    std::vector<double> x;            // threads per block, registers per thread, or smem bytes
    std::vector<double> activeWarps;  // per SM; 0 where the configuration cannot be resident
};

struct OccupancyCurveInput {
    int threadsPerBlock = 0;
    int registersPerThread = 0;  // the real count, or the user's assumption when unknown
    std::int64_t staticSmem = 0;
    std::int64_t dynamicSmem = 0;
    bool optIn = false;
};

struct OccupancyCurves {
    OccupancyCurve blockSize;
    OccupancyCurve registers;
    OccupancyCurve sharedMemory;  // x is shared memory per block (static + dynamic)
    int maxWarpsPerSm = 0;
    std::optional<Occupancy> current;  // at the input itself; nullopt when it cannot be resident
};

// Resolution of the shared-memory curve: a plotting step, not a hardware granule.
inline constexpr std::int64_t kSharedMemoryCurveStep = 256;

OccupancyCurves occupancyCurves(const DeviceSpec& device, const OccupancyCurveInput& input);

// "registers, shared memory" from Occupancy::limiterNames; "none" when nothing limits.
std::string limiterText(const Occupancy& occupancy);

}  // namespace tilescope

// The live GPU: is there one (without crashing when there is no driver), and its DeviceSpec.
#pragma once

#include <string>

#include "core/model/device_spec.h"
#include "core/model/result.h"

namespace tilescope {

struct GpuAvailability {
    bool available = false;
    int deviceCount = 0;
    std::string reason;  // why not: "libcuda.so.1 cannot be loaded (...)", the CUDA error, ...
};

// Loads libcuda.so.1 first (dlopen), then asks cudaGetDeviceCount. Never throws, never aborts.
GpuAvailability probeGpu();

// DeviceSpec from cudaGetDeviceProperties; registers/thread from the database's architecture row.
Result<DeviceSpec> liveDeviceSpec(int ordinal, const DeviceDatabase& database);
// The CUDA runtime major version whose launch errors plans predict by default: this process's
// runtime (cudaRuntimeGetVersion) where a GPU is present, else the toolkit's (toolkitCudaRuntime).
int defaultCudaRuntime();
// cudaSetDevice: later allocations and launches go to this GPU.
Result<void> useDevice(int ordinal);

}  // namespace tilescope

// DeviceSpec: every limit a planner needs, and the database of known GPUs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/result.h"

namespace tilescope {

struct ComputeCapability {
    int major = 0;
    int minor = 0;
    int smVersion() const { return major * 10 + minor; }  // 8.9 -> 89, as in sm_89
    std::string toString() const;                         // "8.9"
    friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

// The CUDA runtime major version this build's toolkit ships (CMake's CUDAToolkit_VERSION_MAJOR).
int toolkitCudaRuntime();

struct DeviceSpec {
    std::string id;      // "h100-sxm", or "local:0" for a live GPU
    std::string name;    // product name
    std::string source;  // where the figures come from

    ComputeCapability computeCapability;
    int smCount = 0;
    int warpSize = 32;
    int maxThreadsPerBlock = 0;
    std::array<std::int64_t, 3> maxBlockDim{};
    std::array<std::int64_t, 3> maxGridDim{};
    int regsPerSm = 0;
    int regsPerBlock = 0;
    int maxRegsPerThread = 0;
    std::int64_t smemPerBlock = 0;       // default limit without opt-in (48 KB)
    std::int64_t smemPerBlockOptin = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize ceiling
    std::int64_t smemPerSm = 0;
    std::int64_t reservedSmemPerBlock = 0;
    int maxBlocksPerSm = 0;
    int maxThreadsPerSm = 0;
    std::int64_t memoryBytes = 0;
    std::optional<double> memoryBandwidthGBps;  // nullopt: unknown
    std::optional<std::int64_t> l2Bytes;
    std::optional<int> smClockMhz;
    // Dense (no 2:4 sparsity) tensor-core peaks in TFLOP/s, the roofline's compute ceilings, and
    // where they and the bandwidth come from (a datasheet URL). nullopt: unknown.
    std::optional<double> fp16TensorTflops;
    std::optional<double> bf16TensorTflops;
    std::string peakSource;
    // The CUDA runtime major version whose launch errors plans predict (launch_checks.h): not a
    // figure of the GPU and never in device files; front-ends set it (--cuda, the Shape panel,
    // the live runtime). The toolkit's by default.
    int cudaRuntime = toolkitCudaRuntime();

    int maxWarpsPerSm() const { return warpSize > 0 ? maxThreadsPerSm / warpSize : 0; }
    std::string archName() const;  // "sm_89"
};

// The limits every GPU of one compute capability shares (no product figures).
struct ArchitectureLimits {
    ComputeCapability computeCapability;
    DeviceSpec limits;  // product fields (id, name, smCount, memory...) left empty
};

class DeviceDatabase {
public:
    // The database compiled into the binaries from resources/devices.json.
    static const DeviceDatabase& embedded();
    // Parses a devices document ({"devices": [...]}) or a single device object.
    static Result<DeviceDatabase> fromJsonText(std::string_view text, std::string_view origin);
    static Result<DeviceDatabase> fromFile(const std::string& path);

    const std::vector<DeviceSpec>& devices() const { return m_devices; }
    const DeviceSpec* find(std::string_view id) const;
    const DeviceSpec& defaultDevice() const;
    const std::string& defaultId() const { return m_defaultId; }
    // Architecture limits for a compute capability: exact, else the closest lower minor of the
    // same major (e.g. 8.7 -> 8.6); nullptr when the major is unknown.
    const ArchitectureLimits* architecture(ComputeCapability cc) const;
    const std::vector<ArchitectureLimits>& architectures() const { return m_architectures; }

private:
    std::vector<DeviceSpec> m_devices;
    std::vector<ArchitectureLimits> m_architectures;
    std::string m_defaultId;
};

// Resolves a --device argument: a database id, or a path to a device JSON file (first device).
Result<DeviceSpec> resolveDevice(std::string_view idOrPath, const DeviceDatabase& database);

// Validates one device's figures; the error names the field.
Result<void> validateDevice(const DeviceSpec& device);

}  // namespace tilescope

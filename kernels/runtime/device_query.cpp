#include "kernels/runtime/device_query.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <optional>

namespace tilescope {

namespace {
constexpr const char* kDriverLibrary = "libcuda.so.1";
constexpr double kDoubleDataRate = 2.0;
constexpr double kBitsPerByte = 8.0;
constexpr double kKiloToGiga = 1e-6;
}  // namespace

GpuAvailability probeGpu() {
    GpuAvailability gpu;
    if (void* driver = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL); driver == nullptr) {
        const char* why = dlerror();
        gpu.reason = std::string(kDriverLibrary) + " cannot be loaded (" + (why ? why : "unknown error") + "): no NVIDIA driver";
        return gpu;
    } else {
        dlclose(driver);
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        gpu.reason = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
        return gpu;
    }
    if (count == 0) {
        gpu.reason = "the driver reports no CUDA device";
        return gpu;
    }
    gpu.available = true;
    gpu.deviceCount = count;
    return gpu;
}

namespace {
constexpr int kRuntimeVersionPerMajor = 1000;  // cudaRuntimeGetVersion: 1000 * major + 10 * minor

std::optional<int> runtimeMajor() {
    int version = 0;
    if (cudaRuntimeGetVersion(&version) != cudaSuccess || version <= 0) return std::nullopt;
    return version / kRuntimeVersionPerMajor;
}
}  // namespace

int defaultCudaRuntime() {
    if (!probeGpu().available) return toolkitCudaRuntime();
    return runtimeMajor().value_or(toolkitCudaRuntime());
}

Result<DeviceSpec> liveDeviceSpec(int ordinal, const DeviceDatabase& database) {
    cudaDeviceProp prop{};
    if (const cudaError_t status = cudaGetDeviceProperties(&prop, ordinal); status != cudaSuccess)
        return makeError("cudaGetDeviceProperties(" + std::to_string(ordinal) + "): " + cudaGetErrorString(status));
    DeviceSpec d;
    d.id = "local:" + std::to_string(ordinal);
    d.name = prop.name;
    d.source = "live GPU: cudaGetDeviceProperties";
    d.cudaRuntime = runtimeMajor().value_or(toolkitCudaRuntime());  // the runtime `run` launches through
    d.computeCapability = {prop.major, prop.minor};
    d.smCount = prop.multiProcessorCount;
    d.warpSize = prop.warpSize;
    d.maxThreadsPerBlock = prop.maxThreadsPerBlock;
    for (int i = 0; i < 3; ++i) {
        d.maxBlockDim[static_cast<std::size_t>(i)] = prop.maxThreadsDim[i];
        d.maxGridDim[static_cast<std::size_t>(i)] = prop.maxGridSize[i];
    }
    d.regsPerSm = prop.regsPerMultiprocessor;
    d.regsPerBlock = prop.regsPerBlock;
    const ArchitectureLimits* arch = database.architecture(d.computeCapability);
    d.maxRegsPerThread = arch ? arch->limits.maxRegsPerThread : 0;  // not in cudaDeviceProp
    d.smemPerBlock = static_cast<std::int64_t>(prop.sharedMemPerBlock);
    d.smemPerBlockOptin = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
    d.smemPerSm = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
    d.reservedSmemPerBlock = static_cast<std::int64_t>(prop.reservedSharedMemPerBlock);
    d.maxBlocksPerSm = prop.maxBlocksPerMultiProcessor;
    d.maxThreadsPerSm = prop.maxThreadsPerMultiProcessor;
    d.memoryBytes = static_cast<std::int64_t>(prop.totalGlobalMem);
    d.l2Bytes = prop.l2CacheSize;
    int memoryClockKhz = 0, busWidthBits = 0, smClockKhz = 0;
    if (cudaDeviceGetAttribute(&memoryClockKhz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
        cudaDeviceGetAttribute(&busWidthBits, cudaDevAttrGlobalMemoryBusWidth, ordinal) == cudaSuccess && memoryClockKhz > 0)
        d.memoryBandwidthGBps = kDoubleDataRate * memoryClockKhz * kKiloToGiga * busWidthBits / kBitsPerByte;
    if (cudaDeviceGetAttribute(&smClockKhz, cudaDevAttrClockRate, ordinal) == cudaSuccess && smClockKhz > 0)
        d.smClockMhz = smClockKhz / 1000;
    if (auto valid = validateDevice(d); !valid) return makeError("live GPU " + d.name + ": " + valid.error());
    return d;
}

Result<void> useDevice(int ordinal) {
    if (const cudaError_t status = cudaSetDevice(ordinal); status != cudaSuccess)
        return makeError("cudaSetDevice(" + std::to_string(ordinal) + "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    return {};
}

}  // namespace tilescope

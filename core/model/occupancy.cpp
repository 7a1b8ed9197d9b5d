#include "core/model/occupancy.h"

#include <array>
#include <climits>

#include "core/model/device_spec.h"

// The toolkit's header-only calculator: no CUDA runtime, no GPU.
#include <cuda_occupancy.h>

namespace tilescope {

std::vector<std::string> Occupancy::limiterNames() const {
    std::vector<std::string> names;
    if (limiters & static_cast<unsigned>(OccupancyLimiter::Warps)) names.emplace_back("warps");
    if (limiters & static_cast<unsigned>(OccupancyLimiter::Registers)) names.emplace_back("registers");
    if (limiters & static_cast<unsigned>(OccupancyLimiter::SharedMemory)) names.emplace_back("shared memory");
    if (limiters & static_cast<unsigned>(OccupancyLimiter::Blocks)) names.emplace_back("blocks");
    if (limiters & static_cast<unsigned>(OccupancyLimiter::Barriers)) names.emplace_back("barriers");
    return names;
}

static bool computeOccupancyUncached(const DeviceSpec& device, const OccupancyInput& input, Occupancy& out) {
    if (input.threadsPerBlock <= 0 || input.registersPerThread < 0) return false;

    cudaOccDeviceProp props;
    props.computeMajor = device.computeCapability.major;
    props.computeMinor = device.computeCapability.minor;
    props.maxThreadsPerBlock = device.maxThreadsPerBlock;
    props.maxThreadsPerMultiprocessor = device.maxThreadsPerSm;
    props.regsPerBlock = device.regsPerBlock;
    props.regsPerMultiprocessor = device.regsPerSm;
    props.warpSize = device.warpSize;
    props.sharedMemPerBlock = static_cast<size_t>(device.smemPerBlock);
    props.sharedMemPerMultiprocessor = static_cast<size_t>(device.smemPerSm);
    props.numSms = device.smCount;
    props.sharedMemPerBlockOptin = static_cast<size_t>(device.smemPerBlockOptin);
    props.reservedSharedMemPerBlock = static_cast<size_t>(device.reservedSmemPerBlock);

    cudaOccFuncAttributes attributes{};
    attributes.maxThreadsPerBlock = INT_MAX;
    attributes.numRegs = input.registersPerThread;
    attributes.sharedSizeBytes = static_cast<size_t>(input.staticSmem);
    attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
    // Kineto passes the default limit and so reports 0 % above 48 KB; a kernel that opted in runs.
    attributes.shmemLimitConfig = input.optIn ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    attributes.maxDynamicSharedSizeBytes =
        static_cast<size_t>(input.optIn ? device.smemPerBlockOptin - input.staticSmem : device.smemPerBlock);
    attributes.numBlockBarriers = 1;
    attributes.virtualResourceCount = 0;

    cudaOccDeviceState state;
    cudaOccResult result{};
    const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attributes, &state, input.threadsPerBlock,
                                                                        static_cast<size_t>(input.dynamicSmem));
    if (status != CUDA_OCC_SUCCESS) return false;
    // The calculator reports "cannot be resident" as success with 0 blocks; the contract says false.
    if (result.activeBlocksPerMultiprocessor <= 0) return false;

    const int warpsPerBlock = (input.threadsPerBlock + device.warpSize - 1) / device.warpSize;
    out.activeBlocksPerSm = result.activeBlocksPerMultiprocessor;
    out.activeWarpsPerSm = result.activeBlocksPerMultiprocessor * warpsPerBlock;
    out.maxWarpsPerSm = device.maxWarpsPerSm();
    out.occupancyPct = out.maxWarpsPerSm > 0 ? 100.0 * out.activeWarpsPerSm / out.maxWarpsPerSm : 0.0;
    out.limiters = result.limitingFactors & 0x1Fu;
    out.blockLimitWarps = result.blockLimitWarps;
    out.blockLimitRegisters = result.blockLimitRegs;
    out.blockLimitSharedMemory = result.blockLimitSharedMem;
    out.blockLimitBlocks = result.blockLimitBlocks;
    out.allocatedSmemPerBlock = static_cast<std::int64_t>(result.allocatedSharedMemPerBlock);
    out.allocatedRegistersPerBlock = result.allocatedRegistersPerBlock;
    const double residentBlocks = static_cast<double>(out.activeBlocksPerSm) * device.smCount;
    out.waves = (input.gridBlocks > 0 && residentBlocks > 0) ? static_cast<double>(input.gridBlocks) / residentBlocks : 0.0;
    return true;
}

namespace {

// Everything the calculator reads, so a cached answer is reused only for identical inputs.
struct OccupancyKey {
    int ccMajor, ccMinor, maxThreadsPerBlock, maxThreadsPerSm, regsPerBlock, regsPerSm, warpSize, smCount;
    std::int64_t smemPerBlock, smemPerSm, smemPerBlockOptin, reservedSmemPerBlock;
    int threadsPerBlock, registersPerThread;
    std::int64_t staticSmem, dynamicSmem;
    bool optIn;
    friend bool operator==(const OccupancyKey&, const OccupancyKey&) = default;
};

struct OccupancyCacheEntry {
    std::uint64_t hash = 0;
    OccupancyKey key{};
    Occupancy occupancy;
    bool resident = false;
    bool used = false;
};

// Picks the cache slot from the inputs that vary between launches; the slot's full key decides.
std::uint64_t hashKey(const OccupancyKey& k) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::int64_t v : {std::int64_t{k.ccMajor * 10 + k.ccMinor}, k.smemPerBlockOptin, std::int64_t{k.threadsPerBlock},
                           std::int64_t{k.registersPerThread}, k.staticSmem, k.dynamicSmem, std::int64_t{k.optIn}})
        h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

}  // namespace

// A sweep asks the same few launch configurations for most of its cells (a tile search's
// shared memory changes in steps along an axis, so a map holds hundreds of distinct ones): a
// per-thread, direct-mapped cache of answers, found by a hash of the inputs that vary between
// launches and confirmed by comparing every input the calculator reads, saves its work. Waves depend on the
// grid and are recomputed every time.
bool computeOccupancy(const DeviceSpec& device, const OccupancyInput& input, Occupancy& out) {
    constexpr std::size_t kEntries = 64;
    thread_local std::array<OccupancyCacheEntry, kEntries> cache;
    const OccupancyKey key{device.computeCapability.major,
                           device.computeCapability.minor,
                           device.maxThreadsPerBlock,
                           device.maxThreadsPerSm,
                           device.regsPerBlock,
                           device.regsPerSm,
                           device.warpSize,
                           device.smCount,
                           device.smemPerBlock,
                           device.smemPerSm,
                           device.smemPerBlockOptin,
                           device.reservedSmemPerBlock,
                           input.threadsPerBlock,
                           input.registersPerThread,
                           input.staticSmem,
                           input.dynamicSmem,
                           input.optIn};
    const std::uint64_t hash = hashKey(key);
    OccupancyCacheEntry* hit = &cache[hash % kEntries];
    if (!hit->used || hit->hash != hash || !(hit->key == key)) {
        hit->hash = hash;
        hit->key = key;
        hit->used = true;
        hit->occupancy = Occupancy{};
        hit->resident = computeOccupancyUncached(device, input, hit->occupancy);
    }
    if (!hit->resident) return false;
    out = hit->occupancy;
    const double residentBlocks = static_cast<double>(out.activeBlocksPerSm) * device.smCount;
    out.waves = (input.gridBlocks > 0 && residentBlocks > 0) ? static_cast<double>(input.gridBlocks) / residentBlocks : 0.0;
    return true;
}

}  // namespace tilescope

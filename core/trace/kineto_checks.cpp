#include "core/trace/kineto_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <simdjson.h>

#include "core/model/occupancy.h"

namespace tilescope {

namespace {

bool recorded(const Dim3& d) { return d.x > 0 && d.y > 0 && d.z > 0; }

// Blocks or threads of a launch without overflow (a hostile trace may claim 10^27).
std::int64_t saturatingVolume(const Dim3& d) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::int64_t v = 1;
    for (std::int64_t f : {d.x, d.y, d.z}) {
        if (f <= 0) return 0;
        v = v > kMax / f ? kMax : v * f;
    }
    return v;
}

bool isNvidia(std::string_view name, std::int64_t warpSize) {
    for (std::string_view amd : {"AMD", "Radeon", "Instinct", "gfx"})
        if (name.find(amd) != std::string_view::npos) return false;
    return warpSize == 32;
}

}  // namespace

Result<std::vector<KinetoDevice>> kinetoDevicesFromJson(std::string_view deviceProperties) {
    std::vector<KinetoDevice> devices;
    if (deviceProperties.empty()) return devices;
    std::optional<std::string> error;
    auto fail = [&](int, const std::string& what) {
        if (!error) error = what;
        return false;
    };
    simdjson::dom::parser parser;
    simdjson::padded_string text(deviceProperties);
    simdjson::dom::element root;
    simdjson::dom::array array;
    if (parser.parse(text).get(root) || root.get_array().get(array)) {
        return makeError("deviceProperties: expected an array of device objects");
    }
    std::size_t index = 0;
    for (simdjson::dom::element element : array) {
        const std::string where = "deviceProperties[" + std::to_string(index) + "]";
        simdjson::dom::object o;
        if (element.get_object().get(o)) {
            return makeError(where + ": expected an object");
        }
        auto field = [&](const char* key, std::int64_t maximum) -> std::optional<std::int64_t> {
            simdjson::dom::element e;
            if (o.at_key(key).get(e)) return std::nullopt;
            std::int64_t v = 0;
            if (e.get_int64().get(v) || v < 0 || v > maximum) {
                fail(0, where + "." + key + ": expected an integer in [0, " + std::to_string(maximum) + "]");
                return std::nullopt;
            }
            return v;
        };
        constexpr std::int64_t kMaxLimit = std::int64_t{1} << 31;
        KinetoDevice device;
        device.ordinal = static_cast<int>(field("id", 1 << 20).value_or(static_cast<std::int64_t>(index)));
        std::string_view name;
        if (simdjson::dom::element e; !o.at_key("name").get(e) && e.get_string().get(name)) name = {};
        const auto major = field("computeMajor", 99), minor = field("computeMinor", 9);
        const auto warp = field("warpSize", 1024), sms = field("numSms", kMaxLimit);
        const auto memory = field("totalGlobalMem", std::int64_t{1} << 50);
        const auto threadsPerBlock = field("maxThreadsPerBlock", kMaxLimit), threadsPerSm = field("maxThreadsPerMultiprocessor", kMaxLimit);
        const auto regsPerBlock = field("regsPerBlock", kMaxLimit), regsPerSm = field("regsPerMultiprocessor", kMaxLimit);
        const auto smemPerBlock = field("sharedMemPerBlock", kMaxLimit), smemOptin = field("sharedMemPerBlockOptin", kMaxLimit);
        auto smemPerSm = field("sharedMemPerMultiprocessor", kMaxLimit);
        if (!smemPerSm) smemPerSm = field("maxSharedMemoryPerMultiProcessor", kMaxLimit);
        if (error) return makeError(*error);
        ++index;

        DeviceSpec& spec = device.spec;
        spec.id = "kineto:" + std::to_string(device.ordinal);
        spec.name = std::string(name);
        if (!isNvidia(name, warp.value_or(0))) {
            device.why = "not an NVIDIA GPU (warp size " + (warp ? std::to_string(*warp) : "unknown") +
                         "); CUDA's launch limits and cuda_occupancy.h do not apply, so its kernels are not checked";
            devices.push_back(std::move(device));
            continue;
        }
        if (!major || !minor) {
            device.why = "no compute capability recorded; its kernels are not checked";
            devices.push_back(std::move(device));
            continue;
        }
        const ComputeCapability cc{static_cast<int>(*major), static_cast<int>(*minor)};
        const ArchitectureLimits* arch = DeviceDatabase::embedded().architecture(cc);
        if (!arch) {
            device.why = "compute capability " + cc.toString() + " is not in the architecture table; its kernels are not checked";
            devices.push_back(std::move(device));
            continue;
        }
        // Start from the architecture's limits; every figure the trace recorded overrides them.
        const std::string id = spec.id;
        spec = arch->limits;
        spec.id = id;
        spec.name = std::string(name);
        spec.computeCapability = cc;
        auto take = [&](const std::optional<std::int64_t>& value, auto& target, const char* limitName) {
            if (value) target = static_cast<std::remove_reference_t<decltype(target)>>(*value);
            else device.filled.emplace_back(limitName);
        };
        take(warp, spec.warpSize, "warp_size");
        take(threadsPerBlock, spec.maxThreadsPerBlock, "max_threads_per_block");
        take(threadsPerSm, spec.maxThreadsPerSm, "max_threads_per_sm");
        take(regsPerBlock, spec.regsPerBlock, "regs_per_block");
        take(regsPerSm, spec.regsPerSm, "regs_per_sm");
        take(smemPerBlock, spec.smemPerBlock, "smem_per_block");
        take(smemOptin, spec.smemPerBlockOptin, "smem_per_block_optin");
        take(smemPerSm, spec.smemPerSm, "smem_per_sm");
        // Never in Kineto's deviceProperties: always from the table.
        for (const char* f : {"max_block_dim", "max_grid_dim", "max_regs_per_thread", "reserved_smem_per_block", "max_blocks_per_sm"})
            device.filled.emplace_back(f);
        spec.smCount = static_cast<int>(sms.value_or(0));
        spec.memoryBytes = memory.value_or(0);
        spec.source = "PyTorch profiler deviceProperties; " + std::to_string(device.filled.size()) + " limits from the " + spec.archName() +
                      " architecture table";
        if (!sms || *sms < 1) {
            device.why = "no SM count recorded; its kernels are not checked";
        } else if (!memory || *memory < 1) {
            device.why = "no memory size recorded; its kernels are not checked";
        } else if (auto valid = validateDevice(spec); !valid) {
            device.why = "inconsistent figures (" + valid.error() + "); its kernels are not checked";
        } else {
            device.checkable = true;
        }
        devices.push_back(std::move(device));
    }
    return devices;
}

namespace {

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The launch limits a configuration breaks (the runtime's checks), or empty.
std::string launchViolation(const LaunchConfigFinding& c, const DeviceSpec& d) {
    std::vector<std::string> broken;
    const char axes[] = {'x', 'y', 'z'};
    const std::int64_t block[] = {c.block.x, c.block.y, c.block.z};
    const std::int64_t grid[] = {c.grid.x, c.grid.y, c.grid.z};
    for (int i = 0; i < 3; ++i) {
        if (block[i] > d.maxBlockDim[static_cast<std::size_t>(i)])
            broken.push_back(std::string("block.") + axes[i] + " " + std::to_string(block[i]) + " > max_block_dim " +
                             std::to_string(d.maxBlockDim[static_cast<std::size_t>(i)]));
        if (grid[i] > d.maxGridDim[static_cast<std::size_t>(i)])
            broken.push_back(std::string("grid.") + axes[i] + " " + std::to_string(grid[i]) + " > max_grid_dim " +
                             std::to_string(d.maxGridDim[static_cast<std::size_t>(i)]));
    }
    if (saturatingVolume(c.block) > d.maxThreadsPerBlock)
        broken.push_back("threads per block " + std::to_string(saturatingVolume(c.block)) + " > max_threads_per_block " +
                         std::to_string(d.maxThreadsPerBlock));
    if (c.sharedMemory && *c.sharedMemory > d.smemPerBlockOptin)
        broken.push_back("shared memory " + std::to_string(*c.sharedMemory) + " B > smem_per_block_optin " +
                         std::to_string(d.smemPerBlockOptin) + " B");
    if (c.registers && *c.registers > d.maxRegsPerThread)
        broken.push_back("registers per thread " + std::to_string(*c.registers) + " > max_regs_per_thread " +
                         std::to_string(d.maxRegsPerThread));
    std::string out;
    for (const auto& b : broken) out += (out.empty() ? "" : "; ") + b;
    return out;
}

}  // namespace

std::string joinKinetoNames(const std::vector<std::string>& names) { return joinNames(names); }

void checkLaunchConfigurations(std::vector<LaunchConfigFinding>& configs, const std::optional<DeviceSpec>& assumedDevice,
                               KinetoImport& out) {
    std::int64_t noFigures = 0, noDevice = 0;
    for (auto& c : configs) {
        const DeviceSpec* device = nullptr;
        for (const auto& d : out.devices)
            if (d.ordinal == c.device && d.checkable) device = &d.spec;
        if (!device && assumedDevice && out.devices.empty()) device = &*assumedDevice;
        const bool hasFigures = recorded(c.grid) && recorded(c.block) && c.registers && c.sharedMemory;
        if (!hasFigures) noFigures += c.count;
        if (!device) noDevice += hasFigures ? c.count : 0;
        if (!device || !hasFigures) {
            out.uncheckedKernels += c.count;
            continue;
        }
        c.violation = launchViolation(c, *device);
        OccupancyInput input;
        input.threadsPerBlock = static_cast<int>(std::min<std::int64_t>(saturatingVolume(c.block), std::numeric_limits<int>::max()));
        input.registersPerThread = *c.registers;
        input.dynamicSmem = *c.sharedMemory;
        // A kernel above the default limit must have opted in, or it would not have launched.
        input.optIn = *c.sharedMemory > device->smemPerBlock;
        input.gridBlocks = saturatingVolume(c.grid);
        Occupancy occupancy;
        if (c.violation.empty() && computeOccupancy(*device, input, occupancy)) {
            c.occupancyPct = occupancy.occupancyPct;
            c.limiter = joinNames(occupancy.limiterNames());
            if (occupancy.activeBlocksPerSm == 0) c.violation = "cannot be resident on one SM (limited by " + c.limiter + ")";
            // Kineto's "est. achieved occupancy %": the theoretical figure, capped by the warps the
            // grid can put on each SM.
            const double warpsPerBlock = std::ceil(static_cast<double>(input.threadsPerBlock) / device->warpSize);
            const double gridWarpsPerSm = static_cast<double>(saturatingVolume(c.grid)) / device->smCount * warpsPerBlock;
            const double gridPct = occupancy.maxWarpsPerSm > 0 ? 100.0 * gridWarpsPerSm / occupancy.maxWarpsPerSm : 0.0;
            c.estAchievedOccupancyPct = std::min(occupancy.occupancyPct, gridPct);
        }
        if (!c.violation.empty()) out.launchViolations.push_back(c);
        if (c.kinetoOccupancyPct && c.estAchievedOccupancyPct &&
            std::fabs(*c.kinetoOccupancyPct - *c.estAchievedOccupancyPct) > kOccupancyTolerancePct)
            out.occupancyCorrections.push_back(c);
    }
    out.distinctConfigurations = static_cast<std::int64_t>(configs.size());
    if (noFigures > 0)
        out.notes.push_back(std::to_string(noFigures) +
                            " kernels carry no grid, block, register or shared-memory figures "
                            "(e.g. a ROCm trace): they cannot be checked");
    if (noDevice > 0)
        out.notes.push_back(std::to_string(noDevice) +
                            " kernels run on a device whose limits are unknown: not checked, "
                            "occupancy unknown");
}

}  // namespace tilescope

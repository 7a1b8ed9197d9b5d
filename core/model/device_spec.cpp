#include "core/model/device_spec.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/model/embedded_resources.h"

namespace tilescope {

int toolkitCudaRuntime() { return TILESCOPE_CUDA_TOOLKIT_MAJOR; }

using nlohmann::json;

std::string ComputeCapability::toString() const { return std::to_string(major) + "." + std::to_string(minor); }

std::string DeviceSpec::archName() const { return "sm_" + std::to_string(computeCapability.smVersion()); }

namespace {

// Reads the fields of one device or architecture entry; `where` prefixes every error.
class DeviceReader {
public:
    DeviceReader(const json& object, std::string where) : m_object(object), m_where(std::move(where)) {}

    const std::optional<std::string>& error() const { return m_error; }

    std::int64_t integer(const char* field, std::int64_t minimum, std::int64_t maximum) {
        if (m_error) return 0;
        auto it = m_object.find(field);
        if (it == m_object.end()) return fail(field, "is missing");
        if (!it->is_number_integer()) return fail(field, "must be an integer, got " + it->dump());
        const auto value = it->get<std::int64_t>();
        if (value < minimum || value > maximum) {
            return fail(field, "= " + std::to_string(value) + " is out of range [" + std::to_string(minimum) + ", " +
                                   std::to_string(maximum) + "]");
        }
        return value;
    }

    int integer32(const char* field, std::int64_t minimum, std::int64_t maximum) {
        return static_cast<int>(integer(field, minimum, maximum));
    }

    // A field that may be null (unknown) or absent.
    std::optional<double> optionalNumber(const char* field, double minimum, double maximum) {
        if (m_error) return std::nullopt;
        auto it = m_object.find(field);
        if (it == m_object.end() || it->is_null()) return std::nullopt;
        if (!it->is_number()) {
            fail(field, "must be a number or null, got " + it->dump());
            return std::nullopt;
        }
        const double value = it->get<double>();
        if (!(value >= minimum && value <= maximum)) {
            fail(field, "= " + it->dump() + " is out of range");
            return std::nullopt;
        }
        return value;
    }

    std::array<std::int64_t, 3> triple(const char* field, std::int64_t minimum, std::int64_t maximum) {
        std::array<std::int64_t, 3> out{};
        if (m_error) return out;
        auto it = m_object.find(field);
        if (it == m_object.end()) {
            fail(field, "is missing");
            return out;
        }
        if (!it->is_array() || it->size() != 3) {
            fail(field, "must be an array of 3 integers, got " + it->dump());
            return out;
        }
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& v = (*it)[i];
            if (!v.is_number_integer() || v.get<std::int64_t>() < minimum || v.get<std::int64_t>() > maximum) {
                fail(field, "[" + std::to_string(i) + "] must be an integer in [" + std::to_string(minimum) + ", " +
                                std::to_string(maximum) + "], got " + v.dump());
                return out;
            }
            out[i] = v.get<std::int64_t>();
        }
        return out;
    }

    bool isNull(const char* field) const {
        auto it = m_object.find(field);
        return it == m_object.end() || it->is_null();
    }

    std::string text(const char* field, bool required) {
        if (m_error) return {};
        auto it = m_object.find(field);
        if (it == m_object.end()) {
            if (required) fail(field, "is missing");
            return {};
        }
        if (!it->is_string()) {
            fail(field, "must be a string, got " + it->dump());
            return {};
        }
        return it->get<std::string>();
    }

    ComputeCapability computeCapability() {
        const auto pair = [&]() -> std::array<std::int64_t, 2> {
            auto it = m_object.find("compute_capability");
            if (it == m_object.end()) {
                fail("compute_capability", "is missing");
                return {};
            }
            if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() || !(*it)[1].is_number_integer()) {
                fail("compute_capability", "must be [major, minor], got " + it->dump());
                return {};
            }
            return {(*it)[0].get<std::int64_t>(), (*it)[1].get<std::int64_t>()};
        }();
        if (m_error) return {};
        if (pair[0] < 1 || pair[0] > 99 || pair[1] < 0 || pair[1] > 9) {
            fail("compute_capability", "= [" + std::to_string(pair[0]) + ", " + std::to_string(pair[1]) + "] is not a compute capability");
            return {};
        }
        return {static_cast<int>(pair[0]), static_cast<int>(pair[1])};
    }

    void fail(const std::string& message) {
        if (!m_error) m_error = m_where + ": " + message;
    }

private:
    std::int64_t fail(const char* field, const std::string& what) {
        if (!m_error) m_error = m_where + ": field '" + field + "' " + what;
        return 0;
    }

    const json& m_object;
    std::string m_where;
    std::optional<std::string> m_error;
};

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMaxSmemBytes = 16 * kKiB * kKiB;                    // far above any GPU's 228 KB
constexpr double kMaxTflops = 1e6;                                          // far above any GPU's dense tensor peak
constexpr std::int64_t kMaxMemoryBytes = 1024LL * kKiB * kKiB * kKiB * 64;  // 64 TiB

// Fills the architecture limits shared by device and architecture entries.
void readLimits(DeviceReader& reader, DeviceSpec& spec) {
    spec.computeCapability = reader.computeCapability();
    spec.warpSize = reader.integer32("warp_size", 1, 1024);
    spec.maxThreadsPerBlock = reader.integer32("max_threads_per_block", 1, 1 << 16);
    spec.maxBlockDim = reader.triple("max_block_dim", 1, 1 << 16);
    spec.maxGridDim = reader.triple("max_grid_dim", 1, (1LL << 32) - 1);
    spec.regsPerSm = reader.integer32("regs_per_sm", 1, 1 << 24);
    spec.regsPerBlock = reader.integer32("regs_per_block", 1, 1 << 24);
    spec.maxRegsPerThread = reader.integer32("max_regs_per_thread", 1, 1 << 16);
    spec.smemPerBlock = reader.integer("smem_per_block", 0, kMaxSmemBytes);
    spec.smemPerBlockOptin = reader.integer("smem_per_block_optin", 0, kMaxSmemBytes);
    spec.smemPerSm = reader.integer("smem_per_sm", 0, kMaxSmemBytes);
    spec.reservedSmemPerBlock = reader.integer("reserved_smem_per_block", 0, kMaxSmemBytes);
    spec.maxBlocksPerSm = reader.integer32("max_blocks_per_sm", 1, 1 << 16);
    spec.maxThreadsPerSm = reader.integer32("max_threads_per_sm", 1, 1 << 20);
}

DeviceSpec readDevice(DeviceReader& reader, std::optional<std::string>& error) {
    DeviceSpec spec;
    spec.id = reader.text("id", true);
    spec.name = reader.text("name", true);
    spec.source = reader.text("source", false);
    readLimits(reader, spec);
    spec.smCount = reader.integer32("sm_count", 1, 1 << 20);
    spec.memoryBytes = reader.integer("memory_bytes", 1, kMaxMemoryBytes);
    spec.memoryBandwidthGBps = reader.optionalNumber("memory_bandwidth_gbps", 0.001, 1e6);
    if (auto l2 = reader.optionalNumber("l2_bytes", 0, 1e12)) spec.l2Bytes = static_cast<std::int64_t>(*l2);
    if (auto clock = reader.optionalNumber("sm_clock_mhz", 1, 1e5)) spec.smClockMhz = static_cast<int>(*clock);
    spec.fp16TensorTflops = reader.optionalNumber("fp16_tensor_tflops", 0.001, kMaxTflops);
    spec.bf16TensorTflops = reader.optionalNumber("bf16_tensor_tflops", 0.001, kMaxTflops);
    if (!reader.isNull("peak_source")) spec.peakSource = reader.text("peak_source", false);
    if (!reader.error() && spec.id.empty()) reader.fail("field 'id' must not be empty");
    if (!reader.error()) {
        if (auto valid = validateDevice(spec); !valid) reader.fail(valid.error());
    }
    error = reader.error();
    return spec;
}

}  // namespace

Result<void> validateDevice(const DeviceSpec& d) {
    auto bad = [&](const std::string& what) { return makeError("device '" + d.id + "': " + what); };
    if (d.smemPerBlock > d.smemPerBlockOptin)
        return bad("field 'smem_per_block' (" + std::to_string(d.smemPerBlock) + ") exceeds 'smem_per_block_optin' (" +
                   std::to_string(d.smemPerBlockOptin) + ")");
    if (d.smemPerBlockOptin > d.smemPerSm)
        return bad("field 'smem_per_block_optin' (" + std::to_string(d.smemPerBlockOptin) + ") exceeds 'smem_per_sm' (" +
                   std::to_string(d.smemPerSm) + ")");
    if (d.maxThreadsPerBlock > d.maxThreadsPerSm) return bad("field 'max_threads_per_block' exceeds 'max_threads_per_sm'");
    if (d.regsPerBlock > d.regsPerSm) return bad("field 'regs_per_block' exceeds 'regs_per_sm'");
    if (d.warpSize <= 0 || d.maxThreadsPerSm % d.warpSize != 0) return bad("field 'max_threads_per_sm' must be a multiple of 'warp_size'");
    // A peak without its source could not be shown as a datasheet figure.
    if ((d.fp16TensorTflops || d.bf16TensorTflops) && d.peakSource.empty())
        return bad("field 'peak_source' must name where 'fp16_tensor_tflops' / 'bf16_tensor_tflops' come from");
    return {};
}

const DeviceSpec* DeviceDatabase::find(std::string_view id) const {
    auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const DeviceSpec& d) { return d.id == id; });
    return it == m_devices.end() ? nullptr : &*it;
}

const DeviceSpec& DeviceDatabase::defaultDevice() const {
    if (const auto* d = find(m_defaultId)) return *d;
    return m_devices.front();
}

const ArchitectureLimits* DeviceDatabase::architecture(ComputeCapability cc) const {
    const ArchitectureLimits* best = nullptr;
    for (const auto& arch : m_architectures) {
        if (arch.computeCapability.major != cc.major || arch.computeCapability.minor > cc.minor) continue;
        if (!best || arch.computeCapability.minor > best->computeCapability.minor) best = &arch;
    }
    return best;
}

Result<DeviceDatabase> DeviceDatabase::fromJsonText(std::string_view text, std::string_view origin) {
    const std::string where(origin);
    json document = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
    if (document.is_discarded()) return makeError(where + ": not valid JSON");
    if (!document.is_object()) return makeError(where + ": expected a JSON object");

    DeviceDatabase database;
    auto readOne = [&](const json& entry, const std::string& entryWhere) -> std::optional<std::string> {
        if (!entry.is_object()) return entryWhere + ": expected an object";
        DeviceReader reader(entry, entryWhere);
        std::optional<std::string> error;
        DeviceSpec spec = readDevice(reader, error);
        if (error) return error;
        if (database.find(spec.id)) return entryWhere + ": duplicate device id '" + spec.id + "'";
        database.m_devices.push_back(std::move(spec));
        return std::nullopt;
    };

    if (auto devices = document.find("devices"); devices != document.end()) {
        if (!devices->is_array() || devices->empty()) return makeError(where + ": 'devices' must be a non-empty array");
        for (std::size_t i = 0; i < devices->size(); ++i) {
            std::string entryWhere = where + ": devices[" + std::to_string(i) + "]";
            if ((*devices)[i].is_object() && (*devices)[i].contains("id") && (*devices)[i]["id"].is_string())
                entryWhere += " ('" + (*devices)[i]["id"].get<std::string>() + "')";
            if (auto error = readOne((*devices)[i], entryWhere)) return makeError(*error);
        }
    } else {
        if (auto error = readOne(document, where)) return makeError(*error);
    }

    if (auto archs = document.find("architectures"); archs != document.end() && archs->is_array()) {
        for (std::size_t i = 0; i < archs->size(); ++i) {
            DeviceReader reader((*archs)[i], where + ": architectures[" + std::to_string(i) + "]");
            ArchitectureLimits arch;
            readLimits(reader, arch.limits);
            if (reader.error()) return makeError(*reader.error());
            arch.computeCapability = arch.limits.computeCapability;
            database.m_architectures.push_back(std::move(arch));
        }
    }
    if (auto def = document.find("default"); def != document.end() && def->is_string()) {
        database.m_defaultId = def->get<std::string>();
        if (!database.find(database.m_defaultId))
            return makeError(where + ": default device '" + database.m_defaultId + "' is not in 'devices'");
    } else {
        database.m_defaultId = database.m_devices.front().id;
    }
    return database;
}

Result<DeviceDatabase> DeviceDatabase::fromFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError(path + ": cannot open device file");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return fromJsonText(buffer.str(), path);
}

const DeviceDatabase& DeviceDatabase::embedded() {
    static const DeviceDatabase database = [] {
        auto parsed = fromJsonText(embeddedDevicesJson(), "resources/devices.json (embedded)");
        // The embedded file is tested in CI; a broken one is a build defect, not a user error.
        if (!parsed) throw std::logic_error(parsed.error());
        return std::move(parsed).value();
    }();
    return database;
}

Result<DeviceSpec> resolveDevice(std::string_view idOrPath, const DeviceDatabase& database) {
    if (const auto* spec = database.find(idOrPath)) return *spec;
    const bool looksLikePath =
        idOrPath.find('/') != std::string_view::npos || (idOrPath.size() > 5 && idOrPath.substr(idOrPath.size() - 5) == ".json");
    if (looksLikePath) {
        auto file = DeviceDatabase::fromFile(std::string(idOrPath));
        if (!file) return makeError(file.error());
        return file->devices().front();
    }
    std::string known;
    for (const auto& d : database.devices()) known += (known.empty() ? "" : ", ") + d.id;
    return makeError("unknown device '" + std::string(idOrPath) + "'; known devices: " + known + " (or a path to a device .json file)");
}

}  // namespace tilescope

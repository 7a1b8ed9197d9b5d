// The Kineto import streams the file through a small buffer: the byte scanner of core/json_stream
// finds each traceEvents entry (strings and nesting respected, bracket pairs checked), a cheap look
// at its "cat" skips what is not a kernel or a launch call, and simdjson's On-Demand parser reads
// the few events that are. Nothing is kept per event except kernels and launch calls.
#include "core/trace/kineto_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include <simdjson.h>

#include "core/trace/json_stream.h"
#include "core/trace/kineto_checks.h"

namespace tilescope {

namespace {

constexpr std::size_t kMaxCapturedScalar = 256;  // top-level version fields
constexpr std::int64_t kNsPerUs = 1000;
constexpr std::int64_t kMaxKinetoInteger = std::int64_t{1} << 53;  // beyond what a profiler writes

// "1695835573023613" or "4203669603771.648" microseconds -> nanoseconds, exactly.
std::optional<std::int64_t> microsToNs(std::string_view raw) {
    while (!raw.empty() && isJsonSpace(raw.back())) raw.remove_suffix(1);
    if (raw.empty()) return std::nullopt;
    if (raw.find_first_of("eE") != std::string_view::npos) {
        const double v = std::strtod(std::string(raw).c_str(), nullptr);
        if (!std::isfinite(v) || std::fabs(v) > 9e15) return std::nullopt;
        return static_cast<std::int64_t>(std::llround(v * kNsPerUs));
    }
    bool negative = false;
    std::size_t i = 0;
    if (raw[0] == '-') {
        negative = true;
        i = 1;
    }
    std::int64_t whole = 0;
    std::size_t digits = 0;
    for (; i < raw.size() && raw[i] >= '0' && raw[i] <= '9'; ++i, ++digits) {
        if (whole > (std::numeric_limits<std::int64_t>::max() / kNsPerUs - 9) / 10) return std::nullopt;
        whole = whole * 10 + (raw[i] - '0');
    }
    if (digits == 0) return std::nullopt;
    std::int64_t fraction = 0;  // in ns
    if (i < raw.size() && raw[i] == '.') {
        ++i;
        std::int64_t scale = 100;
        bool roundUp = false;
        std::size_t fractionDigits = 0;
        for (; i < raw.size() && raw[i] >= '0' && raw[i] <= '9'; ++i, ++fractionDigits) {
            if (scale > 0) {
                fraction += (raw[i] - '0') * scale;
                scale /= 10;
            } else if (fractionDigits == 3) {
                roundUp = raw[i] >= '5';
            }
        }
        if (fractionDigits == 0) return std::nullopt;
        if (roundUp) ++fraction;
    }
    if (i != raw.size()) return std::nullopt;
    const std::int64_t ns = whole * kNsPerUs + fraction;
    return negative ? -ns : ns;
}

// ---- per-run state

struct LaunchCall {
    std::uint32_t api = 0;  // index into KinetoParser::m_apiNames
    std::int64_t startNs = 0;
};

struct ConfigKeyHash {
    std::size_t operator()(const std::string& s) const { return std::hash<std::string>{}(s); }
};

// The Kineto event logic on top of the byte source (core/json_stream): the top-level object,
// traceEvents, and the kernels and launch calls kept from it.
class KinetoParser : private JsonByteStream {
public:
    KinetoParser(const std::string& path, const KinetoImportOptions& options)
        : JsonByteStream(path, JsonStreamLimits{options.readChunkBytes, options.maxEventBytes, options.cancel, options.progress}),
          m_options(options) {}

    Result<KinetoImport> run();

private:
    bool parseTopLevel();
    bool parseEvents(std::size_t& p);
    bool handleEvent(std::size_t begin, std::size_t end);
    bool parseKernel(simdjson::ondemand::object& object, std::size_t begin);
    bool parseLaunch(simdjson::ondemand::object& object, std::size_t begin);

    const KinetoImportOptions& m_options;

    simdjson::ondemand::parser m_parser;
    std::int64_t m_eventIndex = 0;
    std::string m_deviceProperties;  // raw JSON, parsed at the end
    std::uint64_t m_devicePropertiesOffset = 0;
    std::unordered_map<std::string, std::string> m_scalars;  // top-level version fields
    bool m_sawEvents = false;

    std::vector<SharedString> m_apiNames;  // each record linked to a call shares its API's name
    std::unordered_map<std::int64_t, LaunchCall> m_launches;
    std::vector<std::int64_t> m_kernelCorrelations;  // when records are not kept
    std::vector<KernelRecord> m_records;
    StringInterner m_kernelNames;  // the records share one string per distinct kernel name
    std::int64_t m_kernelCount = 0;
    std::unordered_map<std::string, std::size_t, ConfigKeyHash> m_configIndex;
    std::vector<LaunchConfigFinding> m_configs;
    std::string m_key;
};

bool KinetoParser::parseTopLevel() {
    startBuffer();
    std::size_t p = 0;
    auto truncated = [&](const char* expected) {
        if (m_error) return false;
        return fail(m_base + m_end, std::string("the file ends early; expected ") + expected + " (truncated?)");
    };
    if (!skipSpace(p)) {
        if (m_error) return false;
        return fail(0, "empty file (expected a Chrome trace: a JSON object with traceEvents, or an event array)");
    }
    // A UTF-8 byte order mark is harmless.
    if (m_end - p >= 3 && std::memcmp(m_buffer.data() + p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3;
        if (!skipSpace(p)) return truncated("a JSON value");
    }
    const char first = m_buffer[p];
    if (first == '[') {
        if (!parseEvents(p)) return false;
        m_sawEvents = true;
    } else if (first == '{') {
        ++p;
        if (!skipSpace(p)) return truncated("a key or '}'");
        if (m_buffer[p] == '}') {
            ++p;
        } else {
            for (;;) {
                if (m_buffer[p] != '"') return fail(m_base + p, "expected a key string in the top-level object");
                std::size_t keyStart = p, keyEnd = 0;
                if (!scanValue(keyStart, keyEnd, true)) return false;
                const std::string key(m_buffer.data() + keyStart + 1, keyEnd - keyStart - 2);
                p = keyEnd;
                if (!skipSpace(p)) return truncated("':'");
                if (m_buffer[p] != ':') return fail(m_base + p, "expected ':' after the key \"" + key + "\"");
                ++p;
                if (!skipSpace(p)) return truncated("a value");
                if (key == "traceEvents") {
                    if (m_buffer[p] != '[') return fail(m_base + p, "expected traceEvents to be an array");
                    if (!parseEvents(p)) return false;
                    m_sawEvents = true;
                } else if (key == "deviceProperties" || key == "cuda_runtime_version" || key == "cupti_version" ||
                           key == "cuda_driver_version") {
                    std::size_t start = p, end = 0;
                    if (!scanValue(start, end, true)) return false;
                    if (key == "deviceProperties") {
                        m_deviceProperties.assign(m_buffer.data() + start, end - start);
                        m_devicePropertiesOffset = m_base + start;
                    } else if (end - start <= kMaxCapturedScalar) m_scalars[key].assign(m_buffer.data() + start, end - start);
                    p = end;
                } else {
                    std::size_t start = p, end = 0;
                    if (!scanValue(start, end, false)) return false;
                    p = end;
                }
                if (!skipSpace(p)) return truncated("',' or '}'");
                if (m_buffer[p] == ',') {
                    ++p;
                    if (!skipSpace(p)) return truncated("a key");
                    continue;
                }
                if (m_buffer[p] == '}') {
                    ++p;
                    break;
                }
                return fail(m_base + p, std::string("expected ',' or '}' after the value of \"") + key + "\"");
            }
        }
    } else {
        char shown[16];
        if (first > 0x20 && first < 0x7f) std::snprintf(shown, sizeof shown, "'%c'", first);
        else std::snprintf(shown, sizeof shown, "byte 0x%02x", static_cast<unsigned char>(first));
        return fail(m_base + p, std::string("expected a Chrome trace: a JSON object ('{') or an event array ('['), found ") + shown);
    }
    // Only whitespace may follow the document.
    if (skipSpace(p)) return fail(m_base + p, "unexpected data after the end of the JSON document");
    if (m_error) return false;
    if (!m_sawEvents) return fail(0, "no traceEvents array: not a Chrome / PyTorch profiler trace");
    return true;
}

bool KinetoParser::parseEvents(std::size_t& p) {
    ++p;  // '['
    auto truncated = [&](const char* expected) {
        if (m_error) return false;
        return fail(m_base + m_end, std::string("the file ends inside traceEvents; expected ") + expected + " (truncated?)");
    };
    if (!skipSpace(p)) return truncated("an event or ']'");
    if (m_buffer[p] == ']') {
        ++p;
        return true;
    }
    for (;;) {
        if (m_buffer[p] != '{') return fail(m_base + p, "traceEvents[" + std::to_string(m_eventIndex) + "]: expected an event object");
        std::size_t start = p, end = 0;
        if (!scanValue(start, end, true)) return false;
        if (!handleEvent(start, end)) return false;
        p = end;
        if (!skipSpace(p)) return truncated("',' or ']'");
        if (m_buffer[p] == ',') {
            ++p;
            if (!skipSpace(p)) return truncated("an event");
            continue;
        }
        if (m_buffer[p] == ']') {
            ++p;
            return true;
        }
        return fail(m_base + p, "expected ',' or ']' after traceEvents[" + std::to_string(m_eventIndex - 1) + "]");
    }
}

enum class EventKind { Other, Kernel, Launch };

// A look at the raw bytes: the "cat" value decides whether the event is parsed at all.
EventKind classify(std::string_view event, std::size_t catKey) {
    std::size_t at = catKey < event.size() ? catKey : 0;
    for (;;) {
        const void* found = at < event.size() ? memmem(event.data() + at, event.size() - at, "\"cat\"", 5) : nullptr;
        if (!found) break;
        at = static_cast<std::size_t>(static_cast<const char*>(found) - event.data());
        std::size_t p = at + 5;
        at = p;
        while (p < event.size() && isJsonSpace(event[p])) ++p;
        if (p >= event.size() || event[p] != ':') continue;
        ++p;
        while (p < event.size() && isJsonSpace(event[p])) ++p;
        const std::string_view value = event.substr(p);
        if (value.starts_with("\"kernel\"") || value.starts_with("\"Kernel\"")) return EventKind::Kernel;
        if (value.starts_with("\"cuda_runtime\"") || value.starts_with("\"cuda_driver\"") || value.starts_with("\"Runtime\"")) {
            // Only launch calls are linked to kernels.
            return event.find("aunch") != std::string_view::npos ? EventKind::Launch : EventKind::Other;
        }
        // The scanner saw this event's own "cat" key: its value decides, no need to look further.
        if (catKey < event.size()) return EventKind::Other;
    }
    return EventKind::Other;
}

bool KinetoParser::handleEvent(std::size_t begin, std::size_t end) {
    ++m_eventIndex;
    const EventKind kind = classify(std::string_view(m_buffer.data() + begin, end - begin), m_catKey);
    if (kind == EventKind::Other) return true;
    simdjson::padded_string_view view(m_buffer.data() + begin, end - begin, m_buffer.size() - begin);
    simdjson::ondemand::document document;
    simdjson::ondemand::object object;
    auto error = m_parser.iterate(view).get(document);
    if (!error) error = document.get_object().get(object);
    if (error) return fail(m_base + begin, "traceEvents[" + std::to_string(m_eventIndex - 1) + "]: " + simdjson::error_message(error));
    return kind == EventKind::Kernel ? parseKernel(object, begin) : parseLaunch(object, begin);
}

namespace json = simdjson::ondemand;

bool KinetoParser::parseKernel(json::object& object, std::size_t begin) {
    KernelRecord r;
    r.grid = Dim3{0, 0, 0};  // 0 x 0 x 0: not recorded (a real launch has every dimension >= 1)
    r.block = Dim3{0, 0, 0};
    bool isKernel = false, haveTs = false, haveDur = false, haveDevice = false, haveGrid = false, haveBlock = false;
    std::int64_t durNs = 0, pid = -1;
    std::string where = "traceEvents[" + std::to_string(m_eventIndex - 1) + "]";
    auto bad = [&](std::string_view field, const std::string& what) {
        return fail(m_base + begin, where + (field.empty() ? "" : "." + std::string(field)) + ": " + what);
    };
    auto integer = [&](json::value value, std::string_view field, std::int64_t& out) {
        std::int64_t v = 0;
        if (auto e = value.get_int64().get(v)) return bad(field, std::string("expected an integer (") + simdjson::error_message(e) + ")");
        if (v < -kMaxKinetoInteger || v > kMaxKinetoInteger) return bad(field, "value " + std::to_string(v) + " is out of range");
        out = v;
        return true;
    };
    auto dims = [&](json::value value, std::string_view field, Dim3& out) {
        json::array array;
        if (value.get_array().get(array)) return bad(field, "expected an array of 3 integers");
        std::int64_t d[3] = {0, 0, 0};
        int count = 0;
        for (auto element : array) {
            std::int64_t v = 0;
            if (element.get_int64().get(v) || v < 0 || v > kMaxKinetoInteger)
                return bad(field, "expected an array of 3 non-negative integers");
            if (count < 3) d[count] = v;
            ++count;
        }
        if (count != 3) return bad(field, "expected 3 dimensions, got " + std::to_string(count));
        out = Dim3{d[0], d[1], d[2]};
        return true;
    };
    for (auto fieldResult : object) {
        json::field field;
        std::string_view key;
        if (auto e = std::move(fieldResult).get(field)) return bad("", simdjson::error_message(e));
        if (auto e = field.unescaped_key().get(key)) return bad("", simdjson::error_message(e));
        json::value value = field.value();
        if (key == "cat") {
            std::string_view cat;
            if (value.get_string().get(cat)) return bad("cat", "expected a string");
            isKernel = cat == "kernel" || cat == "Kernel";
        } else if (key == "name") {
            std::string_view name;
            if (value.get_string().get(name)) return bad("name", "expected a string");
            r.name = m_kernelNames.intern(name);
        } else if (key == "ts" || key == "dur") {
            std::string_view raw = value.raw_json_token();
            auto ns = microsToNs(raw);
            if (!ns) return bad(key, "expected a time in microseconds, got " + std::string(raw.substr(0, 40)));
            if (key == "ts") {
                r.startNs = *ns;
                haveTs = true;
            } else {
                durNs = *ns;
                haveDur = true;
            }
        } else if (key == "pid") {
            std::int64_t v = 0;
            if (!value.get_int64().get(v)) pid = v;  // a string pid (a process name) says nothing about the device
        } else if (key == "args") {
            json::object args;
            if (value.get_object().get(args)) return bad("args", "expected an object");
            for (auto argResult : args) {
                json::field arg;
                std::string_view name;
                if (auto e = std::move(argResult).get(arg)) return bad("args", simdjson::error_message(e));
                if (auto e = arg.unescaped_key().get(name)) return bad("args", simdjson::error_message(e));
                json::value v = arg.value();
                std::int64_t n = 0;
                if (name == "device") {
                    if (!integer(v, "args.device", n)) return false;
                    if (n < 0 || n > (1 << 20)) return bad("args.device", "expected a device index");
                    r.device = static_cast<int>(n);
                    haveDevice = true;
                } else if (name == "stream") {
                    if (!integer(v, "args.stream", n)) return false;
                    r.stream = n;
                } else if (name == "correlation") {
                    if (!integer(v, "args.correlation", n)) return false;
                    r.correlationId = n;
                } else if (name == "External id") {
                    if (!integer(v, "args.External id", n)) return false;
                    r.externalId = n;
                } else if (name == "registers per thread") {
                    if (!integer(v, "args.registers per thread", n)) return false;
                    if (n < 0 || n > (1 << 16)) return bad("args.registers per thread", "out of range");
                    r.registersPerThread = static_cast<int>(n);
                } else if (name == "shared memory") {
                    if (!integer(v, "args.shared memory", n)) return false;
                    if (n < 0) return bad("args.shared memory", "negative");
                    r.sharedMemory = n;
                } else if (name == "grid") {
                    if (!dims(v, "args.grid", r.grid)) return false;
                    haveGrid = true;
                } else if (name == "block") {
                    if (!dims(v, "args.block", r.block)) return false;
                    haveBlock = true;
                } else if (name == "est. achieved occupancy %") {
                    double pct = 0;
                    if (v.get_double().get(pct) || !std::isfinite(pct)) return bad("args.est. achieved occupancy %", "expected a number");
                    r.kinetoOccupancyPct = pct;
                }
            }
        }
    }
    if (!isKernel) return true;  // a nested "cat" fooled the look at the raw bytes
    if (!haveTs || !haveDur) return bad("", "a kernel event needs \"ts\" and \"dur\"");
    if (durNs < 0) return bad("dur", "negative duration");
    if (!haveDevice && pid >= 0 && pid <= (1 << 20)) r.device = static_cast<int>(pid);
    if (!haveGrid || !haveBlock) r.grid = r.block = Dim3{0, 0, 0};
    r.endNs = r.startNs + durNs;
    ++m_kernelCount;

    // One finding per distinct launch configuration.
    m_key.assign(r.name);
    auto add = [&](std::int64_t v) {
        m_key += '\x1f';
        m_key += std::to_string(v);
    };
    add(r.device);
    for (auto v : {r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z}) add(v);
    add(r.registersPerThread.value_or(-1));
    add(r.sharedMemory.value_or(-1));
    add(r.kinetoOccupancyPct ? static_cast<std::int64_t>(std::llround(*r.kinetoOccupancyPct * 1000.0)) : -1);
    auto [it, inserted] = m_configIndex.try_emplace(m_key, m_configs.size());
    if (inserted) m_configs.push_back(launchConfigOf(r, r.sharedMemory));
    ++m_configs[it->second].count;

    if (m_options.keepRecords) m_records.push_back(std::move(r));
    else m_kernelCorrelations.push_back(r.correlationId);
    return true;
}

bool KinetoParser::parseLaunch(json::object& object, std::size_t begin) {
    std::string_view name;
    std::int64_t correlation = 0, startNs = 0;
    bool haveCorrelation = false, haveTs = false;
    for (auto fieldResult : object) {
        json::field field;
        std::string_view key;
        if (std::move(fieldResult).get(field) || field.unescaped_key().get(key))
            return fail(m_base + begin, "traceEvents[" + std::to_string(m_eventIndex - 1) + "]: malformed event");
        json::value value = field.value();
        if (key == "name") {
            if (value.get_string().get(name)) name = {};
        } else if (key == "ts") {
            if (auto ns = microsToNs(value.raw_json_token())) {
                startNs = *ns;
                haveTs = true;
            }
        } else if (key == "args") {
            json::object args;
            if (value.get_object().get(args)) continue;
            for (auto argResult : args) {
                json::field arg;
                std::string_view argName;
                if (std::move(argResult).get(arg) || arg.unescaped_key().get(argName)) break;
                if (argName == "correlation") {
                    std::int64_t v = 0;
                    if (!arg.value().get_int64().get(v)) {
                        correlation = v;
                        haveCorrelation = true;
                    }
                }
            }
        }
    }
    // Launch calls only: cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, hipLaunchKernel, ...
    if (!haveCorrelation || !haveTs || name.find("aunch") == std::string_view::npos) return true;
    std::uint32_t api = 0;
    while (api < m_apiNames.size() && m_apiNames[api] != name) ++api;
    if (api == m_apiNames.size()) m_apiNames.emplace_back(name);
    m_launches[correlation] = LaunchCall{api, startNs};
    return true;
}

Result<KinetoImport> KinetoParser::run() {
    if (auto opened = m_input.open(m_path); !opened) return makeError(opened.error());
    if (!parseTopLevel()) return makeError(*m_error);
    reportProgress(true);

    KinetoImport out;
    out.path = m_path;
    out.bytes = m_base + m_end;
    out.eventCount = m_eventIndex;
    out.kernelCount = m_kernelCount;
    auto devices = kinetoDevicesFromJson(m_deviceProperties);
    if (!devices) return makeError(m_path + ": byte " + std::to_string(m_devicePropertiesOffset) + ": " + devices.error());
    out.devices = std::move(devices).value();
    for (const char* key : {"cuda_runtime_version", "cupti_version", "cuda_driver_version"}) {
        auto it = m_scalars.find(key);
        if (it == m_scalars.end()) continue;
        std::string value = it->second;
        if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
        (std::string_view(key) == "cuda_runtime_version" ? out.cudaRuntimeVersion
         : std::string_view(key) == "cupti_version"      ? out.cuptiVersion
                                                         : out.cudaDriverVersion) = value;
    }

    // Devices: what was filled in, and what cannot be checked.
    if (m_deviceProperties.empty()) {
        if (m_options.assumedDevice)
            out.notes.push_back("the trace has no deviceProperties: every kernel is checked against the assumed device " +
                                m_options.assumedDevice->id + " (" + m_options.assumedDevice->name + ")");
        else
            out.notes.push_back(
                "the trace has no deviceProperties: device limits and compute capability are unknown, "
                "so launches are not checked and occupancy is unknown");
    }
    // One note per kind of device: a trace of eight identical GPUs says it once.
    std::vector<std::pair<std::string, std::vector<int>>> deviceNotes;
    for (const auto& d : out.devices) {
        std::string text = d.spec.name + (d.checkable ? ", " + d.spec.archName() : "") + "): ";
        if (!d.checkable) text += d.why;
        else if (!d.filled.empty())
            text += joinKinetoNames(d.filled) + " taken from the " + d.spec.archName() +
                    " architecture table (Kineto's deviceProperties leave them out); reserved_smem_per_block = " +
                    std::to_string(d.spec.reservedSmemPerBlock) + " B";
        else continue;
        auto it = std::find_if(deviceNotes.begin(), deviceNotes.end(), [&](const auto& n) { return n.first == text; });
        if (it == deviceNotes.end()) deviceNotes.push_back({text, {d.ordinal}});
        else it->second.push_back(d.ordinal);
    }
    for (const auto& [text, ordinals] : deviceNotes) {
        std::string label = ordinals.size() == 1 ? "GPU " : "GPUs ";
        for (std::size_t i = 0; i < ordinals.size(); ++i) label += (i ? ", " : "") + std::to_string(ordinals[i]);
        out.notes.push_back(label + " (" + text);
    }

    // Launch calls, by correlation id.
    auto link = [&](std::int64_t correlation) -> const LaunchCall* {
        auto it = m_launches.find(correlation);
        return it == m_launches.end() ? nullptr : &it->second;
    };
    for (auto& r : m_records) {
        if (const LaunchCall* call = link(r.correlationId)) {
            r.launchApi = m_apiNames[call->api];
            r.launchStartNs = call->startNs;
            ++out.linkedLaunches;
        }
    }
    for (auto correlation : m_kernelCorrelations)
        if (link(correlation)) ++out.linkedLaunches;

    checkLaunchConfigurations(m_configs, m_options.assumedDevice, out);
    if (!out.occupancyCorrections.empty()) {
        std::int64_t kernels = 0;
        for (const auto& c : out.occupancyCorrections) kernels += c.count;
        out.notes.push_back(std::to_string(kernels) + " kernels (" + std::to_string(out.occupancyCorrections.size()) +
                            " launch configurations): Kineto's occupancy differs from cuda_occupancy.h's; Kineto applies "
                            "the 48 KB default shared-memory limit to kernels that opted in above it");
    }
    out.kernels = std::move(m_records);
    return out;
}

}  // namespace

Trace KinetoImport::toTrace() const {
    Trace trace;
    trace.build = BuildInfo::current();
    trace.source = "PyTorch profiler (Kineto) trace " + std::filesystem::path(path).filename().string();
    if (cudaRuntimeVersion || cuptiVersion || cudaDriverVersion)
        trace.notes.push_back("recorded with CUDA runtime " + cudaRuntimeVersion.value_or("unknown") + ", CUPTI " +
                              cuptiVersion.value_or("unknown") + ", driver " + cudaDriverVersion.value_or("unknown") +
                              " (Kineto's numbering)");
    trace.notes.insert(trace.notes.end(), notes.begin(), notes.end());
    trace.notes.push_back("a grid and block of (0, 0, 0) mean the trace did not record them");
    for (const auto& d : devices)
        if (d.checkable) trace.devices.push_back(d.spec);
    trace.records = kernels;
    return trace;
}

Result<KinetoImport> importKinetoFile(const std::string& path, const KinetoImportOptions& options) {
    KinetoParser parser(path, options);
    return parser.run();
}

LaunchConfigFinding launchConfigOf(const KernelRecord& record, std::optional<std::int64_t> sharedMemory) {
    LaunchConfigFinding finding;
    finding.name = record.name;
    finding.device = record.device;
    finding.grid = record.grid;
    finding.block = record.block;
    finding.registers = record.registersPerThread;
    finding.sharedMemory = sharedMemory;
    finding.kinetoOccupancyPct = record.kinetoOccupancyPct;
    return finding;
}

}  // namespace tilescope

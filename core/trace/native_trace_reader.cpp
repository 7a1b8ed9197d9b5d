// Every check here is one the DOM reader makes (core/json_io, core/json_reader, core/trace_io),
// applied to simdjson's values; where this reader is unsure it declines (nullopt) rather than
// guess, so a trace it takes reads as the DOM reader reads it, and any other is left to that
// reader's error messages. Numbers follow nlohmann's types: an integer field takes an int64 or a
// uint64 (up to the field's maximum), a number field any number or the strings "nan", "inf" and
// "-inf" the writers use.
#include "core/trace/native_trace_reader.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "core/trace/json_io.h"
#include "core/trace/json_stream.h"
#include "core/trace/trace_io.h"

namespace tilescope {

namespace {

namespace dom = simdjson::dom;
using nlohmann::ordered_json;

// The DOM reader's bounds (core/trace/json_io.cpp's readers).
constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxFileInteger = std::int64_t{1} << 62;
constexpr std::int64_t kMaxRegisters = 1 << 16;
constexpr double kMaxFileNumber = 1e300;
constexpr std::size_t kMaxAxisValuesRead = 1 << 16;
constexpr std::int64_t kMaxSplitsRead = 1 << 20;

// A value as nlohmann's parser would have built it: non-negative integers unsigned, the last of
// duplicate keys kept at the first one's place.
ordered_json toJson(dom::element e) {
    switch (e.type()) {
        case dom::element_type::OBJECT: {
            ordered_json j = ordered_json::object();
            const dom::object object = e.get_object().value_unsafe();
            for (dom::key_value_pair field : object) j[std::string(field.key)] = toJson(field.value);
            return j;
        }
        case dom::element_type::ARRAY: {
            ordered_json j = ordered_json::array();
            const dom::array array = e.get_array().value_unsafe();
            for (dom::element v : array) j.push_back(toJson(v));
            return j;
        }
        case dom::element_type::INT64: {
            const std::int64_t v = e.get_int64().value_unsafe();
            return v >= 0 ? ordered_json(static_cast<std::uint64_t>(v)) : ordered_json(v);
        }
        case dom::element_type::UINT64: return ordered_json(e.get_uint64().value_unsafe());
        case dom::element_type::DOUBLE: return ordered_json(e.get_double().value_unsafe());
        case dom::element_type::STRING: return ordered_json(std::string(e.get_string().value_unsafe()));
        case dom::element_type::BOOL: return ordered_json(e.get_bool().value_unsafe());
        case dom::element_type::NULL_VALUE: break;
    }
    return ordered_json(nullptr);
}

// JsonReader::integer: an integer (int64, or uint64 up to `maximum`) in [minimum, maximum].
bool integerIn(dom::element e, std::int64_t minimum, std::int64_t maximum, std::int64_t& out) {
    std::int64_t v = 0;
    if (e.type() == dom::element_type::INT64) {
        v = e.get_int64().value_unsafe();
    } else if (e.type() == dom::element_type::UINT64) {
        const std::uint64_t u = e.get_uint64().value_unsafe();
        if (u > static_cast<std::uint64_t>(maximum)) return false;
        v = static_cast<std::int64_t>(u);
    } else {
        return false;
    }
    if (v < minimum || v > maximum) return false;
    out = v;
    return true;
}

// JsonReader::number: any number in [minimum, maximum], or "nan" / "inf" / "-inf" (not range-checked).
bool numberIn(dom::element e, double minimum, double maximum, double& out) {
    double v = 0.0;
    switch (e.type()) {
        case dom::element_type::INT64: v = static_cast<double>(e.get_int64().value_unsafe()); break;
        case dom::element_type::UINT64: v = static_cast<double>(e.get_uint64().value_unsafe()); break;
        case dom::element_type::DOUBLE: v = e.get_double().value_unsafe(); break;
        case dom::element_type::STRING: {
            const std::string_view s = e.get_string().value_unsafe();
            if (s == "nan") out = std::numeric_limits<double>::quiet_NaN();
            else if (s == "inf") out = std::numeric_limits<double>::infinity();
            else if (s == "-inf") out = -std::numeric_limits<double>::infinity();
            else return false;
            return true;
        }
        default: return false;
    }
    if (!(v >= minimum && v <= maximum)) return false;
    out = v;
    return true;
}

bool isNull(const dom::element* e) { return !e || e->is_null(); }

// The optional readers: absent or null is nullopt, anything else must be valid.
bool optionalInteger(const dom::element* e, std::int64_t minimum, std::int64_t maximum, std::optional<std::int64_t>& out) {
    if (isNull(e)) return true;
    std::int64_t v = 0;
    if (!integerIn(*e, minimum, maximum, v)) return false;
    out = v;
    return true;
}

bool text(const dom::element* e, std::string& out) {
    std::string_view s;
    if (!e || e->get_string().get(s)) return false;
    out.assign(s);
    return true;
}

bool dim3(const dom::element* e, Dim3& out) {
    dom::array array;
    if (!e || e->get_array().get(array) || array.size() != 3) return false;
    std::int64_t* fields[] = {&out.x, &out.y, &out.z};
    std::size_t i = 0;
    for (dom::element v : array)
        if (!integerIn(v, 0, kMaxFileInteger, *fields[i++])) return false;
    return true;
}

// A JSON object's fields by name, the last of duplicates kept (as nlohmann's parser keeps it).
template <std::size_t N>
struct Fields {
    std::array<dom::element, N> values{};
    std::array<bool, N> present{};
    const dom::element* operator[](std::size_t i) const { return present[i] ? &values[i] : nullptr; }
};

template <std::size_t N>
bool collect(dom::element e, const std::array<std::string_view, N>& names, Fields<N>& out) {
    dom::object object;
    if (e.get_object().get(object)) return false;
    // The writer's order first: the name after the last one matched is tried before the others.
    std::size_t next = 0;
    for (dom::key_value_pair field : object) {
        for (std::size_t k = 0; k < N; ++k) {
            const std::size_t i = (next + k) % N;
            if (field.key == names[i]) {
                out.values[i] = field.value;
                out.present[i] = true;
                next = i + 1;
                break;
            }
        }
    }
    return true;
}

// recordFromJson. A record is parsed alone (so the parser's buffers stay small and reused), and
// nests in the root object and the records array: its own depth may be two less than a trace's.
constexpr int kMaxRecordNesting = kMaxTraceNesting - 2;
constexpr std::array<std::string_view, 18> kRecordFields = {"name",
                                                            "start_ns",
                                                            "end_ns",
                                                            "device",
                                                            "stream",
                                                            "correlation_id",
                                                            "external_id",
                                                            "grid",
                                                            "block",
                                                            "registers_per_thread",
                                                            "static_smem",
                                                            "dynamic_smem",
                                                            "shared_memory",
                                                            "local_memory_per_thread",
                                                            "shmem_limit_config",
                                                            "kineto_occupancy_pct",
                                                            "launch_api",
                                                            "launch_start_ns"};

// A string field read into the text the read's records share.
bool sharedText(const dom::element* e, StringInterner& strings, SharedString& out) {
    std::string_view s;
    if (!e || e->get_string().get(s)) return false;
    out = strings.intern(s);
    return true;
}

bool readRecord(dom::element e, StringInterner& strings, KernelRecord& r) {
    Fields<kRecordFields.size()> f;
    if (!collect(e, kRecordFields, f)) return false;
    std::int64_t device = 0;
    if (!sharedText(f[0], strings, r.name)) return false;
    if (!f[1] || !integerIn(*f[1], -kMaxTime, kMaxTime, r.startNs)) return false;
    if (!f[2] || !integerIn(*f[2], -kMaxTime, kMaxTime, r.endNs)) return false;
    if (!f[3] || !integerIn(*f[3], -1, 1 << 20, device)) return false;
    r.device = static_cast<int>(device);
    if (!f[4] || !integerIn(*f[4], kMinInt, kMaxTime, r.stream)) return false;
    if (!f[5] || !integerIn(*f[5], kMinInt, kMaxTime, r.correlationId)) return false;
    if (!optionalInteger(f[6], kMinInt, kMaxTime, r.externalId)) return false;
    if (!dim3(f[7], r.grid) || !dim3(f[8], r.block)) return false;
    std::optional<std::int64_t> registers, limitConfig;
    if (!optionalInteger(f[9], 0, kMaxRegisters, registers)) return false;
    if (registers) r.registersPerThread = static_cast<int>(*registers);
    if (!optionalInteger(f[10], 0, kMaxFileInteger, r.staticSmem) || !optionalInteger(f[11], 0, kMaxFileInteger, r.dynamicSmem) ||
        !optionalInteger(f[12], 0, kMaxFileInteger, r.sharedMemory) ||
        !optionalInteger(f[13], 0, kMaxFileInteger, r.localMemoryPerThread) || !optionalInteger(f[14], 0, 16, limitConfig))
        return false;
    if (limitConfig) r.shmemLimitConfig = static_cast<int>(*limitConfig);
    if (!isNull(f[15])) {
        double pct = 0.0;
        if (!numberIn(*f[15], -kMaxFileNumber, kMaxFileNumber, pct)) return false;
        r.kinetoOccupancyPct = pct;
    }
    if (!isNull(f[16]) && !sharedText(f[16], strings, r.launchApi)) return false;
    if (!optionalInteger(f[17], -kMaxTime, kMaxTime, r.launchStartNs)) return false;
    return r.endNs >= r.startNs;
}

// axisFromJson.
bool readAxis(dom::element e, const ParameterList& parameters, SweepAxis& axis) {
    constexpr std::array<std::string_view, 3> names = {"parameter", "scale", "values"};
    Fields<names.size()> f;
    if (!collect(e, names, f)) return false;
    std::string name, scale;
    if (!text(f[0], name)) return false;
    axis.parameter = parameterIndex(parameters, name);
    if (axis.parameter < 0 || !text(f[1], scale) || (scale != "log2" && scale != "linear")) return false;
    axis.scale = scale == "log2" ? AxisScale::Log2 : AxisScale::Linear;
    dom::array values;
    if (!f[2] || f[2]->get_array().get(values) || values.size() == 0 || values.size() > kMaxAxisValuesRead) return false;
    const auto& spec = parameters[static_cast<std::size_t>(axis.parameter)];
    for (dom::element v : values) {
        std::int64_t value = 0;
        if (!integerIn(v, spec.minimum, spec.maximum, value)) return false;
        axis.values.push_back(value);
    }
    return true;
}

// boundaryMapFromJson, with the cells read here.
constexpr std::array<std::string_view, 10> kCellFields = {
    "x", "y", "verdict", "smem", "grid_blocks", "occupancy_pct", "padding_waste", "tile_index", "splits", "calls_library"};

// A cell as read: its x and y are checked against the map's axes once the map is built (the
// writer puts "device_spec" after "cells").
struct ReadCell {
    BoundaryCell cell;
    std::int64_t x = 0;
    std::optional<std::int64_t> y;  // nullopt: absent or not an integer (fine for a map without y)
};

bool readCell(dom::element e, ReadCell& out) {
    Fields<kCellFields.size()> f;
    if (!collect(e, kCellFields, f)) return false;
    BoundaryCell& cell = out.cell;
    if (!f[0] || !integerIn(*f[0], kMinInt, kMaxTime, out.x)) return false;
    std::int64_t y = 0;
    if (f[1] && integerIn(*f[1], kMinInt, kMaxTime, y)) out.y = y;
    std::string_view verdict;
    if (!f[2] || f[2]->get_string().get(verdict)) return false;
    const auto parsed = verdictFromName(verdict);
    if (!parsed) return false;
    cell.verdict = *parsed;
    if (!f[3] || !integerIn(*f[3], 0, kMaxFileInteger, cell.totalSmem)) return false;
    if (!f[4] || !integerIn(*f[4], 0, kMaxFileInteger, cell.gridBlocks)) return false;
    double number = 0.0;
    if (isNull(f[5])) cell.occupancyPct = -1.0f;
    else if (numberIn(*f[5], 0.0, 100.0, number)) cell.occupancyPct = static_cast<float>(number);
    else return false;
    if (!f[6] || !numberIn(*f[6], 0.0, 1.0, number)) return false;
    cell.paddingWaste = static_cast<float>(number);
    std::optional<std::int64_t> tile, splits;
    if (!optionalInteger(f[7], -1, 127, tile) || !optionalInteger(f[8], 1, kMaxSplitsRead, splits)) return false;
    cell.tileIndex = static_cast<signed char>(tile.value_or(-1));
    cell.splits = static_cast<int>(splits.value_or(1));
    if (f[9] && !isNull(f[9])) {
        bool library = false;
        if (f[9]->get_bool().get(library)) return false;
        cell.callsLibrary = library;
    }
    return true;
}

// Cells run along x, then y, as many as the map has (mapOfSweep); the map's axes are read back from it
// (tieFollowers may not change the swept values, but the DOM reader compares against the map's,
// so this does too).
bool fillCells(const std::vector<ReadCell>& cells, BoundaryMap& map) {
    int ix = 0, iy = 0;
    for (const ReadCell& c : cells) {
        if (c.x != map.xAxis().values[static_cast<std::size_t>(ix)]) return false;
        if (map.yAxis() && (!c.y || *c.y != map.yAxis()->values[static_cast<std::size_t>(iy)])) return false;
        map.cell(ix, iy) = c.cell;
        if (++ix == map.width()) {
            ix = 0;
            ++iy;
        }
    }
    return true;
}

// A sweep's map from its fields but the cells, which NativeTraceStream reads one at a time; only
// when `cellCount` cells fill it (checked before the map is allocated: a claimed size is no size).
std::optional<BoundaryMap> mapOfSweep(dom::element e, std::size_t index, std::size_t cellCount, const KernelRegistry& registry) {
    constexpr std::array<std::string_view, 6> names = {"device_spec", "kernel", "variant", "shape", "x", "y"};
    Fields<names.size()> f;
    if (!collect(e, names, f)) return std::nullopt;
    const std::string pointer = "/sweeps/" + std::to_string(index);
    if (!f[0] || !f[0]->is_object()) return std::nullopt;
    auto device = deviceFromJson(toJson(*f[0]), pointer + "/device_spec");
    std::string family, variant;
    if (!device || !text(f[1], family) || !text(f[2], variant)) return std::nullopt;
    auto kernel = resolveKernel(registry, family, variant);
    if (!kernel || !f[3] || !f[3]->is_object()) return std::nullopt;
    const auto& parameters = kernel->family->parameters();
    auto base = shapeFromJson(toJson(*f[3]), parameters, pointer + "/shape");
    SweepAxis x;
    std::optional<SweepAxis> y;
    if (!base || !f[4] || !readAxis(*f[4], parameters, x)) return std::nullopt;
    if (!isNull(f[5])) {
        y.emplace();
        if (!readAxis(*f[5], parameters, *y) || y->parameter == x.parameter) return std::nullopt;
    }
    if (cellCount != x.values.size() * (y ? y->values.size() : 1)) return std::nullopt;
    return BoundaryMap(*kernel, std::move(device).value(), *base, x, y);
}

// A key as nlohmann reads it, when it is plain: no escapes, no control bytes, valid UTF-8 (any
// other declines, and the DOM reader decides).
bool plainKey(std::string_view key) {
    for (const char c : key)
        if (static_cast<unsigned char>(c) < 0x20 || c == '\\') return false;
    return simdjson::validate_utf8(key.data(), key.size());
}

// The file, or text, read as a stream through a small buffer (core/trace/json_stream, the Kineto
// import's byte source): each record and each sweep cell is found by the byte scanner and parsed
// alone by simdjson's DOM parser, in place; every other value (small) is parsed whole.
// The memory touched is the buffer, the parsers' per-value buffers and the Trace read, never a
// copy of the file or a tape of it all: fresh memory is what a first read pays for most
// (docs/PERFORMANCE.md), and simdjson's On-Demand API would run its portable kernel here (the
// library's headers are built without AVX2), where the DOM parser picks the CPU's at run time.
class NativeTraceStream : private JsonByteStream {
public:
    explicit NativeTraceStream(const std::string& origin) : JsonByteStream(origin, limits()) {}

    std::optional<Trace> readFile(const std::string& path, const KernelRegistry& registry) {
        if (!m_input.open(path)) return std::nullopt;
        return read(registry);
    }
    std::optional<Trace> readText(std::string_view text, const KernelRegistry& registry) {
        m_input.openText(text);
        return read(registry);
    }

private:
    static JsonStreamLimits limits() {
        JsonStreamLimits limits;
        limits.maxValueBytes = static_cast<std::size_t>(kMaxTraceFileBytes);  // the sweeps are one value
        return limits;
    }

    std::optional<Trace> read(const KernelRegistry& registry) {
        // The DOM reader refuses more than kMaxTraceNesting levels, the root object one of them.
        // A sweep nests in the root and the sweeps array, a cell two levels deeper.
        if (m_values.allocate(kMinReadChunk, kMaxTraceNesting - 1) || m_recordParser.allocate(kMinReadChunk, kMaxRecordNesting) ||
            m_sweepParser.allocate(kMinReadChunk, kMaxTraceNesting - 2) || m_cellParser.allocate(kMinReadChunk, kMaxTraceNesting - 4))
            return std::nullopt;
        startBuffer();
        if (!readTopLevel(registry) || m_error || !m_sawRecords || !m_sawSweeps) return std::nullopt;
        auto trace = traceFromJson(m_rest, registry);
        if (!trace) return std::nullopt;
        trace->records = std::move(m_records);
        trace->sweeps = std::move(m_sweeps);
        return std::move(trace).value();
    }

    bool readTopLevel(const KernelRegistry& registry) {
        std::size_t p = 0;
        // A gzip file is not a native trace to the DOM reader: declined.
        if (!skipSpace(p) || m_input.compressed() || m_buffer[p] != '{') return false;
        ++p;
        if (!skipSpace(p)) return false;
        while (m_buffer[p] != '}') {
            if (m_buffer[p] != '"') return false;
            std::size_t keyStart = p, keyEnd = 0;
            if (!scanValue(keyStart, keyEnd, true)) return false;
            const std::string_view raw(m_buffer.data() + keyStart + 1, keyEnd - keyStart - 2);
            if (!plainKey(raw)) return false;
            const std::string key(raw);
            p = keyEnd;
            if (!skipSpace(p) || m_buffer[p] != ':') return false;
            ++p;
            if (!skipSpace(p)) return false;
            if (key == "records") {
                if (m_buffer[p] != '[' || !readRecords(p)) return false;
                m_sawRecords = true;
                m_rest[key] = ordered_json::array();
            } else if (key == "sweeps") {
                if (!readSweeps(p, registry)) return false;
                m_sawSweeps = true;
                m_rest[key] = ordered_json::array();
            } else {
                std::size_t start = p, end = 0;
                dom::element value;
                if (!scanValue(start, end, true) ||
                    m_values.parse(reinterpret_cast<const std::uint8_t*>(m_buffer.data() + start), end - start, false).get(value))
                    return false;
                m_rest[key] = toJson(value);
                p = end;
            }
            if (!skipSpace(p)) return false;
            if (m_buffer[p] == ',') {
                ++p;
                if (!skipSpace(p) || m_buffer[p] == '}') return false;
            } else if (m_buffer[p] != '}') {
                return false;
            }
        }
        ++p;
        return !skipSpace(p);  // only whitespace may follow
    }

    // Room for the records the rest of the input holds, from the mean size of those read so far
    // (`sampledBytes` of text, ending at the input's offset `readTo`), twice over: a PyTorch
    // trace's names run from 20 to 2,000 bytes, and capacity never written is address space, not
    // memory, where each regrowth copies every record into fresh memory.
    static constexpr std::size_t kRecordsSampled = 64;
    void reserveRecords(std::uint64_t sampledBytes, std::uint64_t readTo) {
        const std::uint64_t rest = m_input.size() - std::min<std::uint64_t>(m_input.size(), readTo);
        const std::uint64_t more = 2 * rest * m_records.size() / std::max<std::uint64_t>(sampledBytes, 1);
        m_records.reserve(m_records.size() + static_cast<std::size_t>(more) + 1);
        adviseHugePages(m_records.data(), m_records.capacity() * sizeof(KernelRecord));
    }

    // The last "records" key counts, as in nlohmann's parser.
    bool readRecords(std::size_t& p) {
        m_records.clear();
        std::uint64_t recordsStart = 0;
        return readArray(p, [&](std::size_t& at) {
            if (m_buffer[at] != '{') return false;
            std::size_t start = at, end = 0;
            if (!scanValue(start, end, true)) return false;
            KernelRecord record;
            if (!readRecordAt(start, end, record)) return false;
            if (m_records.empty()) recordsStart = m_base + start;
            if (m_records.size() == kRecordsSampled) reserveRecords(m_base + start - recordsStart, m_base + start);
            m_records.push_back(std::move(record));
            at = end;
            return true;
        });
    }

    bool readRecordAt(std::size_t begin, std::size_t end, KernelRecord& record) {
        dom::element element;
        if (m_recordParser.parse(reinterpret_cast<const std::uint8_t*>(m_buffer.data() + begin), end - begin, false).get(element))
            return false;
        return readRecord(element, m_strings, record);
    }

    // The elements of the array at m_buffer[p] ('['), each read by readElement(p) with p at its
    // first byte, which leaves p past it.
    template <class ReadElement>
    bool readArray(std::size_t& p, ReadElement readElement) {
        ++p;  // '['
        if (!skipSpace(p)) return false;
        if (m_buffer[p] == ']') {
            ++p;
            return true;
        }
        for (;;) {
            if (!readElement(p) || !skipSpace(p)) return false;
            if (m_buffer[p] == ',') {
                ++p;
                if (!skipSpace(p)) return false;
            } else if (m_buffer[p] == ']') {
                ++p;
                return true;
            } else {
                return false;
            }
        }
    }

    // The last "sweeps" key counts. A map's cells are most of it (a 256 x 256 map is 17.6 MB of
    // text; parsed whole, ~35 MB of fresh parser buffers), so each cell is parsed alone, like a
    // record, and the sweep's other fields (small) are parsed together when the sweep ends.
    bool readSweeps(std::size_t& p, const KernelRegistry& registry) {
        if (m_buffer[p] != '[') return false;
        m_sweeps.clear();
        return readArray(p, [&](std::size_t& at) {
            auto map = readSweep(at, m_sweeps.size(), registry);
            if (!map) return false;
            m_sweeps.push_back(std::move(*map));
            return true;
        });
    }

    std::optional<BoundaryMap> readSweep(std::size_t& p, std::size_t index, const KernelRegistry& registry) {
        if (m_buffer[p] != '{') return std::nullopt;
        ++p;
        std::string fields = "{";  // every member but "cells", as written
        std::vector<ReadCell> cells;
        bool sawCells = false;
        if (!skipSpace(p)) return std::nullopt;
        while (m_buffer[p] != '}') {
            if (m_buffer[p] != '"') return std::nullopt;
            std::size_t start = p, end = 0;
            if (!scanValue(start, end, true) || !plainKey(std::string_view(m_buffer.data() + start + 1, end - start - 2)))
                return std::nullopt;
            const std::string key(m_buffer.data() + start, end - start);  // quotes included
            p = end;
            if (!skipSpace(p) || m_buffer[p] != ':') return std::nullopt;
            ++p;
            if (!skipSpace(p)) return std::nullopt;
            if (key == "\"cells\"") {
                cells.clear();  // the last "cells" counts
                sawCells = true;
                if (m_buffer[p] != '[' || !readCells(p, cells)) return std::nullopt;
            } else {
                start = p;
                if (!scanValue(start, end, true)) return std::nullopt;
                if (fields.size() > 1) fields += ',';
                fields.append(key).append(":").append(m_buffer.data() + start, end - start);
                p = end;
            }
            if (!skipSpace(p)) return std::nullopt;
            if (m_buffer[p] == ',') {
                ++p;
                if (!skipSpace(p) || m_buffer[p] == '}') return std::nullopt;
            } else if (m_buffer[p] != '}') {
                return std::nullopt;
            }
        }
        ++p;
        fields += '}';
        dom::element sweep;
        if (!sawCells || m_sweepParser.parse(fields).get(sweep)) return std::nullopt;
        auto map = mapOfSweep(sweep, index, cells.size(), registry);
        if (!map || !fillCells(cells, *map)) return std::nullopt;
        return map;
    }

    bool readCells(std::size_t& p, std::vector<ReadCell>& cells) {
        return readArray(p, [&](std::size_t& at) {
            std::size_t start = at, end = 0;
            dom::element element;
            if (m_buffer[at] != '{' || !scanValue(start, end, true) ||
                m_cellParser.parse(reinterpret_cast<const std::uint8_t*>(m_buffer.data() + start), end - start, false).get(element) ||
                !readCell(element, cells.emplace_back()))
                return false;
            at = end;
            return true;
        });
    }

    dom::parser m_recordParser;
    dom::parser m_values;
    dom::parser m_sweepParser;  // a sweep's members but its cells
    dom::parser m_cellParser;
    ordered_json m_rest = ordered_json::object();  // everything but the records and sweeps, for traceFromJson
    std::vector<KernelRecord> m_records;
    StringInterner m_strings;  // the records' names and launch APIs, one string per distinct text
    std::vector<BoundaryMap> m_sweeps;
    bool m_sawRecords = false;
    bool m_sawSweeps = false;
};

}  // namespace

std::optional<Trace> readNativeTraceText(std::string_view text, const KernelRegistry& registry) {
    return NativeTraceStream("text").readText(text, registry);
}

std::optional<Trace> readNativeTraceFile(const std::string& path, const KernelRegistry& registry) {
    return NativeTraceStream(path).readFile(path, registry);
}

}  // namespace tilescope

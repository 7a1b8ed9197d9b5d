#include "core/trace/trace_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/trace/json_io.h"
#include "core/model/json_reader.h"
#include "core/trace/native_trace_reader.h"

namespace tilescope {

using nlohmann::ordered_json;

namespace {

ordered_json optionalText(const std::optional<std::string>& text) { return text ? ordered_json(*text) : ordered_json(nullptr); }

ordered_json runToJson(const Run& run) {
    ordered_json j;
    j["kind"] = runKindName(run.kind);
    ordered_json plan = planToJson(run.plan, run.parameters);
    addPlanDetailJson(plan, run.plan, run.parameters);
    j["plan"] = std::move(plan);
    j["gpu"] = run.gpu ? gpuOutcomeToJson(*run.gpu) : ordered_json(nullptr);
    return j;
}

ordered_json sweepToJson(const BoundaryMap& map) {
    ordered_json j = boundaryMapToJson(map);
    // The cells' tile choice is not in the `sweep --json` contract; a trace keeps it.
    auto& cells = j["cells"];
    for (std::size_t i = 0; i < cells.size(); ++i) cells[i]["tile_index"] = map.cells()[i].tileIndex;
    j["device_spec"] = deviceToJson(map.device());
    return j;
}

// Non-printable and non-ASCII bytes of a parser message (it quotes the input) become '?'.
std::string printable(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return text;
}

Result<Run> runFromJson(const ordered_json& j, const std::string& pointer, const KernelRegistry& registry) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    Run run;
    const std::string kind = reader.text("kind");
    if (!error && kind != "predicted" && kind != "measured")
        reader.fail(reader.pointerOf("kind"), "expected \"predicted\" or \"measured\", got \"" + kind + "\"");
    run.kind = kind == "measured" ? RunKind::Measured : RunKind::Predicted;
    const auto* plan = reader.object("plan");
    if (error) return makeError(*error);

    const std::string planPointer = reader.pointerOf("plan");
    JsonReader planReader(*plan, planPointer, &error);
    const std::string family = planReader.text("kernel");
    const auto* shape = planReader.object("shape");
    if (error) return makeError(*error);
    if (const KernelFamily* known = registry.find(family)) {
        run.parameters = known->parameters();
    } else {
        auto names = parametersFromShapeJson(*shape, planPointer + "/shape");
        if (!names) return makeError(names.error());
        run.parameters = std::move(names).value();
    }
    auto strings = std::make_shared<StringPool>();
    auto parsed = planFromJson(*plan, run.parameters, *strings, planPointer);
    if (!parsed) return makeError(parsed.error());
    run.plan = std::move(parsed).value();
    run.strings = std::move(strings);

    const auto* gpu = reader.object("gpu", true);
    if (run.kind == RunKind::Measured && !gpu)
        return makeError("at " + reader.pointerOf("gpu") + ": a measured run needs its GPU results (an object)");
    if (run.kind == RunKind::Predicted && gpu)
        return makeError("at " + reader.pointerOf("gpu") + ": a predicted run carries no GPU results (expected null)");
    if (gpu) {
        auto outcome = gpuOutcomeFromJson(*gpu, reader.pointerOf("gpu"));
        if (!outcome) return makeError(outcome.error());
        run.gpu = std::move(outcome).value();
    }
    if (error) return makeError(*error);
    return run;
}

}  // namespace

ordered_json traceToJson(const Trace& trace) {
    ordered_json j;
    j["format"] = kTraceFormatName;
    j["version"] = kTraceFormatVersion;
    j["tool"] = {{"name", "tilescope"},
                 {"version", trace.build.toolVersion},
                 {"git_revision", trace.build.gitRevision},
                 {"cuda_version", optionalText(trace.build.cudaVersion)},
                 {"cupti_version", optionalText(trace.build.cuptiVersion)},
                 {"driver_version", optionalText(trace.build.driverVersion)}};
    j["source"] = trace.source;
    j["notes"] = trace.notes;
    ordered_json devices = ordered_json::array();
    for (const auto& d : trace.devices) devices.push_back(deviceToJson(d));
    j["devices"] = std::move(devices);
    ordered_json runs = ordered_json::array();
    for (const auto& r : trace.runs) runs.push_back(runToJson(r));
    j["runs"] = std::move(runs);
    ordered_json sweeps = ordered_json::array();
    for (const auto& s : trace.sweeps) sweeps.push_back(sweepToJson(s));
    j["sweeps"] = std::move(sweeps);
    ordered_json records = ordered_json::array();
    for (const auto& r : trace.records) records.push_back(recordToJson(r));
    j["records"] = std::move(records);
    return j;
}

Result<Trace> traceFromJson(const ordered_json& j, const KernelRegistry& registry) {
    if (!j.is_object()) return makeError("at /: expected a tilescope-trace object, got " + describeJsonValue(j));
    // Format and version first: a newer major version may have changed everything else.
    auto format = j.find("format");
    if (format == j.end() || !format->is_string() || *format != kTraceFormatName)
        return makeError("at /format: expected \"" + std::string(kTraceFormatName) + "\" (not a Tilescope trace), got " +
                         (format == j.end() ? std::string("nothing") : describeJsonValue(*format)));
    auto version = j.find("version");
    if (version == j.end() || !version->is_number_integer())
        return makeError("at /version: expected the integer major version, got " +
                         (version == j.end() ? std::string("nothing") : describeJsonValue(*version)));
    const bool newer = version->is_number_unsigned() ? version->get<std::uint64_t>() > static_cast<std::uint64_t>(kTraceFormatVersion)
                                                     : version->get<std::int64_t>() > kTraceFormatVersion;
    if (newer)
        return makeError("trace format version " + version->dump() + " is newer than this build reads (version " +
                         std::to_string(kTraceFormatVersion) + "); open it with a newer Tilescope");
    if (version->get<std::int64_t>() < 1) return makeError("at /version: expected a version >= 1, got " + version->dump());

    std::optional<std::string> error;
    JsonReader reader(j, "", &error);
    Trace trace;
    if (const auto* tool = reader.object("tool")) {
        JsonReader t(*tool, "/tool", &error);
        trace.build.toolVersion = t.text("version");
        trace.build.gitRevision = t.text("git_revision");
        trace.build.cudaVersion = t.optionalText("cuda_version");
        trace.build.cuptiVersion = t.optionalText("cupti_version");
        trace.build.driverVersion = t.optionalText("driver_version");
    }
    trace.source = reader.optionalText("source").value_or("");
    if (const auto* notes = reader.array("notes", true)) {
        for (std::size_t i = 0; i < notes->size() && !error; ++i) {
            if (!(*notes)[i].is_string())
                reader.fail("/notes/" + std::to_string(i), "expected a string, got " + describeJsonValue((*notes)[i]));
            else trace.notes.push_back((*notes)[i].get<std::string>());
        }
    }
    if (const auto* devices = reader.array("devices")) {
        for (std::size_t i = 0; i < devices->size() && !error; ++i) {
            auto device = deviceFromJson((*devices)[i], "/devices/" + std::to_string(i));
            if (!device) return makeError(device.error());
            if (trace.findDevice(device->id))
                return makeError("at /devices/" + std::to_string(i) + ": duplicate device id '" + device->id + "'");
            trace.devices.push_back(std::move(device).value());
        }
    }
    if (const auto* runs = reader.array("runs")) {
        for (std::size_t i = 0; i < runs->size() && !error; ++i) {
            auto run = runFromJson((*runs)[i], "/runs/" + std::to_string(i), registry);
            if (!run) return makeError(run.error());
            trace.runs.push_back(std::move(run).value());
        }
    }
    if (const auto* sweeps = reader.array("sweeps")) {
        for (std::size_t i = 0; i < sweeps->size() && !error; ++i) {
            const std::string pointer = "/sweeps/" + std::to_string(i);
            JsonReader s((*sweeps)[i], pointer, &error);
            const auto* spec = s.object("device_spec");
            if (error) break;
            auto device = deviceFromJson(*spec, pointer + "/device_spec");
            if (!device) return makeError(device.error());
            auto map = boundaryMapFromJson((*sweeps)[i], registry, *device, pointer);
            if (!map) return makeError(map.error());
            trace.sweeps.push_back(std::move(map).value());
        }
    }
    if (const auto* records = reader.array("records")) {
        for (std::size_t i = 0; i < records->size() && !error; ++i) {
            auto record = recordFromJson((*records)[i], "/records/" + std::to_string(i));
            if (!record) return makeError(record.error());
            trace.records.push_back(std::move(record).value());
        }
    }
    if (error) return makeError(*error);
    return trace;
}

std::string traceToText(const Trace& trace) { return traceToJson(trace).dump(2) + "\n"; }

Result<void> writeTraceFile(const Trace& trace, const std::string& path) {
    const std::string text = traceToText(trace);
    // mkstemp in the target's folder: rename() is atomic only within one file system.
    std::string temporary = path + ".XXXXXX";
    const int fd = mkstemp(temporary.data());
    if (fd < 0) return makeError(path + ": cannot create a temporary file beside it: " + std::strerror(errno));
    auto failWith = [&](const std::string& what) -> Result<void> {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        ::unlink(temporary.c_str());
        return makeError(path + ": " + what + ": " + reason);
    };
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            return failWith("cannot write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) return failWith("cannot flush to disk");
    // mkstemp creates 0600; a trace is an ordinary document.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::close(fd) != 0) {
        ::unlink(temporary.c_str());
        return makeError(path + ": cannot close the temporary file: " + std::strerror(errno));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(temporary.c_str());
        return makeError(path + ": cannot replace it: " + reason);
    }
    return {};
}

Result<void> checkJsonNesting(std::string_view text, int maxDepth) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return makeError("byte " + std::to_string(i) + ": nested deeper than " + std::to_string(maxDepth) +
                                 " levels (expected a tilescope-trace document, which nests far less)");
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return {};
}

Result<Trace> readTraceTextDom(std::string_view text, std::string_view origin, const KernelRegistry& registry) {
    const std::string where(origin);
    std::size_t first = 0;
    while (first < text.size() && (text[first] == ' ' || text[first] == '\n' || text[first] == '\r' || text[first] == '\t')) ++first;
    if (first == text.size()) return makeError(where + ": empty file (expected a tilescope-trace JSON object)");
    if (auto nesting = checkJsonNesting(text, kMaxTraceNesting); !nesting) return makeError(where + ": " + nesting.error());
    ordered_json j;
    try {
        j = ordered_json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ..."
        if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
        return makeError(where + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + printable(what));
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
        return makeError(where + ": not valid JSON: " + printable(what));
    }
    auto trace = traceFromJson(j, registry);
    if (!trace) return makeError(where + ": " + trace.error());
    return trace;
}

Result<Trace> readTraceText(std::string_view text, std::string_view origin, const KernelRegistry& registry) {
    if (auto trace = readNativeTraceText(text, registry)) return std::move(*trace);
    return readTraceTextDom(text, origin, registry);
}

Result<Trace> readTraceFile(const std::string& path, const KernelRegistry& registry) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return makeError(path + ": cannot open: " + ec.message());
    if (size > kMaxTraceFileBytes)
        return makeError(path + ": " + std::to_string(size) + " bytes is over the " + std::to_string(kMaxTraceFileBytes) +
                         "-byte limit of a trace file");
    // Streamed (the file is never held whole); only a file that reader declines is read into memory.
    if (auto trace = readNativeTraceFile(path, registry)) return std::move(*trace);
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError(path + ": cannot open");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return readTraceTextDom(text, path, registry);
}

}  // namespace tilescope

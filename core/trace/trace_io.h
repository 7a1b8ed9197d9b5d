// The native trace format, *.tilescope.json: {"format": "tilescope-trace", "version": 1, ...}.
// Writers save atomically with a stable key order; readers give an error a user can act on
// (file, byte offset or JSON pointer, what was expected) for anything malformed, reject a newer
// major version, ignore unknown keys, and bound what hostile input can make them allocate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

inline constexpr std::string_view kTraceFormatName = "tilescope-trace";
inline constexpr int kTraceFormatVersion = 1;  // the major version; bumped only by incompatible changes
inline constexpr std::string_view kTraceFileSuffix = ".tilescope.json";

// Hostile-input bounds of the reader.
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{1} << 30;  // 1 GiB
inline constexpr int kMaxTraceNesting = 64;                                  // the format itself nests 8 deep

nlohmann::ordered_json traceToJson(const Trace& trace);
// `registry` resolves the sweeps' kernel families (runs of unknown families are kept as read).
Result<Trace> traceFromJson(const nlohmann::ordered_json& j, const KernelRegistry& registry);

// The exact text writeTraceFile saves (a stable key order and layout, so equal traces give equal bytes).
std::string traceToText(const Trace& trace);
// Writes to a temporary file in the same folder, flushes it to disk and renames it over `path`.
Result<void> writeTraceFile(const Trace& trace, const std::string& path);

// `origin` names the text in errors (a path). Read through simdjson (core/native_trace_reader);
// a text that reader declines (malformed, out of range) is read by readTraceTextDom, for its error.
Result<Trace> readTraceText(std::string_view text, std::string_view origin, const KernelRegistry& registry);
Result<Trace> readTraceFile(const std::string& path, const KernelRegistry& registry);
// The reader on nlohmann's DOM: checks nesting before parsing; errors give the byte offset or
// JSON pointer. The error path of the readers above, the tests' reference and the bench's baseline.
Result<Trace> readTraceTextDom(std::string_view text, std::string_view origin, const KernelRegistry& registry);

// Checks that `text` nests no deeper than `maxDepth` (strings respected); the error gives the byte offset.
Result<void> checkJsonNesting(std::string_view text, int maxDepth);

}  // namespace tilescope

// The native trace reader on simdjson (issue 17): a saved *.tilescope.json at hundreds of MB/s.
//
// It takes a trace only when it reads it exactly as the DOM reader (readTraceTextDom, nlohmann)
// does: the text streams through the Kineto import's byte source and scanner (core/trace/json_stream),
// each kernel record is parsed alone, in place, by simdjson's DOM parser, and so is every other
// top-level value: the records and the boundary-map cells are read with the DOM reader's checks,
// the small rest (tool, notes, devices, runs, a map's axes and shape) passed to the DOM reader's
// own code. Anything else (malformed JSON, a value out of range, a missing
// field, a gzip file) returns nullopt, and the caller reads the text with readTraceTextDom, whose
// error names the byte or JSON pointer: the error path need not be fast, and keeps every message.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model/kernel_family.h"
#include "core/trace/trace.h"

namespace tilescope {

std::optional<Trace> readNativeTraceText(std::string_view text, const KernelRegistry& registry);
std::optional<Trace> readNativeTraceFile(const std::string& path, const KernelRegistry& registry);

}  // namespace tilescope

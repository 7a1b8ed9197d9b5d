// The native trace reader on simdjson (issue 17): a saved *.tilescope.json at hundreds of MB/s.
//
// It takes a trace only when it reads it exactly as the DOM reader (readTraceTextDom, nlohmann)
// does: the kernel records and the boundary-map cells, which are nearly all of a large trace, are
// read straight from simdjson's parsed document with the DOM reader's checks; the rest (tool,
// notes, devices, runs, a map's axes and shape) is small and goes through the DOM reader's own
// code. Anything else (malformed JSON, a value out of range, a missing field) returns nullopt, and
// the caller reads the text with readTraceTextDom, whose error names the byte or JSON pointer: the
// error path need not be fast, and keeps every message as it was.
#pragma once

#include <cstddef>
#include <optional>

#include "core/model/kernel_family.h"
#include "core/trace/trace.h"

namespace tilescope {

// Bytes readable past the end of the text readNativeTraceFast is given (simdjson reads ahead).
inline constexpr std::size_t kNativeTracePadding = 64;

// `text` holds `size` bytes of JSON followed by at least kNativeTracePadding readable bytes.
std::optional<Trace> readNativeTraceFast(const char* text, std::size_t size, const KernelRegistry& registry);

}  // namespace tilescope

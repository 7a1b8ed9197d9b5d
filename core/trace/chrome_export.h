// Chrome trace JSON export of a Trace, which Perfetto and chrome://tracing open: one process per
// device, one thread per stream, kernels as complete ("X") events in microseconds, failed
// launches as instant events carrying the CUDA error, the plan in each event's args.
#pragma once

#include <iosfwd>
#include <string>

#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

// Predicted runs never ran: they are left out (a timeline shows only what a GPU did).
void writeChromeTrace(const Trace& trace, std::ostream& out);
std::string chromeTraceText(const Trace& trace);

// "1695835573023613.250": nanoseconds as microseconds, exactly (no floating point).
std::string formatMicros(std::int64_t ns);

}  // namespace tilescope

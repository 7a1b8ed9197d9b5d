// libFuzzer harness: the native trace reader (core/trace/trace_io.h) on arbitrary text.
// A reader that returns an error is fine; a crash, leak or UB report is a finding.
#include "core/trace/trace_io.h"
#include "kernels/builtin_kernels.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto trace = tilescope::readTraceText(text, "fuzz", tilescope::builtinKernels());
    if (trace) {
        // A trace that parsed must also serialise again without trouble.
        (void)tilescope::traceToText(*trace);
    }
    return 0;
}

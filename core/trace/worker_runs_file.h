// A file of the GPU worker's JSON lines (`tilescope-cli run --json` / `sweep --run` output saved
// as *.jsonl, plain or gzip'ed, as tests/gpu/run.sh keeps it) read as a trace of measured runs.
#pragma once

#include <string>
#include <string_view>

#include "core/model/kernel_family.h"
#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

// True for names ending in .jsonl or .jsonl.gz.
bool looksLikeWorkerRunsFile(std::string_view path);

// One Run per non-empty line (core/worker_output); a line that is not a worker object is an error
// naming the file and the line, so a damaged file never opens with runs silently missing.
Result<Trace> readWorkerRunsText(std::string_view text, std::string_view origin, const KernelRegistry& registry);
Result<Trace> readWorkerRunsFile(const std::string& path, const KernelRegistry& registry);

}  // namespace tilescope

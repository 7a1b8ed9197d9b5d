// Opening a trace of any kind (format-neutral): a native *.tilescope.json by name or by its first
// bytes, the GPU worker's JSON lines, or else a PyTorch profiler trace through the Kineto import.
#include <zlib.h>

#include <string>

#include "core/trace/kineto_import.h"
#include "core/trace/trace_io.h"
#include "core/trace/worker_runs_file.h"

namespace tilescope {

bool looksLikeNativeTrace(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) return false;
    constexpr int kHead = 4096;
    std::string head(kHead, '\0');
    const int got = gzread(file, head.data(), kHead);
    gzclose(file);
    if (got <= 0) return false;
    head.resize(static_cast<std::size_t>(got));
    return head.find("\"format\"") != std::string::npos && head.find("\"tilescope-trace\"") != std::string::npos;
}

Result<Trace> openTraceFile(const std::string& path, const KernelRegistry& registry, const KinetoImportOptions& options) {
    const bool nativeName = path.size() >= kTraceFileSuffix.size() &&
                            path.compare(path.size() - kTraceFileSuffix.size(), kTraceFileSuffix.size(), kTraceFileSuffix) == 0;
    if (nativeName || looksLikeNativeTrace(path)) return readTraceFile(path, registry);
    if (looksLikeWorkerRunsFile(path)) return readWorkerRunsFile(path, registry);
    auto imported = importKinetoFile(path, options);
    if (!imported) return makeError(imported.error());
    return imported->toTrace();
}

}  // namespace tilescope

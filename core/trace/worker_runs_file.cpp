#include "core/trace/worker_runs_file.h"

#include <zlib.h>

#include <nlohmann/json.hpp>

#include "core/trace/trace_io.h"
#include "core/trace/worker_output.h"

namespace tilescope {

namespace {

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool looksLikeWorkerRunsFile(std::string_view path) { return endsWith(path, ".jsonl") || endsWith(path, ".jsonl.gz"); }

Result<Trace> readWorkerRunsText(std::string_view text, std::string_view origin, const KernelRegistry& registry) {
    Trace trace;
    trace.build = BuildInfo::current();
    trace.source = "tilescope-cli worker output " + std::string(origin);
    std::size_t lineNumber = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const std::string where = std::string(origin) + ":" + std::to_string(lineNumber) + ": ";
        if (auto nesting = checkJsonNesting(line, kMaxTraceNesting); !nesting) return makeError(where + nesting.error());
        const auto json = nlohmann::ordered_json::parse(line, nullptr, false);
        if (json.is_discarded()) return makeError(where + "not a JSON object");
        auto run = runFromWorkerJson(json, registry);
        if (!run) return makeError(where + run.error());
        trace.runs.push_back(std::move(*run));
    }
    if (trace.runs.empty()) return makeError(std::string(origin) + ": no runs (an empty worker output)");
    return trace;
}

Result<Trace> readWorkerRunsFile(const std::string& path, const KernelRegistry& registry) {
    gzFile file = gzopen(path.c_str(), "rb");  // reads plain files as they are
    if (!file) return makeError(path + ": cannot open");
    std::string text;
    char buffer[1 << 16];
    int got = 0;
    while ((got = gzread(file, buffer, sizeof buffer)) > 0) {
        text.append(buffer, static_cast<std::size_t>(got));
        if (text.size() > kMaxTraceFileBytes) {
            gzclose(file);
            return makeError(path + ": larger than " + std::to_string(kMaxTraceFileBytes) + " bytes once decompressed");
        }
    }
    // A cut or corrupt gzip stream shows only in gzerror, after zlib handed out what it could inflate.
    int code = Z_OK;
    const std::string error = gzerror(file, &code);
    gzclose(file);
    if (got < 0 || (code != Z_OK && code != Z_STREAM_END)) return makeError(path + ": cannot decompress (" + error + ")");
    return readWorkerRunsText(text, path, registry);
}

}  // namespace tilescope

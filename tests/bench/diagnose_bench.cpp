// `diagnose` throughput (issue 34): lines/s and MB/s on a generated server log and on the real
// corpus, and how the time grows with the number of repeated errors. Run by hand:
//   cmake --build build/ci --target diagnose_bench && build/ci/bin/diagnose_bench
// Figures and the machine they were measured on: docs/PERFORMANCE.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"
#include "core/model/device_spec.h"
#include "kernels/builtin_kernels.h"

namespace {

using namespace tilescope;

// The lines tests/bench/make_large_log.py writes, from public reports: PyTorch's error as
// vllm-project/vllm#16566 shows it, and vLLM 0.6's metrics line as vllm-project/vllm#12314 shows it.
constexpr const char* kError = "RuntimeError: CUDA error: invalid configuration argument";

std::string infoLine(int i) {
    const int t = 18 * 3600 + 27 * 60 + 20 + 5 * i;
    char line[256];
    std::snprintf(line, sizeof line,
                  "INFO 01-22 %02d:%02d:%02d metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7 "
                  "tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.0%%, CPU KV cache usage: 0.0%%.",
                  (t / 3600) % 24, (t / 60) % 60, t % 60);
    return line;
}

std::string repeatedErrors(int count) {
    std::string log;
    for (int i = 0; i < count; ++i) log += std::string(kError) + "\n";
    return log;
}

std::string infoLog(int lines) {
    std::string log;
    for (int i = 0; i < lines; ++i) log += infoLine(i) + "\n";
    return log + kError + "\n";
}

void run(benchmark::State& state, const std::vector<std::string>& logs) {
    const auto& kernels = builtinKernels();
    const auto& devices = DeviceDatabase::embedded();
    std::int64_t bytes = 0, lines = 0;
    std::size_t findings = 0;
    for (auto _ : state) {
        for (const auto& log : logs) {
            auto d = diagnoseText(log, kernels, devices);
            if (!d) state.SkipWithError(d.error().c_str());
            else {
                findings = d->findings.size();
                lines += d->lineCount;
            }
            bytes += static_cast<std::int64_t>(log.size());
        }
    }
    state.SetBytesProcessed(bytes);
    state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
    state.counters["findings"] = static_cast<double>(findings);
}

// N INFO lines and one error: the plain-line scan (57,000 lines: 12.4 MB; 100,000: 21.8 MB).
void BM_DiagnoseInfoLog(benchmark::State& state) {
    const std::vector<std::string> logs{infoLog(static_cast<int>(state.range(0)))};
    run(state, logs);
}
BENCHMARK(BM_DiagnoseInfoLog)->Arg(57000)->Arg(100000)->Unit(benchmark::kMillisecond);

// N copies of one CUDA error, one per line (every retry or rank printing it): one folded finding.
void BM_DiagnoseRepeatedErrors(benchmark::State& state) {
    const std::vector<std::string> logs{repeatedErrors(static_cast<int>(state.range(0)))};
    run(state, logs);
}
BENCHMARK(BM_DiagnoseRepeatedErrors)->Arg(1000)->Arg(16000)->Arg(256000)->Unit(benchmark::kMillisecond);

// Every log of the public-report corpus and of tests/data/logs, one diagnosis each.
void BM_DiagnoseCorpus(benchmark::State& state) {
    static const std::vector<std::string> logs = [] {
        std::vector<std::string> out;
        for (const char* dir : {"tests/data/diagnose_corpus", "tests/data/logs"})
            for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TILESCOPE_SOURCE_DIR) / dir))
                if (entry.path().extension() == ".log") {
                    std::ifstream in(entry.path(), std::ios::binary);
                    std::ostringstream text;
                    text << in.rdbuf();
                    out.push_back(text.str());
                }
        return out;
    }();
    run(state, logs);
    state.counters["logs"] = static_cast<double>(logs.size());
}
BENCHMARK(BM_DiagnoseCorpus)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

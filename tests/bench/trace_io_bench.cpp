// Native trace save and load throughput (*.tilescope.json, core/trace_io): MB/s of the text
// writeTraceFile saves and readTraceFile reads back, and of the old DOM reader on the same text
// (TraceLoad/text_dom) in the same run. Figures: docs/PERFORMANCE.md.
//
// The trace is built from real data, not made up: the kernel records of the bundled sample
// resources/samples/hta_alexnet_a100.json.gz (a PyTorch profiler trace from HTA), repeated with
// shifted timestamps until there are about 200,000, plus 1,000 predicted runs and one 256 x 256
// boundary map saved with them, which is what a session that imported a trace and explored it
// holds.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "core/trace/kineto_import.h"
#include "core/model/sweep.h"
#include "core/trace/trace_io.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

constexpr std::size_t kTargetRecords = 200'000;

const Trace& benchTrace() {
    static const Trace trace = [] {
        Trace t = openTraceFile(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels()).value();
        const std::vector<KernelRecord> sample = t.records;
        const std::int64_t span = sample.empty() ? 0 : sample.back().endNs - sample.front().startNs + 1'000;
        for (std::int64_t copy = 1; t.records.size() < kTargetRecords && !sample.empty(); ++copy) {
            for (KernelRecord r : sample) {
                r.startNs += copy * span;
                r.endNs += copy * span;
                if (r.launchStartNs) *r.launchStartNs += copy * span;
                r.correlationId += copy * static_cast<std::int64_t>(sample.size());
                t.records.push_back(std::move(r));
            }
        }
        const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
        t.addDevice(h100);
        const KernelChoice gemm = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y").value();
        const auto& parameters = gemm.family->parameters();
        for (int m = 1; m <= 1000; ++m) {
            Shape shape = Shape::defaults(parameters);
            shape[0] = m * 64;
            t.runs.push_back(Run::predicted(gemm.family->plan(gemm.variant, shape, h100, PlanDetail::Full), parameters));
        }
        BoundaryMap map(gemm, h100, Shape::defaults(parameters), parseSweepAxis("M=128:32768:+128", parameters).value(),
                        parseSweepAxis("N=64:16384:+64", parameters).value());
        evaluateBoundaryMap(map, {});
        t.sweeps.push_back(std::move(map));
        return t;
    }();
    return trace;
}

void describe(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
    state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
    state.counters["records"] = static_cast<double>(benchTrace().records.size());
}

std::string scratchPath() {
    return (std::filesystem::temp_directory_path() / ("tilescope_trace_io_bench_" + std::to_string(::getpid()) + ".tilescope.json"))
        .string();
}

// Serialising to the exact saved text (no disk).
void saveText(benchmark::State& state) {
    std::size_t bytes = 0;
    for (auto _ : state) {
        std::string text = traceToText(benchTrace());
        bytes = text.size();
        benchmark::DoNotOptimize(text);
    }
    describe(state, bytes);
}

// What File > Save does: text, temporary file, fsync, rename.
void saveFile(benchmark::State& state) {
    const std::string path = scratchPath();
    for (auto _ : state) {
        if (!writeTraceFile(benchTrace(), path)) state.SkipWithError("writeTraceFile failed");
    }
    describe(state, std::filesystem::file_size(path));
    std::filesystem::remove(path);
}

// Parsing and validating the text (no disk) with `read`.
using TextReader = Result<Trace> (*)(std::string_view, std::string_view, const KernelRegistry&);
void loadTextWith(benchmark::State& state, TextReader read) {
    const std::string text = traceToText(benchTrace());
    for (auto _ : state) {
        auto trace = read(text, "bench", builtinKernels());
        if (!trace) state.SkipWithError("reading the trace failed");
        benchmark::DoNotOptimize(trace);
    }
    describe(state, text.size());
}

// readTraceText: the reader on simdjson (core/native_trace_reader).
void loadText(benchmark::State& state) { loadTextWith(state, &readTraceText); }

// readTraceTextDom: the reader on nlohmann's DOM, the one before the simdjson reader and still
// its error path; run side by side with it for the comparison.
void loadTextDom(benchmark::State& state) { loadTextWith(state, &readTraceTextDom); }

// What File > Open does for a native trace (the file is in the page cache after the first read).
void loadFile(benchmark::State& state) {
    const std::string path = scratchPath();
    if (!writeTraceFile(benchTrace(), path)) state.SkipWithError("writeTraceFile failed");
    for (auto _ : state) {
        auto trace = readTraceFile(path, builtinKernels());
        if (!trace) state.SkipWithError("readTraceFile failed");
        benchmark::DoNotOptimize(trace);
    }
    describe(state, std::filesystem::file_size(path));
    std::filesystem::remove(path);
}

BENCHMARK(saveText)->Name("TraceSave/text")->Unit(benchmark::kMillisecond);
BENCHMARK(saveFile)->Name("TraceSave/file")->Unit(benchmark::kMillisecond);
BENCHMARK(loadText)->Name("TraceLoad/text")->Unit(benchmark::kMillisecond);
BENCHMARK(loadTextDom)->Name("TraceLoad/text_dom")->Unit(benchmark::kMillisecond);
BENCHMARK(loadFile)->Name("TraceLoad/file")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tilescope

BENCHMARK_MAIN();

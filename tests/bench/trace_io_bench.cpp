// Native trace save and load throughput (*.tilescope.json, core/trace_io): MB/s of the text
// writeTraceFile saves and readTraceFile reads back, and of the old DOM reader on the same text
// (TraceLoad/text_dom) in the same run. Figures: docs/PERFORMANCE.md.
//
// The trace is built from real data, not made up: the kernel records of the bundled sample
// resources/samples/hta_alexnet_a100.json.gz (a PyTorch profiler trace from HTA), repeated with
// shifted timestamps until there are about 200,000, plus 1,000 predicted runs and one 256 x 256
// boundary map saved with them, which is what a session that imported a trace and explored it
// holds.
//
// A process's first read pays for the fresh memory it touches, which repeated reads in one process
// partly reuse; `trace_io_bench --save PATH` writes the trace and `trace_io_bench --first-read
// {stream,dom} PATH` times one read in a fresh process (readTraceFile, or the old reader: the file
// read whole, then readTraceTextDom) and prints wall and CPU time.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
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

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// One read of `path` in this (fresh) process: "stream" is readTraceFile, "dom" the old reader.
int firstRead(const std::string& reader, const std::string& path) {
    const auto bytes = static_cast<double>(std::filesystem::file_size(path));
    const double cpuBefore = cpuSeconds();
    const auto wallBefore = std::chrono::steady_clock::now();
    Result<Trace> trace = makeError("unknown reader '" + reader + "' (stream or dom)");
    if (reader == "stream") {
        trace = readTraceFile(path, builtinKernels());
    } else if (reader == "dom") {
        std::ifstream in(path, std::ios::binary);
        const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        trace = readTraceTextDom(text, path, builtinKernels());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallBefore).count();
    const double cpu = cpuSeconds() - cpuBefore;
    if (!trace) {
        std::fprintf(stderr, "%s\n", trace.error().c_str());
        return 1;
    }
    std::printf("first read (%s): %.1f MB, %zu records: wall %.0f ms (%.0f MB/s), CPU %.0f ms (%.0f MB/s)\n", reader.c_str(), bytes / 1e6,
                trace->records.size(), wall * 1e3, bytes / 1e6 / wall, cpu * 1e3, bytes / 1e6 / cpu);
    // What holding the result alone costs: a copy of the Trace read touches as much fresh memory
    // (its record names are most of the file), a floor under any first read.
    const double copyCpuBefore = cpuSeconds();
    const auto copyWallBefore = std::chrono::steady_clock::now();
    const Trace copy = *trace;
    const double copyWall = std::chrono::duration<double>(std::chrono::steady_clock::now() - copyWallBefore).count();
    std::printf("  copying the Trace read: wall %.0f ms, CPU %.0f ms (%zu records)\n", copyWall * 1e3, (cpuSeconds() - copyCpuBefore) * 1e3,
                copy.records.size());
    return 0;
}

}  // namespace
}  // namespace tilescope

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--save") == 0) {
        auto saved = tilescope::writeTraceFile(tilescope::benchTrace(), argv[2]);
        if (!saved) std::fprintf(stderr, "%s\n", saved.error().c_str());
        return saved ? 0 : 1;
    }
    if (argc == 4 && std::strcmp(argv[1], "--first-read") == 0) return tilescope::firstRead(argv[2], argv[3]);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

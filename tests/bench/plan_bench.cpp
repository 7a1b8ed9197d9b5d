// Plans per second for every family and variant, and the time of boundary maps (the GUI's
// Boundaries page and `tilescope-cli sweep`). Target (docs/PERFORMANCE.md): a 256 x 256 map in under
// 10 ms on one core.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "core/model/sweep.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

const DeviceSpec& benchDevice() { return *DeviceDatabase::embedded().find("h100-sxm"); }

// Shapes around each family's defaults, spread over its first parameter's range so that ok and
// failing plans are both measured (a sweep plans both).
std::vector<Shape> shapesFor(const KernelFamily& family) {
    std::vector<Shape> shapes;
    const auto& parameters = family.parameters();
    for (int p = 0; p < static_cast<int>(parameters.size()); ++p) {
        const auto& spec = parameters[static_cast<std::size_t>(p)];
        for (std::int64_t v :
             {spec.minimum, spec.defaultValue, spec.defaultValue + 1, spec.defaultValue * 2, spec.defaultValue * 5, spec.maximum}) {
            Shape s = Shape::defaults(parameters);
            s[p] = std::min(std::max(v, spec.minimum), spec.maximum);
            shapes.push_back(s);
        }
    }
    return shapes;
}

void planLoop(benchmark::State& state, const KernelFamily& family, int variant, PlanDetail detail) {
    const std::vector<Shape> shapes = shapesFor(family);
    const DeviceSpec& device = benchDevice();
    std::size_t i = 0;
    for (auto _ : state) {
        LaunchPlan plan = family.plan(variant, shapes[i], device, detail);
        benchmark::DoNotOptimize(plan);
        if (++i == shapes.size()) i = 0;
    }
    state.SetItemsProcessed(state.iterations());  // items/s = plans per second
}

// One map: x over `xAxis`, y over `yAxis`, on `threads` threads (0: every hardware thread, what
// the GUI and `sweep` use).
void mapLoop(benchmark::State& state, const char* family, const char* variant, const char* xAxis, const char* yAxis, int threads) {
    const KernelChoice kernel = resolveKernel(builtinKernels(), family, variant).value();
    const auto& parameters = kernel.family->parameters();
    BoundaryMap map(kernel, benchDevice(), Shape::defaults(parameters), parseSweepAxis(xAxis, parameters).value(),
                    parseSweepAxis(yAxis, parameters).value());
    SweepOptions options;
    options.threads = threads;
    for (auto _ : state) {
        evaluateBoundaryMap(map, options);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * map.cellCount());
    state.counters["cells"] = static_cast<double>(map.cellCount());
}

void registerBenchmarks() {
    for (const auto& family : builtinKernels().families()) {
        for (std::size_t v = 0; v < family->variants().size(); ++v) {
            const std::string name = std::string(family->name()) + "/" + family->variants()[v].name;
            const KernelFamily* f = family.get();
            const int variant = static_cast<int>(v);
            benchmark::RegisterBenchmark(("Plan/brief/" + name).c_str(),
                                         [=](benchmark::State& state) { planLoop(state, *f, variant, PlanDetail::Brief); });
            benchmark::RegisterBenchmark(("Plan/full/" + name).c_str(),
                                         [=](benchmark::State& state) { planLoop(state, *f, variant, PlanDetail::Full); });
        }
    }
    // 256 x 256 and 1024 x 1024 maps over two parameters that cross boundaries.
    struct MapCase {
        const char* name;
        const char* family;
        const char* variant;
        const char* x256;
        const char* y256;
        const char* x1024;
        const char* y1024;
    };
    static const MapCase cases[] = {
        {"awq_gemm/legacy_grid_y M x N", "awq_gemm", "legacy_grid_y", "M=128:32768:+128", "N=64:16384:+64", "M=32:32768:+32",
         "N=16:16384:+16"},
        {"attention/sm120_tile_search head_dim x head_dim_v", "attention", "sm120_tile_search", "head_dim=4:1024:+4",
         "head_dim_v=4:1024:+4", "head_dim=1:1024:+1", "head_dim_v=1:1024:+1"},
        {"attention/fa2 head_dim x batch", "attention", "fa2", "head_dim=4:1024:+4", "batch=1:256", "head_dim=1:1024:+1", "batch=1:1024"},
        {"gemm_bucket/oproj M x N", "gemm_bucket", "oproj", "M=0:765:+3", "N=256:65536:+256", "M=0:1023", "N=256:262144:+256"},
    };
    // One thread: the CPU cost of a map. All cores: the wall time a user waits (real time, since
    // the main thread's CPU time does not count the workers').
    for (const auto& c : cases) {
        for (const int threads : {1, 0}) {
            const std::string suffix = threads == 1 ? "/threads:1" : "/threads:all";
            auto* map256 = benchmark::RegisterBenchmark(
                (std::string("Map256/") + c.name + suffix).c_str(),
                [&c, threads](benchmark::State& state) { mapLoop(state, c.family, c.variant, c.x256, c.y256, threads); });
            auto* map1024 = benchmark::RegisterBenchmark(
                (std::string("Map1024/") + c.name + suffix).c_str(),
                [&c, threads](benchmark::State& state) { mapLoop(state, c.family, c.variant, c.x1024, c.y1024, threads); });
            for (auto* b : {map256, map1024}) {
                b->Unit(benchmark::kMillisecond);
                if (threads != 1) b->UseRealTime();
            }
        }
    }
    // What hovering a cell costs: the full plan with its fix.
    benchmark::RegisterBenchmark("PlanWithFix/awq_gemm/legacy_grid_y M=32768,N=5376", [](benchmark::State& state) {
        const KernelChoice kernel = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y").value();
        const Shape shape = parseShape("M=32768,N=5376", kernel.family->parameters()).value();
        for (auto _ : state) {
            LaunchPlan plan = planWithFix(kernel, shape, benchDevice(), &DeviceDatabase::embedded());
            benchmark::DoNotOptimize(plan);
        }
    })->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace tilescope

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    tilescope::registerBenchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

// A stand-in for tilescope-cli as the GUI's GPU worker, for tests on machines without a GPU.
// FAKE_WORKER_MODE: ok (one JSON object per run, exit 0), crash (aborts at a sweep's second
// cell, or before a single run reports), hang (sleeps there instead), cuda (one with a sticky
// CUDA error, then exit 1 as the CLI does), nogpu (exit 3). `calibrate`: ok prints a calibration
// of a made-up GPU; nocalibrate answers as a tilescope-cli without that command does (exit 2).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "core/series/calibration.h"
#include "core/model/fix_finder.h"
#include "core/trace/json_io.h"
#include "kernels/builtin_kernels.h"
#include "tests/ui/measured_calibration.h"

namespace {

std::string argument(int argc, char** argv, const std::string& name) {
    for (int i = 1; i + 1 < argc; ++i)
        if (name == argv[i]) return argv[i + 1];
    return {};
}

nlohmann::ordered_json runJson(const tilescope::KernelChoice& kernel, const tilescope::Shape& shape, bool cudaError, int index) {
    using namespace tilescope;
    const DeviceSpec& device = DeviceDatabase::embedded().defaultDevice();
    LaunchPlan plan = planWithFix(kernel, shape, device, &DeviceDatabase::embedded());
    const auto& parameters = kernel.family->parameters();
    nlohmann::ordered_json j{{"kernel", kernel.family->name()},
                             {"variant", kernel.variantName()},
                             {"device", "Fake GPU"},
                             {"shape", shapeToJson(shape, parameters)}};
    j["plan"] = planToJson(plan, parameters);
    j["launched"] = true;
    j["launch"] = {{"name", cudaError ? "cudaErrorIllegalAddress" : "cudaSuccess"},
                   {"text", cudaError ? "an illegal memory access was encountered" : "no error"},
                   {"code", cudaError ? 700 : 0}};
    j["synchronize"] = {{"name", "cudaSuccess"}, {"text", "no error"}, {"code", 0}};
    const std::int64_t start = 1'000'000 + index * 50'000;
    j["records"] = nlohmann::ordered_json::array();
    if (!cudaError)
        j["records"].push_back({{"name", "fake_kernel<script>"},
                                {"start_ns", start},
                                {"end_ns", start + 20'000},
                                {"device", 0},
                                {"stream", 7},
                                {"correlation_id", index + 1},
                                {"grid", {plan.grid.x, plan.grid.y, plan.grid.z}},
                                {"block", {plan.block.x, plan.block.y, plan.block.z}},
                                {"external_id", index + 1},
                                {"registers", nullptr},
                                {"static_smem", plan.staticSmem},
                                {"dynamic_smem", plan.dynamicSmem},
                                {"local_memory_per_thread", 0},
                                {"shmem_limit_config", 0}});
    j["check"] = nullptr;
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace tilescope;
    const char* modeValue = std::getenv("FAKE_WORKER_MODE");
    const std::string mode = modeValue ? modeValue : "ok";
    if (mode == "nogpu" || argc < 2) {
        std::cerr << "error: no CUDA device (fake worker)\n";
        return 3;
    }
    if (std::string(argv[1]) == "calibrate") {
        if (mode == "nocalibrate") {  // tests/cli/golden/unknown_subcommand.txt's wording
            std::cerr << "tilescope-cli: unknown command 'calibrate'\n(run 'tilescope-cli --help' for usage)\n";
            return 2;
        }
        std::cerr << "calibrate: device-to-device copy bandwidth\n";  // the real CLI's progress, on stderr
        std::cout << calibrationToJson(measuredCalibration("Fake GPU", "0.0", "2026-12-01T11:00:00Z", 1000.0, 100.0, "fake worker"))
                  << std::endl;
        return 0;
    }
    auto kernel = resolveKernel(builtinKernels(), argument(argc, argv, "-k"), argument(argc, argv, "-v"));
    if (!kernel) {
        std::cerr << kernel.error() << '\n';
        return 2;
    }
    auto shape = parseShape(argument(argc, argv, "-s"), kernel->family->parameters());
    if (!shape) return 2;
    int count = 1;
    if (std::string(argv[1]) == "sweep") {
        const std::string x = argument(argc, argv, "--x");
        count = 1;
        for (char c : x) count += c == ',';
    }
    for (int i = 0; i < count; ++i) {
        // A sweep fails at its second cell; a single run fails before reporting.
        const bool failHere = i == 1 || count == 1;
        if (failHere && mode == "crash") std::abort();
        if (failHere && mode == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
        std::cout << runJson(*kernel, *shape, mode == "cuda" && i == 0, i).dump() << std::endl;
        if (mode == "cuda") {
            std::cerr << "error: sticky CUDA error cudaErrorIllegalAddress; exiting\n";
            return 1;
        }
    }
    return 0;
}

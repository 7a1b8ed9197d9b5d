// `check-launch`: kernels from a build log or a profile (ptxas -v, Nsight Compute CSV, PyTorch profiler
// trace) made launches of the family that takes a launch's own figures, each checked on every chosen device.
// Moved from app/cli/commands_check_launch.cpp unchanged; the CLI prints it, Python returns its JSON.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/diagnosis/launch_report.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"

namespace tilescope::frontend {

struct CheckLaunchOptions {
    std::string input;
    std::string format;
    std::string block;
    std::string grid;
    std::string devices = "all";
    std::string cuda;
    bool json = false;
    std::optional<std::string> text;  // with input "-": the text standard input would give (Python passes it)
};

struct DeviceResult {
    const DeviceSpec* device = nullptr;
    LaunchPlan plan;
};

struct KernelCheck {
    const ReportedLaunch* launch = nullptr;
    std::string unchecked;  // why it was not checked (figures missing), else empty
    std::vector<DeviceResult> results;
    std::vector<std::string> assumptions;  // what the shape took that the report did not say
};

// One run of check-launch: the report read, each of its kernels checked on every chosen device.
struct LaunchCheckRun {
    int cudaRuntime = 0;
    std::vector<DeviceSpec> storage;  // the chosen devices (devices points into it)
    std::vector<const DeviceSpec*> devices;
    LaunchReport report;
    std::vector<KernelCheck> checks;  // each points into report.launches
    bool pass = true;
};

// Reads the input and checks it as `family` (the registry's launch-figures family). Returned in a
// unique_ptr: its checks point into its own report and device list.
std::unique_ptr<LaunchCheckRun> runLaunchCheck(const CheckLaunchOptions& o, const KernelFamily& family);

std::string limitText(const LaunchPlan& plan);
std::vector<const DeviceResult*> failures(const KernelCheck& check);
std::string summaryLine(const KernelCheck& check);
nlohmann::ordered_json checksJson(const std::string& input, const LaunchReport& report, const std::vector<KernelCheck>& checks,
                                  int cudaRuntime, const std::vector<const DeviceSpec*>& devices, const KernelChoice& kernel);

}  // namespace tilescope::frontend

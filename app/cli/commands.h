// tilescope-cli subcommands. Each add* registers one subcommand; its callback stores the exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "app/frontend/frontend.h"
#include "core/series/calibration.h"
#include "core/model/kernel_family.h"
#include "core/trace/kernel_record.h"
#include "core/model/sweep.h"

#include "core/model/sweep.h"

namespace tilescope::cli {

enum ExitCode : int { kExitOk = 0, kExitFails = 1, kExitUsage = 2, kExitNoGpu = 3 };

// Thrown by a command for bad input; main prints "tilescope-cli: <message>" and exits 2.
using frontend::UsageError;
// The whole file, or standard input for "-" (app/frontend, shared with the Python module).
using frontend::readInput;

void addDevicesCommand(CLI::App& app, int& exitCode);
void addKernelsCommand(CLI::App& app, int& exitCode);
void addPlanCommand(CLI::App& app, int& exitCode);
void addSweepCommand(CLI::App& app, int& exitCode);
void addRunCommand(CLI::App& app, int& exitCode);
// `calibrate`: the local GPU's measured roofline (commands_run.cpp).
void addCalibrateCommand(CLI::App& app, int& exitCode);
// `sweep --run`: every cell on the local GPU, one JSON line per finished cell (commands_run.cpp).
int runSweepOnGpu(const KernelChoice& kernel, const Shape& base, const SweepAxis& x, const std::optional<SweepAxis>& y, int repeat,
                  bool check, bool flushL2, const std::string& calibrationPath);
// --calibration FILE: the calibration `calibrate --json` wrote (errors name the file).
tilescope::Result<tilescope::Calibration> readCalibrationFile(const std::string& path);
// The roofline a live GPU's runs are held against: the calibration FILE (refused when measured on
// another GPU), else the datasheet entry of the GPU.
tilescope::Roofline rooflineForGpu(const tilescope::DeviceSpec& device, const std::string& calibrationPath);
void addDiagnoseCommand(CLI::App& app, int& exitCode);
void addCheckModelCommand(CLI::App& app, int& exitCode);
// check-model --backends (commands_backends.cpp): the backend matrix of a checkpoint on `devices`
// (comma-separated ids; empty: a default set). Exit 1 when a device has no working backend of a kind.
int runBackendCheck(const std::string& configPath, const std::string& devices, const std::vector<std::int64_t>& batches,
                    const std::vector<std::int64_t>& seqs, bool train, bool json);
void addTraceCommand(CLI::App& app, int& exitCode);
void addImportKinetoCommand(CLI::App& app, int& exitCode);
// check-launch: kernels of a ptxas log, an Nsight Compute CSV or a profiler trace as launches by their figures
// (commands_check_launch.cpp).
void addCheckLaunchCommand(CLI::App& app, int& exitCode);
// --trace FILE of plan and sweep (commands_trace.cpp): save what the command did as a native trace.
void savePlanTrace(const tilescope::LaunchPlan& plan, const tilescope::KernelChoice& kernel, const tilescope::DeviceSpec& device,
                   const std::string& path);
void saveSweepTrace(const tilescope::BoundaryMap& map, const std::string& path);
// --trace FILE of run: a measured run when the kernel was launched, else the predicted plan.
void saveRunTrace(const tilescope::LaunchPlan& plan, const tilescope::KernelChoice& kernel, const tilescope::DeviceSpec& device,
                  const std::optional<tilescope::GpuOutcome>& outcome, const std::string& path);

}  // namespace tilescope::cli

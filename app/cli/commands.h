// tilescope-cli subcommands. Each add* registers one subcommand; its callback stores the exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace tilescope::cli {

enum ExitCode : int { kExitOk = 0, kExitFails = 1, kExitUsage = 2, kExitNoGpu = 3 };

// Thrown by a command for bad input; main prints "tilescope-cli: <message>" and exits 2.
struct UsageError {
    std::string message;
};

void addDevicesCommand(CLI::App& app, int& exitCode);
void addKernelsCommand(CLI::App& app, int& exitCode);
void addPlanCommand(CLI::App& app, int& exitCode);
void addSweepCommand(CLI::App& app, int& exitCode);
void addDiagnoseCommand(CLI::App& app, int& exitCode);
void addCheckModelCommand(CLI::App& app, int& exitCode);

}  // namespace tilescope::cli

// Readers of real launch descriptions from other tools: ptxas resource reports (nvcc -Xptxas -v,
// --resource-usage; cuobjdump --dump-resource-usage), Nsight Compute CSV exports (--page details,
// --page raw) and PyTorch profiler traces. Each turns into the figures a bare launch takes:
// grid, block, registers, static and dynamic shared memory, with the line they came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"
#include "core/model/result.h"

namespace tilescope {

enum class LaunchReportKind { Ptxas, NcuCsv, Kineto };
std::string_view launchReportKindName(LaunchReportKind kind);  // "ptxas", "ncu", "kineto"
// --format: "ptxas", "ncu", "kineto"; the error lists the choices.
Result<LaunchReportKind> parseLaunchReportKind(std::string_view name);

// One kernel as a tool reported it. Figures the tool does not give are nullopt: a ptxas report has
// no grid or block, a profiler trace no split between static and dynamic shared memory.
struct ReportedLaunch {
    std::string name;         // as the tool printed it (mangled for ptxas)
    std::string displayName;  // demangled when the name is an Itanium C++ name, else the name
    std::string arch;         // ptxas "sm_90"; ncu the compute capability "9.0"; empty when unknown
    std::optional<Dim3> grid;
    std::optional<Dim3> block;
    std::optional<int> registers;
    std::optional<std::int64_t> staticSmem;
    std::optional<std::int64_t> dynamicSmem;
    std::optional<std::int64_t> sharedMemoryTotal;  // Kineto: static + dynamic together
    std::optional<std::int64_t> stackBytes;         // ptxas: bytes stack frame
    std::optional<std::int64_t> spillStoreBytes, spillLoadBytes;
    std::string toolError;   // what the tool refused for this function ("ptxas error   : Entry function ...")
    int line = 0;            // 1-based line of the input it starts on; 0 when the input has no lines (Kineto)
    std::int64_t count = 1;  // launches sharing these figures (ncu, Kineto); 1 for a ptxas entry
};

struct LaunchReport {
    LaunchReportKind kind = LaunchReportKind::Ptxas;
    std::vector<ReportedLaunch> launches;  // in input order
    std::vector<std::string> notes;        // what was assumed or left out, for people
};

// What the text looks like: a ptxas report, an Nsight Compute CSV; nullopt when neither.
// (Profiler traces are files, gzip'ed or not: see readKinetoLaunches.)
std::optional<LaunchReportKind> detectLaunchReportKind(std::string_view text);

Result<LaunchReport> readPtxasReport(std::string_view text);
// ncu --csv, --page details (Launch Statistics rows) or --page raw (launch__* columns, a units row).
Result<LaunchReport> readNcuCsv(std::string_view text);
// A PyTorch profiler trace through core/kineto_import: one entry per distinct kernel configuration.
Result<LaunchReport> readKinetoLaunches(const std::string& path);
// A file of any of the three kinds, told apart by its content (gzip or JSON: a profiler trace).
Result<LaunchReport> readLaunchReportFile(const std::string& path);

// The launch as `family`'s parameters (the family whose KernelFamily::launchFigureParameters say
// where each figure goes, e.g. "grid_x=64,...,smem_optin=1") for the explorer: figures the report
// lacks keep the family's defaults (a ptxas entry has no grid or block), a profiler trace's total
// shared memory counts as dynamic, and the kernel opts in when its dynamic shared memory passes the
// 48 KB default (one that ran with more had). Empty when the registers are unknown or the family
// takes no launch figures.
std::string launchShapeText(const ReportedLaunch& launch, const KernelFamily& family);

// "_Z5scaleIfLi256EEvPT_PKS0_S0_" -> "void scale<float, 256>(float*, float const*, float)"; other
// names unchanged.
std::string demangleKernelName(std::string_view name);

}  // namespace tilescope

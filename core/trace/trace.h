// Trace: a saved Tilescope session (tool and build, device specs, predicted and measured runs,
// sweeps) and the kernel records of a profiler trace imported into it.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/trace/kernel_record.h"
#include "core/model/launch_plan.h"
#include "core/model/sweep.h"

namespace tilescope {

// The tool and build that wrote a trace.
struct BuildInfo {
    std::string toolVersion;                   // TILESCOPE_VERSION
    std::string gitRevision;                   // git describe of the build
    std::optional<std::string> cudaVersion;    // CUDA toolkit / runtime ("13.0"); nullopt: unknown
    std::optional<std::string> cuptiVersion;   // CUPTI API version
    std::optional<std::string> driverVersion;  // only known when a GPU was present

    // This binary: version, git revision and the CUDA toolkit it was built with; CUPTI and the
    // driver are for the GPU runtime to fill in when it runs something.
    static BuildInfo current();
    friend bool operator==(const BuildInfo&, const BuildInfo&) = default;
};

// Owns the text a LaunchPlan's string_views point at once a plan is read back from a file
// (planners point them at static strings; a file has none). Addresses are stable.
class StringPool {
public:
    std::string_view intern(std::string_view text);

private:
    std::deque<std::string> m_strings;
};

enum class RunKind { Predicted, Measured };
std::string_view runKindName(RunKind kind);  // "predicted", "measured"

// One kernel call at one shape: the plan, and for a measured run what the GPU did.
struct Run {
    RunKind kind = RunKind::Predicted;
    ParameterList parameters;                   // the shape's parameter names (the family's, or as read)
    LaunchPlan plan;                            // family, variant, device id, shape, verdict, launch, occupancy
    std::optional<GpuOutcome> gpu;              // present exactly when kind == Measured
    std::shared_ptr<const StringPool> strings;  // keeps `plan`'s views alive for runs read from a file

    static Run predicted(const LaunchPlan& plan, const ParameterList& parameters);
    static Run measured(const LaunchPlan& plan, const ParameterList& parameters, GpuOutcome gpu);
};

struct Trace {
    BuildInfo build;
    std::string source;               // what produced it: "tilescope-cli sweep", "PyTorch profiler trace X"
    std::vector<std::string> notes;   // what an import filled in, assumed or could not check
    std::vector<DeviceSpec> devices;  // every device a run, sweep or record refers to
    std::vector<Run> runs;
    std::vector<BoundaryMap> sweeps;
    // Kernel records that belong to no Tilescope run: those of an imported profiler trace.
    std::vector<KernelRecord> records;

    // Adds a device unless one with the same id is there.
    void addDevice(const DeviceSpec& device);
    const DeviceSpec* findDevice(std::string_view id) const;
    // The device a record's ordinal refers to: "local:N" (a live GPU) or "kineto:N" (an import).
    const DeviceSpec* deviceForRecord(int ordinal) const;
};

}  // namespace tilescope

// Import of a PyTorch profiler (Kineto) Chrome trace, plain or .json.gz: its devices become
// DeviceSpecs (gaps filled from the architecture table, and said so), its "kernel" events
// KernelRecords linked to their launch calls, and every distinct launch configuration is checked
// against its device's limits and its occupancy recomputed with cuda_occupancy.h, opt-in limit
// included (Kineto reports 0 % for every kernel above 48 KB of shared memory).
//
// The file is streamed: memory grows with the kernels kept, not with the file.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/device_spec.h"
#include "core/trace/kernel_record.h"
#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

struct KinetoImportOptions {
    bool keepRecords = true;  // false: count and check kernels, keep no KernelRecord (summaries)
    // Called every few MB and at the end: bytes of the file read so far, and its size.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    // For traces without deviceProperties: check every kernel against this device (said so in notes).
    std::optional<DeviceSpec> assumedDevice;
    std::size_t maxEventBytes = std::size_t{64} << 20;  // one event (or top-level value) larger is an error
    // Bytes read from the file at a time; the buffer starts at twice this and grows for a larger
    // event. The default suits files of hundreds of MB; the fuzz harness uses a few KB, so that
    // events straddle reads and a run costs no 16 MB allocation (at least 4,096).
    std::size_t readChunkBytes = std::size_t{8} << 20;
    // Set from another thread to stop an import between reads (the GUI's Cancel); the import
    // then fails with "import cancelled". nullptr: not cancellable.
    const std::atomic<bool>* cancel = nullptr;
};

struct KinetoDevice {
    int ordinal = 0;                  // Kineto's "device" index / deviceProperties "id"
    DeviceSpec spec;                  // id "kineto:<ordinal>"
    bool checkable = false;           // limits known well enough for launch checks and cuda_occupancy.h
    std::string why;                  // when not checkable: why not
    std::vector<std::string> filled;  // fields taken from the architecture table
};

// One distinct launch configuration: a kernel name on one device with one grid, block,
// register count and shared memory size, and how many kernel events share it.
struct LaunchConfigFinding {
    std::string name;
    int device = 0;
    Dim3 grid;
    Dim3 block;
    std::optional<int> registers;
    std::optional<std::int64_t> sharedMemory;
    std::optional<double> kinetoOccupancyPct;       // Kineto's "est. achieved occupancy %"
    std::optional<double> occupancyPct;             // theoretical, cuda_occupancy.h (opt-in where needed)
    std::optional<double> estAchievedOccupancyPct;  // Kineto's estimate recomputed with ours
    std::string limiter;                            // what limits occupancy ("registers", ...)
    std::string violation;                          // the limit a launch breaks; empty when none
    std::int64_t count = 0;
};

// A configuration's finding as its first record gives it (count 0, nothing checked yet), with
// the shared memory the caller settled on (Kineto's total, or static + dynamic).
LaunchConfigFinding launchConfigOf(const KernelRecord& record, std::optional<std::int64_t> sharedMemory);

struct KinetoImport {
    std::string path;
    std::uint64_t bytes = 0;  // of JSON read (after decompression)
    std::vector<KinetoDevice> devices;
    std::vector<KernelRecord> kernels;  // empty unless keepRecords
    std::int64_t kernelCount = 0;
    std::int64_t eventCount = 0;
    std::int64_t linkedLaunches = 0;                        // kernels whose launch call (by correlation id) was found
    std::int64_t uncheckedKernels = 0;                      // no device limits, or no grid/block/registers recorded
    std::vector<LaunchConfigFinding> launchViolations;      // one per distinct configuration
    std::vector<LaunchConfigFinding> occupancyCorrections;  // Kineto's figure differs from ours
    std::int64_t distinctConfigurations = 0;
    std::vector<std::string> notes;  // what was filled in, assumed, or could not be checked
    std::optional<std::string> cudaRuntimeVersion, cuptiVersion, cudaDriverVersion;

    // The import as a native trace (devices, records, notes).
    Trace toTrace() const;
};

// A difference of more than this (percentage points) between Kineto's occupancy and ours is a
// correction; Kineto rounds its estimate to a whole percent.
inline constexpr double kOccupancyTolerancePct = 1.0;

Result<KinetoImport> importKinetoFile(const std::string& path, const KinetoImportOptions& options = {});
// True when the file (plain or gzip) starts like a native tilescope trace rather than a profiler trace.
bool looksLikeNativeTrace(const std::string& path);

}  // namespace tilescope

namespace tilescope {

// Opens a trace of any kind: a native *.tilescope.json (read as saved), the GPU worker's JSON lines
// (*.jsonl[.gz], core/worker_runs_file), or a PyTorch profiler trace (imported; `options` apply).
// The bundled samples open this way. Defined in core/trace/open_trace_file.cpp.
Result<Trace> openTraceFile(const std::string& path, const KernelRegistry& registry, const KinetoImportOptions& options = {});

}  // namespace tilescope

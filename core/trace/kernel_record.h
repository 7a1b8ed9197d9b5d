// KernelRecord: one kernel execution as a tracer saw it (CUPTI, or a PyTorch profiler trace),
// and GpuOutcome: what happened when Tilescope launched a kernel for real.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/launch_plan.h"
#include "core/trace/shared_string.h"

namespace tilescope {

struct KernelRecord {
    SharedString name;  // as the tracer reports it (mangled or demangled)
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    int device = 0;
    std::int64_t stream = 0;
    std::int64_t correlationId = 0;
    std::optional<std::int64_t> externalId;  // ties the record to Tilescope's launch
    Dim3 grid;
    Dim3 block;
    std::optional<int> registersPerThread;
    std::optional<std::int64_t> staticSmem;
    std::optional<std::int64_t> dynamicSmem;
    std::optional<std::int64_t> localMemoryPerThread;
    std::optional<int> shmemLimitConfig;        // CUPTI: 0 default limit, 1 opt-in
    std::optional<double> kinetoOccupancyPct;   // "est. achieved occupancy %" of an imported trace
    std::optional<std::int64_t> sharedMemory;   // static + dynamic, when only the total is known (Kineto)
    SharedString launchApi;                     // the API call that launched it ("cudaLaunchKernel"); empty: unknown
    std::optional<std::int64_t> launchStartNs;  // when that call started (host clock of the trace)

    std::int64_t durationNs() const { return endNs - startNs; }
};

// The CUDA runtime's answer to a launch: cudaSuccess or the error it raised.
struct CudaOutcome {
    std::string errorName = "cudaSuccess";  // cudaGetErrorName
    std::string errorText = "no error";     // cudaGetErrorString
    int code = 0;
    bool ok() const { return code == 0; }
};

// Output compared with the float64 CPU reference.
struct ReferenceCheck {
    double maxRelativeError = 0.0;
    double bound = 0.0;  // per-dtype bound the check used
    bool passed = false;
};

// Time of the timed repeats (the checked launch excluded). CUPTI kernel records measure the
// kernel alone; CUDA events around a launch add its overhead (~9 us on an H200 for a 36 us
// kernel), so events are only the fallback when CUPTI delivered no record.
struct Timing {
    int repeats = 0;
    double minUs = 0.0;
    double medianUs = 0.0;
    double meanUs = 0.0;
    std::string source = "events";  // "cupti" | "events"
    bool l2Flushed = false;         // L2 evicted before every repeat (weights cold, as in a real model)
};

// What a real GPU run produced. Absent from predicted runs, which are never mixed up with it.
struct GpuOutcome {
    CudaOutcome launch;                   // cudaLaunchKernelExC's return / first sticky error
    CudaOutcome synchronize;              // cudaDeviceSynchronize
    std::vector<KernelRecord> records;    // CUPTI kernel records of this run
    std::optional<ReferenceCheck> check;  // nullopt: --no-check or the launch failed
    std::optional<Timing> timing;
    std::string deviceName;  // the live GPU's name
};

}  // namespace tilescope

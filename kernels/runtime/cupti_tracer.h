// CuptiTracer: CUPTI activity tracing of Tilescope's own launches. Kernel records (concurrent
// kernel kind), runtime API records (so a launch that failed is kept with its return value) and
// external correlation records that tie each to the launch id Tilescope pushed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trace/kernel_record.h"
#include "core/model/result.h"

namespace tilescope {

struct RuntimeApiRecord {
    std::string name;  // "cudaLaunchKernelExC_v11060"
    std::int64_t correlationId = 0;
    std::optional<std::int64_t> externalId;
    int returnValue = 0;  // cudaError_t
    std::int64_t startNs = 0, endNs = 0;
};

class CuptiTracer {
public:
    // Enables the activity kinds. One tracer per process (CUPTI's buffer callbacks are global).
    static Result<std::unique_ptr<CuptiTracer>> start();
    ~CuptiTracer();  // flush, then disable every kind it enabled
    CuptiTracer(const CuptiTracer&) = delete;
    CuptiTracer& operator=(const CuptiTracer&) = delete;

    // Every CUDA call between push and pop carries this id in its external correlation record.
    void pushExternalId(std::uint64_t id);
    void popExternalId();
    // Forces CUPTI to hand over every completed buffer (after cudaDeviceSynchronize).
    Result<void> flush();
    // Records collected so far, with external ids resolved; the tracer forgets them.
    std::vector<KernelRecord> takeKernelRecords();
    std::vector<RuntimeApiRecord> takeRuntimeRecords();
    std::uint64_t droppedRecords() const;

private:
    CuptiTracer() = default;
};

}  // namespace tilescope

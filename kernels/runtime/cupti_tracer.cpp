#include "kernels/runtime/cupti_tracer.h"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

namespace tilescope {

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  // per CUPTI request; CUPTI fills and returns it
constexpr std::size_t kBufferAlignment = 8;     // ALIGN_SIZE in CUPTI's samples and docs
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

// CUPTI delivers buffers through free functions: the state they fill is process-wide.
struct Collected {
    std::mutex mutex;
    std::vector<KernelRecord> kernels;
    std::vector<RuntimeApiRecord> runtime;
    std::map<std::uint32_t, std::uint64_t> externalIds;  // CUPTI correlation id -> our launch id
    std::atomic<std::uint64_t> dropped{0};
    std::atomic<bool> active{false};
};
Collected& collected() {
    static Collected state;
    return state;
}

std::string cuptiError(CUptiResult result) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize) {
    Collected& state = collected();
    {
        std::lock_guard lock(state.mutex);
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
            if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                KernelRecord r;
                r.name = k->name ? k->name : "";
                r.startNs = static_cast<std::int64_t>(k->start);
                r.endNs = static_cast<std::int64_t>(k->end);
                r.device = static_cast<int>(k->deviceId);
                r.stream = k->streamId;
                r.correlationId = k->correlationId;
                r.grid = {k->gridX, k->gridY, k->gridZ};
                r.block = {k->blockX, k->blockY, k->blockZ};
                r.registersPerThread = k->registersPerThread;
                r.staticSmem = k->staticSharedMemory;
                r.dynamicSmem = k->dynamicSharedMemory;
                r.localMemoryPerThread = k->localMemoryPerThread;
                r.shmemLimitConfig = static_cast<int>(k->shmemLimitConfig);
                state.kernels.push_back(std::move(r));
            } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
                const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(record);
                RuntimeApiRecord r;
                const char* name = nullptr;
                if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, api->cbid, &name) == CUPTI_SUCCESS && name) r.name = name;
                r.correlationId = api->correlationId;
                r.returnValue = static_cast<int>(api->returnValue);
                r.startNs = static_cast<std::int64_t>(api->start);
                r.endNs = static_cast<std::int64_t>(api->end);
                state.runtime.push_back(std::move(r));
            } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
                const auto* ext = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
                state.externalIds[ext->correlationId] = ext->externalId;
            }
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS) state.dropped += dropped;
    std::free(buffer);
}

}  // namespace

Result<std::unique_ptr<CuptiTracer>> CuptiTracer::start() {
    Collected& state = collected();
    if (state.active.exchange(true)) return makeError("a CUPTI tracer is already running in this process");
    if (CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS) {
        state.active = false;
        return makeError("cuptiActivityRegisterCallbacks: " + cuptiError(r));
    }
    for (CUpti_ActivityKind kind : kKinds) {
        if (CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
            for (CUpti_ActivityKind enabled : kKinds) {
                if (enabled == kind) break;
                cuptiActivityDisable(enabled);
            }
            state.active = false;
            return makeError("cuptiActivityEnable(" + std::to_string(static_cast<int>(kind)) + "): " + cuptiError(r));
        }
    }
    return std::unique_ptr<CuptiTracer>(new CuptiTracer());
}

CuptiTracer::~CuptiTracer() {
    // Order: hand over what is buffered while the kinds are still enabled, then disable them.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    collected().active = false;
}

void CuptiTracer::pushExternalId(std::uint64_t id) { cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id); }

void CuptiTracer::popExternalId() {
    uint64_t last = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

Result<void> CuptiTracer::flush() {
    if (CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
        return makeError("cuptiActivityFlushAll: " + cuptiError(r));
    return {};
}

std::vector<KernelRecord> CuptiTracer::takeKernelRecords() {
    Collected& state = collected();
    std::lock_guard lock(state.mutex);
    std::vector<KernelRecord> out = std::move(state.kernels);
    state.kernels.clear();
    for (auto& r : out)
        if (auto it = state.externalIds.find(static_cast<std::uint32_t>(r.correlationId)); it != state.externalIds.end())
            r.externalId = static_cast<std::int64_t>(it->second);
    return out;
}

std::vector<RuntimeApiRecord> CuptiTracer::takeRuntimeRecords() {
    Collected& state = collected();
    std::lock_guard lock(state.mutex);
    std::vector<RuntimeApiRecord> out = std::move(state.runtime);
    state.runtime.clear();
    for (auto& r : out)
        if (auto it = state.externalIds.find(static_cast<std::uint32_t>(r.correlationId)); it != state.externalIds.end())
            r.externalId = static_cast<std::int64_t>(it->second);
    return out;
}

std::uint64_t CuptiTracer::droppedRecords() const { return collected().dropped.load(); }

}  // namespace tilescope

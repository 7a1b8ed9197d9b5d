#include "kernels/runtime/gpu_launcher.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>
#include <thread>
#include <vector>

#include "core/trace/run_timing.h"
#include "kernels/device_kernels.h"
#include "kernels/runtime/device_families.h"
#include "kernels/runtime/family_inputs.h"

namespace tilescope {

namespace {

constexpr auto kPollInterval = std::chrono::microseconds(200);

CudaOutcome outcomeOf(cudaError_t e) { return {cudaGetErrorName(e), cudaGetErrorString(e), static_cast<int>(e)}; }

unsigned clampDim(std::int64_t v) { return static_cast<unsigned>(std::clamp<std::int64_t>(v, 0, UINT_MAX)); }

// Launch-configuration errors leave the context usable; anything raised while the kernel ran
// (illegal address, trap, ...) is sticky.
bool isConfigurationError(cudaError_t e) {
    return e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue || e == cudaErrorLaunchOutOfResources ||
           e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice || e == cudaErrorMemoryAllocation;
}

// Waits for `done` with a deadline instead of blocking forever in cudaEventSynchronize.
cudaError_t waitFor(cudaEvent_t done, double timeoutSeconds, bool& timedOut) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    timedOut = false;
    while (true) {
        const cudaError_t e = cudaEventQuery(done);
        if (e != cudaErrorNotReady) return e;
        if (std::chrono::steady_clock::now() > deadline) {
            timedOut = true;
            return cudaErrorLaunchTimeout;
        }
        std::this_thread::sleep_for(kPollInterval);
    }
}

// Evicts L2 by writing a buffer of twice its size before each timed repeat. The memset is a
// CUPTI memset activity, not a kernel record, so it never enters the kernel timing.
class L2Flusher {
public:
    explicit L2Flusher(bool wanted) {
        if (!wanted) return;
        int device = 0, l2Bytes = 0;
        if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess ||
            l2Bytes <= 0) {
            cudaGetLastError();
            return;
        }
        m_bytes = 2 * static_cast<std::size_t>(l2Bytes);
        if (cudaMalloc(&m_buffer, m_bytes) != cudaSuccess) {
            cudaGetLastError();
            m_buffer = nullptr;
        }
    }
    ~L2Flusher() {
        if (m_buffer) cudaFree(m_buffer);
    }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    bool active() const { return m_buffer != nullptr; }
    void evict(int repeat) {
        if (m_buffer) cudaMemsetAsync(m_buffer, repeat & 0xff, m_bytes, nullptr);
    }

private:
    void* m_buffer = nullptr;
    std::size_t m_bytes = 0;
};

// A launch after the main kernel (a split-KV combine): same parameter block, same stream; or a
// library's (cuBLAS's GEMM after a dequantize), which the inputs make with their own operands.
struct ExtraKernel {
    const void* function = nullptr;
    cudaLaunchConfig_t config{};
    const ExtraLaunch* library = nullptr;
};

// The plan's extra launches as device functions (symbol + suffix), with their opt-in attribute
// set; `missing` names the first symbol this build lacks.
std::vector<ExtraKernel> extraKernels(const LaunchPlan& plan, std::string_view suffix, std::string& missing) {
    std::vector<ExtraKernel> kernels;
    for (const ExtraLaunch& e : plan.extraLaunches) {
        if (e.chosenByLibrary()) {
            ExtraKernel k;
            k.library = &e;
            kernels.push_back(k);
            continue;
        }
        const std::string symbol = std::string(e.kernelSymbol) + std::string(suffix);
        ExtraKernel k;
        k.function = findDeviceKernel(symbol);
        if (!k.function) {
            missing = symbol;
            return {};
        }
        k.config.gridDim = dim3(clampDim(e.grid.x), clampDim(e.grid.y), clampDim(e.grid.z));
        k.config.blockDim = dim3(clampDim(e.block.x), clampDim(e.block.y), clampDim(e.block.z));
        k.config.dynamicSmemBytes = static_cast<std::size_t>(std::max<std::int64_t>(e.dynamicSmem, 0));
        k.config.stream = nullptr;
        if (e.optsIntoLargeSmem &&
            cudaFuncSetAttribute(k.function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(e.dynamicSmem)) != cudaSuccess)
            cudaGetLastError();  // the launch itself then reports the error
        kernels.push_back(k);
    }
    return kernels;
}

// A library launch's failure is not a CUDA launch error: its text goes to `libraryError`.
cudaError_t launchExtraKernels(std::vector<ExtraKernel>& kernels, void** args, LaunchInputs& inputs, std::string& libraryError) {
    for (ExtraKernel& k : kernels) {
        if (k.library) {
            if (auto launched = inputs.launchLibrary(*k.library); !launched) {
                libraryError = std::string(k.library->library) + ": " + launched.error();
                return cudaErrorUnknown;
            }
            continue;
        }
        if (const cudaError_t e = cudaLaunchKernelExC(&k.config, k.function, args); e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

// Kernels per call for the CUPTI timing: ours are known; a library may launch one or more of its own
// (cuBLAS: a GEMM, sometimes a split-K reduction), so then the records of the checked call plus the
// repeats must divide evenly.
int kernelsPerCall(const std::vector<ExtraKernel>& extras, std::size_t records, int repeats) {
    const bool library = std::any_of(extras.begin(), extras.end(), [](const ExtraKernel& k) { return k.library != nullptr; });
    if (!library) return 1 + static_cast<int>(extras.size());
    const auto calls = static_cast<std::size_t>(repeats) + 1;
    return records % calls == 0 ? static_cast<int>(records / calls) : 0;
}

}  // namespace

const void* findDeviceKernel(std::string_view symbol) {
    for (const DeviceFamily& family : deviceFamilies())
        for (DeviceKernelList list : family.tables)
            for (std::size_t i = 0; i < list.count; ++i)
                if (symbol == list.entries[i].symbol) return list.entries[i].function;
    return nullptr;
}

RunResult runOnGpu(const KernelChoice& kernel, const LaunchPlan& plan, const RunOptions& options) {
    RunResult result;
    result.plan = plan;
    // Shape checks are refusals of the real stack: it raises before any launch.
    if (plan.verdict == Verdict::UnsupportedDevice || plan.verdict == Verdict::UnsupportedShape ||
        plan.verdict == Verdict::BucketOverflow || plan.verdict == Verdict::NoTileFits) {
        result.refusal = std::string(verdictName(plan.verdict)) + ": " + plan.message;
        return result;
    }
    const std::string_view suffix = options.bf16 && kernel.family->hasBf16Kernels() ? kBf16SymbolSuffix : "";
    result.symbol = std::string(plan.kernelSymbol) + std::string(suffix);
    const void* function = findDeviceKernel(result.symbol);
    if (!function) {
        result.refusal = "no device function " + result.symbol + " in this build";
        return result;
    }
    std::string missing;
    std::vector<ExtraKernel> extras = extraKernels(plan, suffix, missing);
    if (!missing.empty()) {
        result.refusal = "no device function " + missing + " in this build";
        return result;
    }
    if (cudaFuncAttributes attributes{}; cudaFuncGetAttributes(&attributes, function) == cudaSuccess) {
        result.functionRegisters = attributes.numRegs;
        result.functionStaticSmem = static_cast<std::int64_t>(attributes.sharedSizeBytes);
        result.functionLocalBytes = static_cast<std::int64_t>(attributes.localSizeBytes);
    } else {
        cudaGetLastError();
    }
    auto inputs = prepareInputs(kernel, plan, options.bf16, options.seed, options.check);
    if (!inputs) {
        result.refusal = inputs.error();
        return result;
    }

    GpuOutcome outcome;
    cudaDeviceProp prop{};
    int device = 0;
    cudaGetDevice(&device);
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) outcome.deviceName = prop.name;

    cudaLaunchConfig_t config{};
    config.gridDim = dim3(clampDim(plan.grid.x), clampDim(plan.grid.y), clampDim(plan.grid.z));
    config.blockDim = dim3(clampDim(plan.block.x), clampDim(plan.block.y), clampDim(plan.block.z));
    config.dynamicSmemBytes = static_cast<std::size_t>(std::max<std::int64_t>(plan.dynamicSmem, 0));
    config.stream = nullptr;
    void* args[] = {(*inputs)->parameterBlock()};

    cudaEvent_t start = nullptr, stop = nullptr;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    if (options.tracer) options.tracer->pushExternalId(options.launchId);
    cudaError_t launch = cudaSuccess;
    std::string libraryError;
    if (plan.optsIntoLargeSmem)
        launch = cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.dynamicSmem));
    if (launch == cudaSuccess) {
        cudaEventRecord(start, nullptr);
        launch = cudaLaunchKernelExC(&config, function, args);
        if (launch == cudaSuccess) launch = launchExtraKernels(extras, args, **inputs, libraryError);
        cudaEventRecord(stop, nullptr);
    }
    outcome.launch = libraryError.empty() ? outcomeOf(launch) : CudaOutcome{"library call failed", libraryError, -1};
    result.launched = true;
    if (launch != cudaSuccess) {
        cudaGetLastError();  // configuration errors are not sticky: clear them
    } else {
        bool timedOut = false;
        const cudaError_t done = waitFor(stop, options.timeoutSeconds, timedOut);
        outcome.synchronize =
            timedOut ? CudaOutcome{"timeout",
                                   "the kernel did not finish within " + std::to_string(static_cast<int>(options.timeoutSeconds)) + " s",
                                   static_cast<int>(cudaErrorLaunchTimeout)}
                     : outcomeOf(done == cudaSuccess ? cudaDeviceSynchronize() : done);
        if (!outcome.synchronize.ok()) {
            result.fatal = timedOut || !isConfigurationError(done);
        } else {
            if (options.check) {
                auto check = (*inputs)->check();
                if (check) outcome.check = *check;
                else outcome.synchronize = {"check failed", check.error(), -1};
                result.checkedRows = (*inputs)->checkedRows();
            }
            L2Flusher flusher(options.flushL2);
            std::vector<double> times;
            for (int i = 0; i < options.repeats; ++i) {
                flusher.evict(i);
                cudaEventRecord(start, nullptr);
                cudaError_t repeat = cudaLaunchKernelExC(&config, function, args);
                if (repeat == cudaSuccess) repeat = launchExtraKernels(extras, args, **inputs, libraryError);
                if (repeat != cudaSuccess) {
                    // The checked call ran; a timing repeat that fails must say so, not leave fewer samples
                    // behind with no word of why (a cuBLAS call can fail on its workspace here).
                    const std::string why = libraryError.empty() ? std::string(cudaGetErrorString(repeat)) : libraryError;
                    outcome.synchronize = {"timing repeat failed", "repeat " + std::to_string(i + 1) + ": " + why,
                                           static_cast<int>(repeat)};
                    cudaGetLastError();
                    break;
                }
                cudaEventRecord(stop, nullptr);
                bool repeatTimedOut = false;
                if (waitFor(stop, options.timeoutSeconds, repeatTimedOut) != cudaSuccess) {
                    result.fatal = true;
                    break;
                }
                float ms = 0.f;
                cudaEventElapsedTime(&ms, start, stop);
                times.push_back(static_cast<double>(ms) * 1000.0);
            }
            if (!times.empty()) {
                outcome.timing = timingOfSamples(std::move(times));
                outcome.timing->l2Flushed = flusher.active();
            }
        }
    }
    if (options.tracer) options.tracer->popExternalId();
    if (!result.fatal) {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    if (options.tracer && !result.fatal) {
        cudaDeviceSynchronize();
        (void)options.tracer->flush();
        for (auto& r : options.tracer->takeKernelRecords())
            if (r.externalId && *r.externalId == static_cast<std::int64_t>(options.launchId)) outcome.records.push_back(std::move(r));
        for (auto& r : options.tracer->takeRuntimeRecords())
            if (r.externalId && *r.externalId == static_cast<std::int64_t>(options.launchId)) result.apiRecords.push_back(std::move(r));
        result.droppedRecords = options.tracer->droppedRecords();
        if (outcome.timing)
            if (auto cupti =
                    timingFromRecords(outcome.records, outcome.timing->repeats,
                                      kernelsPerCall(extras, outcome.records.size(), outcome.timing->repeats), outcome.timing->l2Flushed))
                outcome.timing = cupti;
    }
    result.outcome = std::move(outcome);
    return result;
}

}  // namespace tilescope

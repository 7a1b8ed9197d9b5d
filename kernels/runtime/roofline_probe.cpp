#include "kernels/runtime/roofline_probe.h"

#include "kernels/runtime/cublas_library.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tilescope {

namespace {

// tests/gpu/bandwidth.cu's sizes: a copy far beyond L2, a GEMM large enough to reach the peak.
constexpr std::size_t kCopyBytes = std::size_t(1) << 30;
constexpr int kCopyRepeats = 10;
constexpr int kGemmSize = 8192;
constexpr int kGemmRepeats = 10;
constexpr double kMsPerSecond = 1e3;

std::string cudaText(cudaError_t status) { return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status); }

// Times `repeats` calls of `work` between two events on the legacy default stream; nullopt on error.
template <typename Work>
std::optional<double> timedSeconds(int repeats, Work work) {
    cudaEvent_t start = nullptr, stop = nullptr;
    if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) return std::nullopt;
    std::optional<double> seconds;
    bool ok = cudaEventRecord(start) == cudaSuccess;
    for (int i = 0; ok && i < repeats; ++i) ok = work();
    ok = ok && cudaEventRecord(stop) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess;
    float ms = 0.f;
    if (ok && cudaEventElapsedTime(&ms, start, stop) == cudaSuccess && ms > 0.f) seconds = ms / kMsPerSecond;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return seconds;
}

Result<double> copyBandwidthGBps() {
    void *source = nullptr, *target = nullptr;
    if (const cudaError_t s = cudaMalloc(&source, kCopyBytes); s != cudaSuccess) return makeError("cudaMalloc: " + cudaText(s));
    if (const cudaError_t s = cudaMalloc(&target, kCopyBytes); s != cudaSuccess) {
        cudaFree(source);
        return makeError("cudaMalloc: " + cudaText(s));
    }
    auto copy = [&] { return cudaMemcpy(target, source, kCopyBytes, cudaMemcpyDeviceToDevice) == cudaSuccess; };
    const bool warm = copy();
    const auto seconds = warm ? timedSeconds(kCopyRepeats, copy) : std::nullopt;
    cudaFree(source);
    cudaFree(target);
    if (!seconds) return makeError("device-to-device copy failed");
    // A copy reads and writes every byte.
    return 2.0 * static_cast<double>(kCopyBytes) * kCopyRepeats / *seconds / 1e9;
}

// Random values in [-1, 1) (a GEMM on zeros runs faster than on real data), made on the host.
template <typename T, typename Convert>
std::vector<T> randomMatrix(unsigned seed, Convert convert) {
    std::vector<T> values(std::size_t(kGemmSize) * kGemmSize);
    for (std::size_t i = 0; i < values.size(); ++i) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        values[i] = convert(static_cast<float>(h & 0xffffu) / 32768.f - 1.f);
    }
    return values;
}

Result<double> gemmTflops(const Cublas& cublas, cublasHandle_t handle, cudaDataType type) {
    const std::size_t bytes = std::size_t(kGemmSize) * kGemmSize * 2;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    auto release = [&] {
        cudaFree(a);
        cudaFree(b);
        cudaFree(c);
    };
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess || cudaMalloc(&c, bytes) != cudaSuccess) {
        release();
        return makeError("cudaMalloc failed");
    }
    bool filled = false;
    if (type == CUDA_R_16F) {
        auto toHalf = [](float v) { return __float2half(v); };
        const auto ha = randomMatrix<__half>(1, toHalf), hb = randomMatrix<__half>(2, toHalf);
        filled = cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    } else {
        auto toBf16 = [](float v) { return __float2bfloat16(v); };
        const auto ha = randomMatrix<__nv_bfloat16>(1, toBf16), hb = randomMatrix<__nv_bfloat16>(2, toBf16);
        filled = cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    }
    const float alpha = 1.f, beta = 0.f;
    auto gemm = [&] {
        return cublas.gemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha, a, type, kGemmSize, b, type,
                             kGemmSize, &beta, c, type, kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
    };
    const bool warm = filled && gemm();
    const auto seconds = warm ? timedSeconds(kGemmRepeats, gemm) : std::nullopt;
    release();
    if (!seconds) return makeError("cublasGemmEx failed");
    return 2.0 * kGemmSize * double(kGemmSize) * kGemmSize * kGemmRepeats / *seconds / 1e12;
}

// "580.95.05" from the kernel module's version file; else the CUDA driver API version.
std::string driverVersion() {
    std::ifstream file("/proc/driver/nvidia/version");
    std::string line;
    if (std::getline(file, line)) {
        std::istringstream words(line);
        std::string word, previous;
        while (words >> word) {
            if (previous == "Module" && !word.empty()) return word;
            previous = word;
        }
    }
    int version = 0;
    if (cudaDriverGetVersion(&version) == cudaSuccess && version > 0)
        return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) + " driver";
    return "unknown";
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace

Result<Calibration> measureRoofline(int ordinal, const ProbeProgress& progress) {
    cudaDeviceProp prop{};
    if (const cudaError_t s = cudaGetDeviceProperties(&prop, ordinal); s != cudaSuccess)
        return makeError("cudaGetDeviceProperties(" + std::to_string(ordinal) + "): " + cudaText(s));
    if (const cudaError_t s = cudaSetDevice(ordinal); s != cudaSuccess) return makeError("cudaSetDevice: " + cudaText(s));
    Calibration calibration;
    calibration.gpuName = prop.name;
    calibration.driverVersion = driverVersion();
    calibration.measuredAt = utcNow();
    calibration.roofline.source = RooflineSource::Measured;
    std::string provenance = "tilescope-cli calibrate " + calibration.measuredAt.substr(0, 10) + ", driver " + calibration.driverVersion;
    std::string unknown;

    if (progress) progress("copy bandwidth (1 GiB device-to-device, 10 copies)");
    if (auto copy = copyBandwidthGBps()) calibration.roofline.bandwidthGBps = *copy;
    else unknown += "; bandwidth unknown: " + copy.error();

    auto cublas = loadCublas();
    if (!cublas) {
        unknown += "; fp16 and bf16 unknown: " + cublas.error();
    } else {
        cublasHandle_t handle = nullptr;
        if (cublas->create(&handle) != CUBLAS_STATUS_SUCCESS) {
            unknown += "; fp16 and bf16 unknown: cublasCreate failed";
        } else {
            if (progress) progress("cuBLAS fp16 GEMM (8192^3, fp32 accumulate, 10 calls)");
            if (auto fp16 = gemmTflops(*cublas, handle, CUDA_R_16F)) calibration.roofline.fp16Tflops = *fp16;
            else unknown += "; fp16 unknown: " + fp16.error();
            if (progress) progress("cuBLAS bf16 GEMM (8192^3, fp32 accumulate, 10 calls)");
            if (auto bf16 = gemmTflops(*cublas, handle, CUDA_R_16BF)) calibration.roofline.bf16Tflops = *bf16;
            else unknown += "; bf16 unknown: " + bf16.error();
            cublas->destroy(handle);
        }
        provenance += ", " + cublas->name;
    }
    if (!calibration.roofline.bandwidthGBps && !calibration.roofline.fp16Tflops && !calibration.roofline.bf16Tflops)
        return makeError("nothing could be measured" + unknown);
    calibration.roofline.provenance = provenance + unknown;
    return calibration;
}

}  // namespace tilescope

// Roofline references for tests/gpu/run.sh: measured device-to-device copy bandwidth and cuBLAS
// fp16 / bf16 GEMM throughput (8192^3, random data) on this GPU. Prints one JSON object.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace {

constexpr size_t kCopyBytes = size_t(1) << 30;  // 1 GiB: far beyond L2
constexpr int kCopyRepeats = 10;
constexpr int kGemmSize = 8192;
constexpr int kGemmRepeats = 10;

// Random values in [-1, 1): a GEMM on zeros runs faster than on real data (seen on an H200).
template <typename T>
__global__ void fillRandom(T* data, size_t count, unsigned seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        data[i] = T(static_cast<float>(h & 0xffff) / 32768.f - 1.f);
    }
}

template <typename T>
void fill(void* p, size_t count, unsigned seed) {
    fillRandom<T><<<1024, 256>>>(static_cast<T*>(p), count, seed);
}

float timeMs(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0.f;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

double gemmTflops(cublasHandle_t handle, cudaDataType type) {
    void *a = nullptr, *b = nullptr, *c = nullptr;
    const size_t bytes = size_t(kGemmSize) * kGemmSize * 2;
    if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) || cudaMalloc(&c, bytes)) return -1;
    const size_t count = size_t(kGemmSize) * kGemmSize;
    if (type == CUDA_R_16F) {
        fill<__half>(a, count, 1);
        fill<__half>(b, count, 2);
    } else {
        fill<__nv_bfloat16>(a, count, 1);
        fill<__nv_bfloat16>(b, count, 2);
    }
    const float alpha = 1.f, beta = 0.f;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    auto gemm = [&] {
        return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha, a, type, kGemmSize, b, type,
                            kGemmSize, &beta, c, type, kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    if (gemm() != CUBLAS_STATUS_SUCCESS) return -1;
    cudaEventRecord(start);
    for (int i = 0; i < kGemmRepeats; ++i) gemm();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    const double seconds = timeMs(start, stop) / 1e3 / kGemmRepeats;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 2.0 * kGemmSize * double(kGemmSize) * kGemmSize / seconds / 1e12;
}

}  // namespace

int main() {
    void *src = nullptr, *dst = nullptr;
    if (cudaMalloc(&src, kCopyBytes) != cudaSuccess || cudaMalloc(&dst, kCopyBytes) != cudaSuccess) {
        std::printf("{\"error\": \"cudaMalloc failed\"}\n");
        return 1;
    }
    cudaMemcpy(dst, src, kCopyBytes, cudaMemcpyDeviceToDevice);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int i = 0; i < kCopyRepeats; ++i) cudaMemcpy(dst, src, kCopyBytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    // A copy reads and writes every byte.
    const double copyGBps = 2.0 * kCopyBytes * kCopyRepeats / (timeMs(start, stop) / 1e3) / 1e9;
    cudaFree(src);
    cudaFree(dst);
    cublasHandle_t handle;
    double fp16 = -1, bf16 = -1;
    if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
        fp16 = gemmTflops(handle, CUDA_R_16F);
        bf16 = gemmTflops(handle, CUDA_R_16BF);
        cublasDestroy(handle);
    }
    std::printf("{\"copy_GBps\": %.1f, \"cublas_fp16_TFLOPs\": %.1f, \"cublas_bf16_TFLOPs\": %.1f}\n", copyGBps, fp16, bf16);
    return 0;
}

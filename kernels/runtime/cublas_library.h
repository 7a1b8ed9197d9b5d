// cuBLAS loaded at run time (dlopen), so the runtime links no cuBLAS: `calibrate`'s GEMM peaks and the
// AWQ stacks' fp16 GEMM after their dequantize launch (awq_gemm autoawq / vllm) both call it.
#pragma once

#include <cublas_api.h>

#include <string>

#include "core/model/result.h"

namespace tilescope {

// cuBLAS entry points, looked up at run time.
struct Cublas {
    void* library = nullptr;
    cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
    cublasStatus_t (*gemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*, cudaDataType,
                             int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                             cublasGemmAlgo_t) = nullptr;
    std::string name;
};

// The toolkit's own cuBLAS: first through the usual search (LD_LIBRARY_PATH, ldconfig), then the
// default toolkit folder, as the GPU check's probe finds it through its RPATH.
Result<Cublas> loadCublas();

// One library and handle for the process (created on first use, never destroyed: cublasDestroy at exit
// would race the CUDA runtime's own teardown). The handle runs on the legacy default stream.
struct CublasSession {
    Cublas cublas;
    cublasHandle_t handle = nullptr;
};
Result<const CublasSession*> cublasSession();

// out[M, N] = x[M, K] @ w[K, N], fp16 row-major, fp32 accumulation (torch.matmul's fp16 path), on the
// session's stream. In column-major terms cuBLAS computes out^T = w^T x^T.
Result<void> cublasHalfGemm(const CublasSession& session, const void* x, const void* w, void* out, int m, int n, int k);

}  // namespace tilescope

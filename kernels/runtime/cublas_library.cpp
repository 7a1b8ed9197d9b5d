#include "kernels/runtime/cublas_library.h"

#include <dlfcn.h>

namespace tilescope {

Result<Cublas> loadCublas() {
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    std::string errors;
    for (const std::string& path : {soname, "/usr/local/cuda/lib64/" + soname, std::string("libcublas.so")}) {
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* why = dlerror();
            errors += (errors.empty() ? "" : "; ") + std::string(why ? why : path + ": cannot be loaded");
            continue;
        }
        Cublas cublas;
        cublas.library = library;
        cublas.name = path;
        cublas.create = reinterpret_cast<decltype(cublas.create)>(dlsym(library, "cublasCreate_v2"));
        cublas.destroy = reinterpret_cast<decltype(cublas.destroy)>(dlsym(library, "cublasDestroy_v2"));
        cublas.gemmEx = reinterpret_cast<decltype(cublas.gemmEx)>(dlsym(library, "cublasGemmEx"));
        if (cublas.create && cublas.destroy && cublas.gemmEx) return cublas;
        errors += (errors.empty() ? "" : "; ") + path + " lacks cublasCreate_v2 / cublasGemmEx";
        dlclose(library);
    }
    return makeError("cuBLAS not found (" + errors + ")");
}

Result<const CublasSession*> cublasSession() {
    static const Result<CublasSession> session = []() -> Result<CublasSession> {
        auto cublas = loadCublas();
        if (!cublas) return makeError(cublas.error());
        CublasSession s;
        s.cublas = *cublas;
        if (const cublasStatus_t status = s.cublas.create(&s.handle); status != CUBLAS_STATUS_SUCCESS)
            return makeError("cublasCreate failed (status " + std::to_string(static_cast<int>(status)) + ")");
        return s;
    }();
    if (!session) return makeError(session.error());
    return &*session;
}

Result<void> cublasHalfGemm(const CublasSession& session, const void* x, const void* w, void* out, int m, int n, int k) {
    const float alpha = 1.f, beta = 0.f;
    const cublasStatus_t status = session.cublas.gemmEx(session.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16F, n, x,
                                                        CUDA_R_16F, k, &beta, out, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) return makeError("cublasGemmEx failed (status " + std::to_string(static_cast<int>(status)) + ")");
    return {};
}

}  // namespace tilescope

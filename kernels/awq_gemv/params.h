// Arguments of the awq_gemv kernels, shared by kernel.cu and the GPU launcher. Plain pointers:
// the launcher owns the buffers.
#pragma once

namespace tilescope {

struct AwqGemvParams {
    const void* input;    // fp16 [M, K]
    const void* qweight;  // gemv: int32 [N, K/8]; gemv_fast: int16 [N/4, K]
    const void* qzeros;   // gemv: int32 [N, zw]; gemv_fast: fp16 scaled zeros (-z*s) [K/G, N]
    const void* scales;   // gemv: fp16 [N, zw*8]; gemv_fast: fp16 [K/G, N]
    void* output;         // fp16 [M, N]
    int m, n, k, groupSize;
};

}  // namespace tilescope

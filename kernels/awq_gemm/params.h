// Arguments of the awq_gemm kernels, shared by kernel.cu and the GPU launcher.
#pragma once

namespace tilescope {

struct AwqGemmParams {
    const void* input;    // fp16 [M, K]
    const void* qweight;  // int32 [K, N/8], AWQ nibble order
    const void* qzeros;   // int32 [K/G, N/8], AWQ nibble order
    const void* scales;   // fp16 [K/G, N]
    void* output;         // fp16 [split_k, M, N]: partial sums, added up by the caller (as upstream's .sum(0))
    int m, n, k, groupSize, splitK;
    int dynamicSmemBytes;  // the planner's dynamic shared memory (prefill); the kernel sizes its stages from it
};

}  // namespace tilescope

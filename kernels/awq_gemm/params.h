// Arguments of the awq_gemm kernels, shared by kernel.cu and the GPU launcher.
#pragma once

namespace tilescope {

struct AwqGemmParams {
    const void* input;    // fp16 [M, K]
    const void* qweight;  // int32 [K, N/8], AWQ nibble order (prefill: gemv_fast int16 [N/4, K])
    const void* qzeros;   // int32 [K/G, N/8], AWQ nibble order (prefill: fp16 [K/G, N] scaled zeros -z*s)
    const void* scales;   // fp16 [K/G, N]
    void* output;         // fp16 [split_k, M, N] partial sums added up by the caller (as upstream's .sum(0));
                          // prefill: [M, N], split-k reduced in place
    int m, n, k, groupSize, splitK;
    int dynamicSmemBytes;  // the planner's dynamic shared memory (prefill)
    int* semaphores;       // prefill split-k: one int per (M tile, ceil(N/128) N tile), zero before the first launch
    void* dequantized;     // autoawq / vllm from their threshold: fp16 W [K, N] the dequantize kernel writes, cuBLAS reads
};

}  // namespace tilescope

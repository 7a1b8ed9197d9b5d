// Arguments of the gemm_bucket kernels, shared by kernel.cu and the GPU launcher.
#pragma once

namespace tilescope {

struct GemmBucketParams {
    const void* x;  // bf16 [M, K]
    const void* w;  // bf16 [N, K]
    void* out;      // bf16 [cell, N]; rows M..cell-1 are not written (upstream returns out[:M])
    int m, n, k, cell;
    int dynamicSmemBytes;  // the planner's claim; the kernel sizes its stage ring from it
};

}  // namespace tilescope

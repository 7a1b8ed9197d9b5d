// attention device code (fp16; kernel_bf16.cu holds the bf16 set), written from KERNELS.md
// section 3: a FlashAttention-2 style forward (online softmax over K/V tiles, tensor cores
// through mma.sync m16n8k16, swizzled shared tiles read by ldmatrix, cp.async copies overlapped
// with the MMAs) with the tiles of flash-attention v2.8.3's kernel_traits.h and of sglang's
// fa4_sm120 tile search. The code is ours (flash_forward.cuh, which describes the design).
// Shared memory uses at most what the planner claims: FA2 (kBlockM + 2 kBlockN) x d; SM120
// Q + K + V (its 16 B per Q row when sheared and 2,048 B extra stay unused).
#include "kernels/attention/flash_forward.cuh"

using tilescope::AttentionParams;

#define TILESCOPE_FA2(NAME, D, BM, BN, W)                                          \
    extern "C" __global__ void __launch_bounds__(W * 32) NAME(AttentionParams p) { \
        tilescope::attention_detail::flashForward<__half, BM, BN, W, D, D>(p);     \
    }
#define TILESCOPE_SM120(NAME, BM, BN, DVMAX)                                       \
    extern "C" __global__ void __launch_bounds__(128) NAME(AttentionParams p) {    \
        tilescope::attention_detail::flashForward<__half, BM, BN, 4, 0, DVMAX>(p); \
    }
TILESCOPE_ATTENTION_KERNELS(TILESCOPE_FA2, TILESCOPE_SM120)
#undef TILESCOPE_FA2
#undef TILESCOPE_SM120

namespace tilescope {

#define TILESCOPE_FA2(NAME, ...) {#NAME, reinterpret_cast<const void*>(&NAME)},
#define TILESCOPE_SM120(NAME, ...) {#NAME, reinterpret_cast<const void*>(&NAME)},
DeviceKernelList attentionDeviceKernels() {
    static const DeviceKernel list[] = {TILESCOPE_ATTENTION_KERNELS(TILESCOPE_FA2, TILESCOPE_SM120)};
    return {list, sizeof list / sizeof list[0]};
}
#undef TILESCOPE_FA2
#undef TILESCOPE_SM120

}  // namespace tilescope

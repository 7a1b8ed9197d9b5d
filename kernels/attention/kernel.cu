// attention device code (fp16; kernel_bf16.cu holds the bf16 set), written from KERNELS.md
// section 3: a FlashAttention-2 style forward (online softmax over K/V tiles, tensor cores
// through mma.sync m16n8k16) with the tiles of flash-attention v2.8.3's kernel_traits.h and of
// sglang's fa4_sm120 tile search. The code is ours (flash_forward.cuh). Shared memory holds
// exactly the tiles the planner claims: FA2 (kBlockM + 2 kBlockN) x d; SM120 Q + K + V
// (+ 16 B per Q row when sheared) + 2,048 B.
#include "kernels/attention/flash_forward.cuh"

using tilescope::AttentionParams;

#define TILESCOPE_FA2(NAME, D, BM, BN, W)                                                \
    extern "C" __global__ void __launch_bounds__(W * 32) NAME(AttentionParams p) {     \
        tilescope::attention_detail::flashForward<__half, BM, BN, W, D, D, false>(p);    \
    }
#define TILESCOPE_SM120(NAME, BM, BN, SHEARED)                                           \
    extern "C" __global__ void __launch_bounds__(128) NAME(AttentionParams p) {        \
        tilescope::attention_detail::flashForward<__half, BM, BN, 4, 0, 64, SHEARED>(p); \
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

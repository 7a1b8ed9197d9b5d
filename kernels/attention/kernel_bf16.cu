// attention device code, bf16 instantiations: the planner's symbols with "_bf16" appended.
// Split from kernel.cu so that the two sets compile in parallel (flash_forward.cuh).
#include "kernels/attention/flash_forward.cuh"

using tilescope::AttentionParams;

#define TILESCOPE_FA2(NAME, D, BM, BN, W)                                                 \
    extern "C" __global__ void __launch_bounds__(W * 32) NAME##_bf16(AttentionParams p) { \
        tilescope::attention_detail::flashForward<__nv_bfloat16, BM, BN, W, D, D>(p);     \
    }
#define TILESCOPE_SM120(NAME, BM, BN, DVMAX)                                              \
    extern "C" __global__ void __launch_bounds__(128) NAME##_bf16(AttentionParams p) {    \
        tilescope::attention_detail::flashForward<__nv_bfloat16, BM, BN, 4, 0, DVMAX>(p); \
    }
TILESCOPE_ATTENTION_KERNELS(TILESCOPE_FA2, TILESCOPE_SM120)
#undef TILESCOPE_FA2
#undef TILESCOPE_SM120

namespace tilescope {

#define TILESCOPE_FA2(NAME, ...) {#NAME "_bf16", reinterpret_cast<const void*>(&NAME##_bf16)},
#define TILESCOPE_SM120(NAME, ...) {#NAME "_bf16", reinterpret_cast<const void*>(&NAME##_bf16)},
DeviceKernelList attentionBf16DeviceKernels() {
    static const DeviceKernel list[] = {TILESCOPE_ATTENTION_KERNELS(TILESCOPE_FA2, TILESCOPE_SM120)};
    return {list, sizeof list / sizeof list[0]};
}
#undef TILESCOPE_FA2
#undef TILESCOPE_SM120

}  // namespace tilescope

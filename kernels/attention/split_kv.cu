// attention split-KV device code, fp16 (split_kv_bf16.cu holds the bf16 set): the split-KV
// kernels and their combine, from split_kv.cuh.
#include "kernels/attention/split_kv.cuh"

using tilescope::AttentionParams;

#define TILESCOPE_SPLIT(NAME, D, BN)                                            \
    extern "C" __global__ void __launch_bounds__(128) NAME(AttentionParams p) { \
        tilescope::split_kv_detail::splitKvForward<__half, D, BN, true>(p);     \
    }
#define TILESCOPE_COMBINE(NAME, ROWS)                                           \
    extern "C" __global__ void __launch_bounds__(128) NAME(AttentionParams p) { \
        tilescope::split_kv_detail::splitKvCombine<__half, ROWS>(p);            \
    }
TILESCOPE_SPLIT_KV_KERNELS(TILESCOPE_SPLIT, TILESCOPE_COMBINE)
#undef TILESCOPE_SPLIT
#undef TILESCOPE_COMBINE

namespace tilescope {

#define TILESCOPE_ENTRY(NAME, ...) {#NAME, reinterpret_cast<const void*>(&NAME)},
DeviceKernelList attentionSplitKvDeviceKernels() {
    static const DeviceKernel list[] = {TILESCOPE_SPLIT_KV_KERNELS(TILESCOPE_ENTRY, TILESCOPE_ENTRY)};
    return {list, sizeof list / sizeof list[0]};
}
#undef TILESCOPE_ENTRY

}  // namespace tilescope

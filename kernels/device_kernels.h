// The device functions of the bundled kernels, by the symbol their planner names
// (LaunchPlan::kernelSymbol). Defined in each <family>/kernel.cu; used by the GPU launcher.
#pragma once

#include <cstddef>

namespace tilescope {

struct DeviceKernel {
    const char* symbol;    // extern "C" name: the same in ptxas' report, CUPTI records and the planner
    const void* function;  // host stub for cudaLaunchKernelExC / cudaFuncGetAttributes
};

struct DeviceKernelList {
    const DeviceKernel* entries;
    std::size_t count;
};

DeviceKernelList awqGemvDeviceKernels();
DeviceKernelList awqGemmDeviceKernels();
DeviceKernelList attentionDeviceKernels();      // fp16
DeviceKernelList attentionBf16DeviceKernels();  // bf16: <symbol>_bf16
DeviceKernelList attentionSplitKvDeviceKernels();      // split_kv.cu: split-KV and combine (fp16)
DeviceKernelList attentionSplitKvBf16DeviceKernels();  // split_kv_bf16.cu
DeviceKernelList gemmBucketDeviceKernels();

// bf16 instantiations of the attention kernels carry this suffix after the planner's symbol.
inline constexpr const char* kBf16SymbolSuffix = "_bf16";

}  // namespace tilescope

// The device functions of the bundled kernels, by the symbol their planner names
// (LaunchPlan::kernelSymbol). Each <family>/*.cu defines a `DeviceKernelList f()` table, named by
// DEVICE_TABLES in the family's family.cmake; the runtime finds them in runtime/device_families.h.
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

// bf16 instantiations (KernelFamily::hasBf16Kernels) carry this suffix after the planner's symbol.
inline constexpr const char* kBf16SymbolSuffix = "_bf16";

}  // namespace tilescope

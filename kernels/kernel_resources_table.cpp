// The compiler's resource table: one entry per kernel and arch, generated at build time from
// ptxas' resource report (kernels/cmake/GenerateResourceTable.cmake).
#include "kernels/builtin_kernels.h"

namespace tilescope {

namespace {

constexpr KernelResourceEntry kCompiledEntries[] = {
#include "kernel_resources_generated.inc"
};

}  // namespace

const KernelResourceTable& compiledKernelResources() {
    static const KernelResourceTable table{kCompiledEntries};
    return table;
}

}  // namespace tilescope

// The registry of the four bundled kernel families and the compiler's resource table for them.
#pragma once

#include "core/model/kernel_family.h"
#include "core/model/kernel_resources.h"

namespace tilescope {

const KernelRegistry& builtinKernels();
// Registers, static smem, local memory and spills per kernel and arch, from ptxas at build time.
// Empty until the CUDA build generates it: planners then report registers as unknown.
const KernelResourceTable& compiledKernelResources();

}  // namespace tilescope

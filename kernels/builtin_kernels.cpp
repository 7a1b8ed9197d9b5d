#include "kernels/builtin_kernels.h"

#include "kernels/attention/plan.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/awq_gemv/plan.h"
#include "kernels/custom/plan.h"
#include "kernels/gemm_bucket/plan.h"
#include "kernels/triton/plan.h"

namespace tilescope {

const KernelRegistry& builtinKernels() {
    static const KernelRegistry registry = [] {
        KernelRegistry r;
        r.add(std::make_unique<AwqGemvFamily>());
        r.add(std::make_unique<AwqGemmFamily>());
        r.add(std::make_unique<AttentionFamily>());
        r.add(std::make_unique<GemmBucketFamily>());
        r.add(std::make_unique<CustomFamily>());
        r.add(std::make_unique<TritonFamily>());
        return r;
    }();
    return registry;
}

}  // namespace tilescope

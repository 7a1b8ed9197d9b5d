#include "kernels/marlin/plan.h"

#include <algorithm>
#include <array>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// vllm vllm/model_executor/layers/quantization/utils/marlin_utils.py at commit 007d5005 (007d50058a06):
//   lines 25-26 GPTQ_MARLIN_MIN_THREAD_N = 64, GPTQ_MARLIN_MIN_THREAD_K = 128; 29 MARLIN_SUPPORTED_GROUP_SIZES
//   54-55 query_marlin_supported_quant_types: no types below capability 75 (older vLLM releases asked for 80)
//   123-130 / 131-137 _check_marlin_supported: the type text, then the group-size text
//   168-175 / 178-185 / 187-192 verify_marlin_supports_shape: the N, K and K % group_size texts.
// N is output_size_per_partition (column-parallel layers split N by tensor_parallel), K
// input_size_per_partition (row-parallel layers split K); this family takes the split as `tp` on N.
constexpr std::int64_t kMinThreadN = 64;
constexpr std::int64_t kMinThreadK = 128;
constexpr std::array<std::int64_t, 4> kGroupSizes{-1, 32, 64, 128};
constexpr int kMinCapability = 75;
constexpr std::string_view kAdvice = " Consider reducing tensor_parallel_size or running with --quantization gptq.";

}  // namespace

const std::vector<VariantInfo>& MarlinFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"gemm",
         "Marlin W4A16 GEMM as vLLM's gptq_marlin / awq_marlin methods check a layer: sm75+, group_size -1/32/64/128, "
         "N per partition % 64, K % 128, K % group_size",
         "vllm vllm/model_executor/layers/quantization/utils/marlin_utils.py @007d5005 (_check_marlin_supported 107-138, "
         "verify_marlin_supports_shape 161-192)",
         {"N", 32, 1024, 31},
         {"tp", 1, 8, 8}},
    };
    return list;
}

const ParameterList& MarlinFamily::parameters() const {
    static const ParameterList list{
        {"M", "rows of the activation (tokens)", 1, 1 << 24, 16, AxisScale::Log2, false},
        {"N", "output features of the whole layer (split by tp)", 1, 1 << 24, 4096, AxisScale::Log2, false},
        {"K", "input features (input_size_per_partition)", 1, 1 << 24, 4096, AxisScale::Log2, false},
        {"group_size", "quantization group size (-1: per channel)", -1, 1 << 16, 128, AxisScale::Linear, false},
        {"tp", "tensor_parallel_size: N per partition = N / tp", 1, 64, 1, AxisScale::Log2, false},
    };
    return list;
}

LaunchPlan MarlinFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const bool full = detail == PlanDetail::Full;
    const int sm = device.computeCapability.smVersion();
    const std::int64_t g = shape[GroupSize], k = shape[K], tp = shape[TensorParallel];
    if (sm < kMinCapability) {  // marlin_utils.py:54-55, 123-130: AWQ's uint4 with zero points (zp = True)
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", kMinCapability, sm}, -1, detail,
                 "Marlin does not support weight_bits = uint4. Only types = [] are supported (for group_size = " + str(g) +
                     ", device_capability = " + str(sm) + ", zp = True).");
        return plan;
    }
    if (std::find(kGroupSizes.begin(), kGroupSizes.end(), g) == kGroupSizes.end()) {  // marlin_utils.py:131-137
        failPlan(plan, Verdict::UnsupportedShape, {"group_size", 128, g}, GroupSize, detail,
                 "Marlin does not support group_size = " + str(g) + ". Only group_sizes = [-1, 32, 64, 128] are supported.");
        if (full) plan.alternative = "the checkpoint's own kernel (awq_gemm / gptq), or a checkpoint quantized with group_size 128";
        return plan;
    }
    if (shape[N] % tp != 0) {  // vLLM's linear layers refuse an uneven split before Marlin (Tilescope's words)
        failPlan(plan, Verdict::UnsupportedShape, {"N % tp", tp, shape[N]}, TensorParallel, detail,
                 full ? "N=" + str(shape[N]) + " does not split evenly over tp=" + str(tp) : std::string());
        return plan;
    }
    const std::int64_t n = shape[N] / tp;
    if (n % kMinThreadN != 0) {  // marlin_utils.py:168-175
        failPlan(plan, Verdict::UnsupportedShape, {"N % min_thread_n", kMinThreadN, n}, N, detail,
                 "Weight output_size_per_partition = " + str(n) + " is not divisible by  min_thread_n = 64." + std::string(kAdvice));
        return plan;
    }
    if (k % kMinThreadK != 0) {  // marlin_utils.py:178-185
        failPlan(plan, Verdict::UnsupportedShape, {"K % min_thread_k", kMinThreadK, k}, K, detail,
                 "Weight input_size_per_partition = " + str(k) + " is not divisible by min_thread_k = 128." + std::string(kAdvice));
        return plan;
    }
    // marlin_utils.py:187-192: group_size < input_size and K % group_size (-1 divides any K in Python).
    if (g > 0 && g < k && k % g != 0) {
        failPlan(
            plan, Verdict::UnsupportedShape, {"K % group_size", g, k}, K, detail,
            "Weight input_size_per_partition = " + str(k) + " is not divisible by group_size = " + str(g) + "." + std::string(kAdvice));
        return plan;
    }
    if (full)
        plan.note = "vLLM's Marlin checks pass (N per partition " + str(n) + ", K " + str(k) + "); the kernel's launch is not modelled";
    return plan;
}

}  // namespace tilescope

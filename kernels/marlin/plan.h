// marlin: vLLM's GPTQ-Marlin / AWQ-Marlin 4-bit GEMM as vLLM's marlin_utils.py accepts or refuses a
// layer: architecture, group size, and N / K per tensor-parallel partition against the kernel's
// minimum thread tile, with vLLM's texts. Model-only: no device code, launch not modelled.
#pragma once

#include "kernels/model_only_family.h"

namespace tilescope {

class MarlinFamily final : public ModelOnlyFamily {
public:
    enum Parameter { M, N, K, GroupSize, TensorParallel };
    enum Variant { Gemm };

    std::string_view name() const override { return "marlin"; }
    std::string_view title() const override { return "GPTQ/AWQ-Marlin 4-bit GEMM (vLLM rules)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    BackendRole backendRole(int) const override { return BackendRole::QuantizedGemm; }
};

}  // namespace tilescope

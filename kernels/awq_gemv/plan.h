// awq_gemv: decode matrix-vector product with 4-bit AWQ weights (AutoAWQ "GEMV" packings).
#pragma once

#include "core/model/kernel_family.h"

namespace tilescope {

class AwqGemvFamily final : public KernelFamily {
public:
    enum Parameter { M, N, K, GroupSize };  // M = activation rows = batch x tokens
    enum Variant { Gemv, GemvFast };

    std::string_view name() const override { return "awq_gemv"; }
    std::string_view title() const override { return "AWQ 4-bit GEMV"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;
    ModelCall modelCall() const override { return ModelCall::AwqLinearGemvPacked; }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
};

}  // namespace tilescope

// xformers: xFormers' memory_efficient_attention on its CUTLASS kernels (cutlassF forward, cutlassB
// backward) as xformers v0.0.28's operator checks (not_supported_reasons) accept or refuse a shape,
// with their reason texts, and the kernel, block, grid and shared memory its launchers pick. Model-only:
// no device code here.
#pragma once

#include "kernels/model_only_family.h"

namespace tilescope {

class XformersFamily final : public ModelOnlyFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, HeadDim, HeadDimV, Dtype };
    enum Variant { MemoryEfficient, MemoryEfficientBwd };
    static constexpr std::int64_t kDtypeFp16 = 0, kDtypeBf16 = 1, kDtypeFp32 = 2;  // the dtype parameter's values

    std::string_view name() const override { return "xformers"; }
    std::string_view title() const override { return "xFormers memory_efficient_attention (cutlass, v0.0.28)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;  // upstream's fmha_cutlassF_* / fmha_cutlassB_* names
    BackendRole backendRole(int variant) const override {
        return variant == MemoryEfficient ? BackendRole::AttentionForward : BackendRole::AttentionBackward;
    }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
};

}  // namespace tilescope

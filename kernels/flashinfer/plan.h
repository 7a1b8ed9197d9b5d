// flashinfer: FlashInfer's attention (prefill, decode) as its v0.1.6 wheels dispatch it: the head
// dimensions and GQA group sizes they were compiled for, with FlashInfer's own texts. Model-only:
// Tilescope has no FlashInfer device code and does not model its launch (tiles, grid); a plan says
// whether FlashInfer takes the shape, and which rule refuses it.
#pragma once

#include "kernels/model_only_family.h"

namespace tilescope {

class FlashInferFamily final : public ModelOnlyFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, KvHeads, HeadDim, PageSize, UseTensorCores };
    enum Variant { Prefill, Decode };

    std::string_view name() const override { return "flashinfer"; }
    std::string_view title() const override { return "FlashInfer attention (v0.1.6 rules)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    BackendRole backendRole(int variant) const override {
        return variant == Decode ? BackendRole::AttentionDecode : BackendRole::AttentionForward;
    }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
};

}  // namespace tilescope

// sdpa: PyTorch's scaled_dot_product_attention backends on CUDA (flash, efficient, cudnn, math) as
// sdp_utils.cpp's filters accept or refuse a shape, each with the "why not" warning torch prints
// when no backend is left ("Flash attention kernel not used because:" ...). Model-only: the plan says
// whether that backend would be chosen for the shape, not its kernels' launch.
#pragma once

#include "kernels/model_only_family.h"

namespace tilescope {

class SdpaFamily final : public ModelOnlyFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, HeadDim, HeadDimV, Dtype, Causal, Train, Dropout };
    enum Variant { Flash, Efficient, Cudnn, Math };
    static constexpr std::int64_t kDtypeFp16 = 0, kDtypeBf16 = 1, kDtypeFp32 = 2;  // the dtype parameter's values

    std::string_view name() const override { return "sdpa"; }
    std::string_view title() const override { return "PyTorch SDPA backend choice (sdp_utils.cpp)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    BackendRole backendRole(int) const override { return BackendRole::AttentionForward; }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
};

}  // namespace tilescope

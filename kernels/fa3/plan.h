// fa3: FlashAttention-3 (flash-attention's hopper/ package, flash_attn_interface) forward checks as
// hopper/flash_api.cpp raises them, with their texts. Model-only: no device code, launch not modelled.
#pragma once

#include "kernels/model_only_family.h"

namespace tilescope {

class Fa3Family final : public ModelOnlyFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, KvHeads, HeadDim, HeadDimV, Dtype };
    enum Variant { Forward };
    static constexpr std::int64_t kDtypeFp16 = 0, kDtypeBf16 = 1, kDtypeFp8 = 2;  // the dtype parameter's values

    std::string_view name() const override { return "fa3"; }
    std::string_view title() const override { return "FlashAttention-3 forward (hopper/, flash-attention v2.8.3 tree)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    BackendRole backendRole(int) const override { return BackendRole::AttentionForward; }
};

}  // namespace tilescope

// attention: FlashAttention-style forward (fp16/bf16), FA2's tile table and the SM120 tile search.
#pragma once

#include "core/kernel_family.h"

namespace tilescope {

class AttentionFamily final : public KernelFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, HeadDim, HeadDimV, Causal };
    enum Variant { Fa2, Sm120TileSearch };

    std::string_view name() const override { return "attention"; }
    std::string_view title() const override { return "FlashAttention-style forward"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;

    struct Tile {
        std::int64_t blockM, blockN, warps;
        std::string_view name;    // "128x64/4"
        std::string_view symbol;  // device function for this head-dim bucket and tile
    };
};

}  // namespace tilescope

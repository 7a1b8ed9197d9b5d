// gemm_bucket: M-bucketed bf16 decode GEMM (sglang o_proj_gemm_ar, single-GPU form).
#pragma once

#include "core/kernel_family.h"

namespace tilescope {

class GemmBucketFamily final : public KernelFamily {
public:
    enum Parameter { M, N, K };
    enum Variant { Oproj };

    std::string_view name() const override { return "gemm_bucket"; }
    std::string_view title() const override { return "M-bucketed GEMM"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;

    struct Cell {
        std::int64_t rows;  // M is rounded up to this
        std::int64_t gridBlocks;  // 0: min(tiles, SMs)
        std::int64_t threads;
        std::int64_t blockN;  // 0 for the small-cell kernel
        std::int64_t stages;
        std::int64_t smemBytes;
        std::string_view name;
        std::string_view symbol;
    };
    static const std::vector<Cell>& cells();
};

}  // namespace tilescope

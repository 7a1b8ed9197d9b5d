// triton: a Triton matmul-style kernel (the matmul tutorial's pipelined kernel) described by its
// autotuner config: tile sizes, pipeline stages, warps and the operand element size. Tilescope has
// no device code for it: Triton compiles it on the user's GPU; this family says which configs
// Triton would refuse on which GPU, and why, before anyone compiles them.
#pragma once

#include <cstdint>
#include <string>

#include "core/model/kernel_family.h"

namespace tilescope {

class TritonFamily final : public KernelFamily {
public:
    enum Parameter { M, N, K, BlockM, BlockN, BlockK, NumStages, NumWarps, DtypeBytes };
    enum Variant { Matmul };

    std::string_view name() const override { return "triton"; }
    std::string_view title() const override { return "Triton matmul (autotuner config)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
    bool hasDeviceCode() const override { return false; }

    // Shared memory Triton's software pipeliner allocates for the two dot operands:
    // num_stages x (BLOCK_M x BLOCK_K + BLOCK_K x BLOCK_N) x element bytes (source in plan.cpp).
    static std::int64_t pipelinedSmemBytes(std::int64_t blockM, std::int64_t blockN, std::int64_t blockK, std::int64_t numStages,
                                           std::int64_t elementBytes);
};

// The name Triton's matmul tutorial gives its kernel; the label of every plan (no device function here).
inline constexpr std::string_view kTritonKernelSymbol = "matmul_kernel";

// Triton's OutOfResources text, as str() of the exception prints it (python/triton/runtime/errors.py):
// "out of resource: shared memory, Required: 196608, Hardware limit: 166912. Reducing block sizes or
// `num_stages` may help." `resource` is "shared memory" or "threads".
std::string tritonOutOfResourcesText(std::string_view resource, std::int64_t required, std::int64_t limit);

}  // namespace tilescope

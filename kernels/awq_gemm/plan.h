// awq_gemm: 4-bit AWQ GEMM (AutoAWQ/vLLM "GEMM" packing), with the legacy llm-awq launch, the
// prefill kernel's M buckets, and the stacks' dispatch (`autoawq`, `vllm`): the GEMM kernel below
// their M threshold, from it their dequantize kernel then an fp16 GEMM by cuBLAS (two launches).
#pragma once

#include "core/model/kernel_family.h"

namespace tilescope {

class AwqGemmFamily final : public KernelFamily {
public:
    enum Parameter { M, N, K, GroupSize };
    enum Variant { Gemm, LegacyGridY, Prefill, AutoAwq, Vllm };

    std::string_view name() const override { return "awq_gemm"; }
    std::string_view title() const override { return "AWQ 4-bit GEMM"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;
    ModelCall modelCall() const override { return ModelCall::AwqLinearGemmPacked; }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp

    // One row of the prefill kernel's M-bucket table.
    struct PrefillBucket {
        std::int64_t maxM;  // rows up to and including
        std::int64_t ctaM, ctaN, ctaK;
        std::int64_t warps, stages, splitK;
        std::int64_t smemBytes;
        std::string_view name;
        std::string_view symbol;
    };
    static const std::vector<PrefillBucket>& prefillBuckets();

    // A stack's switch from the GEMM kernel to dequantize + torch.matmul (cuBLAS), by M.
    struct StackDispatch {
        std::string_view stack;        // "AutoAWQ"
        std::int64_t dequantizeFromM;  // the first M that dispatches
        std::string_view tile;         // the plan's tile from there: "dequantize + GEMM from M = 1024"
    };
    // nullptr for a variant that does not dispatch.
    static const StackDispatch* stackDispatch(int variant);
    static constexpr std::string_view kDequantizeSymbol = "awq_dequantize_weights";
    static constexpr std::string_view kGemmLibrary = "cuBLAS";  // ExtraLaunch::library of the GEMM after it
    // vLLM refuses an AWQ checkpoint below sm_75 before any kernel exists: AWQConfig.get_min_capability() returns 75
    // ("The AWQ kernel only supports Turing or newer GPUs", vllm/model_executor/layers/quantization/awq.py, read at
    // vllm-project/vllm@000796ac, the index's copy), and the model loader raises ValueError with "The quantization method
    // awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70." (vLLM v0.4.0.post1's own
    // log in vllm-project/vllm issue #4202, on a V100). An older vLLM required 80 (issue #1282, 2023-10-07: "Minimum
    // capability: 80. Current capability: 75."); 75 since vLLM PR #1252 ran AWQ on Turing (issue #1488, 2023-10-27).
    static constexpr int kVllmMinCapability = 75;
};

}  // namespace tilescope

// gemm_bucket: M-bucketed bf16 decode GEMM (sglang o_proj_gemm_ar, single-GPU form).
#pragma once

#include "core/model/kernel_family.h"

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
    ElementType elementType() const override { return ElementType::Bf16; }
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp

    // One M cell's launch. What a shared-memory stage holds: `stageChunks` k-chunks of 64, each
    // `stageWeightRows` rows of W plus `stageActivationRows` rows of x (padding rows read as zero).
    struct Cell {
        std::int64_t rows;  // M is rounded up to this
        bool small;         // cells 8/16: fixed grid, N/8 column tiles spread over it
        bool swap;          // cells 32/64: W is the MMA's A operand (128-row part), x the B (BN rows)
        std::int64_t threads;
        std::int64_t blockN;  // B-tile rows (tokens when swapped); the small cells' strip is 48 weight rows
        std::int64_t stages;
        std::int64_t stageChunks;
        std::int64_t stageWeightRows;
        std::int64_t stageActivationRows;
        std::int64_t smemBytes;
        std::string_view name;
        std::string_view symbol;
    };
    // Output tiles one call computes (small cells: the N/8 column tiles) and the CTAs it launches:
    // upstream's fixed cap of 152, never the SM count.
    static std::int64_t workTiles(const Cell& cell, std::int64_t n);
    static std::int64_t gridBlocks(const Cell& cell, std::int64_t n);
    static const std::vector<Cell>& cells();
};

}  // namespace tilescope

// attention: FlashAttention-style forward (fp16/bf16), FA2's tile table and the SM120 tile search.
#pragma once

#include "core/model/kernel_family.h"

namespace tilescope {

class AttentionFamily final : public KernelFamily {
public:
    enum Parameter { Batch, SeqlenQ, SeqlenK, Heads, HeadDim, HeadDimV, Causal, NumSplits, Dropout, Fa2Version };
    enum Variant { Fa2, Sm120TileSearch, Fa2Bwd };

    std::string_view name() const override { return "attention"; }
    std::string_view title() const override { return "FlashAttention-style forward"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;
    bool hasBf16Kernels() const override { return true; }
    bool variantHasDeviceCode(int variant) const override { return variant != Fa2Bwd; }  // fa2_bwd: backward.cpp models upstream's
    std::string_view splitName() const override { return "num_splits"; }                 // FA2's split-KV count
    ModelCall modelCall() const override { return ModelCall::Attention; }
    BackendRole backendRole(int variant) const override;
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp

    struct Tile {
        std::int64_t blockM, blockN, warps;
        std::string_view name;    // "128x64/4"
        std::string_view symbol;  // device function for this head-dim bucket and tile
    };
};

namespace attention {

// FlashAttention-2's backward (mha_bwd) at `shape`: its release's checks, then v2.8.3's launch (backward.cpp).
LaunchPlan planBackward(LaunchPlan plan, const Shape& shape, const DeviceSpec& device, PlanDetail detail);
// The FA2 releases whose backward rules differ, as the fa2_version parameter spells them (2.x.y -> 2xy):
// 255, 262 and 273 are the first tags of their mha_bwd gate (flash_api.cpp, read tag by tag v2.4.3-v2.8.3).
inline constexpr std::int64_t kFa2V243 = 243, kFa2V255 = 255, kFa2V262 = 262, kFa2V273 = 273, kFa2V283 = 283;

// flash-attention v2.8.3 flash_api.cpp num_splits_heuristic, reproduced with its float/double
// arithmetic: the fewest splits whose wave efficiency reaches 85 % of the best. mha_fwd passes
// batch*heads*ceil(seqlen_q/64), 2 * the SM count, ceil(seqlen_k/block_n) and 128.
int numSplitsHeuristic(std::int64_t batchHeadsMBlocks, std::int64_t numSms, std::int64_t numNBlocks, int maxSplits);

// set_params_splitkv / run_mha_fwd_splitkv_dispatch: kBlockN of the split-KV kernel per head size.
std::int64_t splitKvBlockN(std::int64_t headDim);

// mha_fwd head_size_rounded (a multiple of 32 up to 128, else of 64): the head-dim bucket, the
// row length of the split-KV accumulator.
std::int64_t headDimRounded(std::int64_t headDim);

}  // namespace attention

}  // namespace tilescope

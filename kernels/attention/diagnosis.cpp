// What `diagnose` knows of FlashAttention: flash-attention's own checks (architecture, head_dim,
// dtype), the FA4-on-SM120 tile search's capacity text, the kernel names that tie a CUDA or
// shared-memory error to it, and how each is planned.
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/attention/plan.h"

namespace tilescope {

namespace {

std::vector<DiagnosisValue> attentionShape(const FindingBuilder& b) {
    auto values = known(b, {"batch", "seqlen_q", "seqlen_k", "heads", "head_dim", "head_dim_v"});
    // FA2 takes one head size for Q, K and V: a log that names only head_dim means both.
    if (b.valueOf("head_dim") && !b.valueOf("head_dim_v")) values.push_back({"head_dim_v", *b.valueOf("head_dim"), 0, {}});
    return values;
}

void buildAttentionArch(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    f.title = "FlashAttention refuses a pre-Ampere GPU" + (f.arch.empty() ? std::string() : " (" + f.arch + ")");
    f.explanation = "FlashAttention-2 uses Ampere (sm_80) tensor-core instructions and refuses older GPUs before launching.";
    f.fix = "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU, or use an sm_80+ GPU";
    if (b.deviceNamed()) b.plan("attention", "fa2", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

void buildAttentionHeadDim(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    const auto hd = b.valueOf("head_dim");
    const auto limit = groupNumber(m, 1);
    const bool multiple = f.signature == "attention.head_dim_multiple";
    f.title = multiple ? "FlashAttention: head_dim " + (hd ? str(*hd) + " " : std::string()) + "is not a multiple of 8"
                       : "FlashAttention: head_dim " + (hd ? str(*hd) + " " : std::string()) + "over 256";
    if (hd && limit) f.limit = LimitHit{multiple ? "head_dim % 8" : "head_dim", *limit, *hd};
    f.explanation = multiple ? "FlashAttention-2 loads heads in 8-element vectors: head_dim must be a multiple of 8."
                             : "FlashAttention-2 is compiled for head_dim buckets up to 256.";
    f.fix = multiple ? "pad head_dim to the next multiple of 8" : "route head_dim > 256 to another backend (e.g. PyTorch SDPA)";
    if (hd) b.plan("attention", "fa2", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

void buildAttentionDtype(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    if (f.signature == "attention.dtype") {
        f.title = "FlashAttention got a dtype other than fp16/bf16";
        f.explanation = "FlashAttention-2 is compiled for fp16 and bf16 only (float32 inputs are refused).";
        f.fix = "cast q, k and v to torch.float16 or torch.bfloat16 (bf16 needs sm_80+), or use PyTorch SDPA for float32";
    } else if (f.signature == "attention.same_dtype") {
        f.title = "FlashAttention: q, k and v have different dtypes";
        f.explanation = "FlashAttention-2 needs one dtype for query, key and value.";
        f.fix = "cast key and value to the query's dtype";
    } else {
        f.title = "FlashAttention: bfloat16 on a pre-Ampere GPU";
        f.explanation = "bf16 tensor-core instructions exist from sm_80 only.";
        f.fix = "use float16 on this GPU (FlashAttention itself also needs sm_80+; use PyTorch SDPA there)";
    }
    b.fallbackCommand("head_dim");
}

void buildTileCapacity(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("attention", "sm120_tile_search");
    b.value("head_dim", groupNumber(m, 1));
    b.value("head_dim_v", groupNumber(m, 2));
    b.value("smem_limit", groupNumber(m, 4));
    attentionFigures(b);
    const auto hd = b.valueOf("head_dim");
    const auto hdv = b.valueOf("head_dim_v");
    f.title = "no attention tile fits shared memory" + (hd ? " at head_dim " + str(*hd) : std::string()) +
              (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation =
        "The FA4-on-SM120 style tile search tried every (tile_m, tile_n) candidate for this head size; none "
        "fits the device's opt-in shared memory per block" +
        (b.valueOf("smem_limit") ? " (" + withThousands(*b.valueOf("smem_limit")) + " B)." : std::string("."));
    f.fix = "route this head_dim to another backend, or use a GPU with a larger opt-in shared-memory limit";
    if (hd && hdv) b.plan("attention", "sm120_tile_search", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

// FlashAttention-2 backward's head-dim x architecture gate: the wording tells the release
// (fa2_version) and whether dropout was on; planned as fa2_bwd when the log gives head_dim.
// FlashAttention 1.x's backward gate (v1.0.4-v1.0.9 csrc/flash_attn/fmha_api.cpp lines 416-417: head_size
// > 64 needs sm80 / sm90; v1.0.0-1.0.3 raise the same check without a message). FlashAttention-2 from
// v2.0.0 (csrc/flash_attn/flash_api.cpp) gates only head dims above 192, so the fix is the upgrade;
// fa2_bwd models 2.x, not 1.x, so nothing is planned at 1.x's rule.
void buildAttentionV1BackwardArch(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("attention", "fa2_bwd");
    attentionFigures(b);
    const auto hd = b.valueOf("head_dim");
    f.title = "FlashAttention 1.x backward refuses head_dim" + (hd ? " " + str(*hd) : std::string(" > 64")) + " on this GPU";
    f.explanation =
        "This is flash-attn 1.x's text (1.0.4-1.0.9): its backward runs head dims above 64 only on sm80 (A100) and sm90 (H100). "
        "FlashAttention-2 (2.0 and later) runs head dims up to 192 on every sm_8x GPU and, from 2.6.2, any head dim up to "
        "256 without dropout; Tilescope models its 2.x rules (attention/fa2_bwd), not 1.x's.";
    f.fix = "upgrade to flash-attn 2.x (pip install flash-attn>=2), or train on an A100/H100";
    b.fallbackCommand("head_dim");
}

void buildAttentionBackwardArch(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("attention", "fa2_bwd");
    attentionFigures(b);
    const std::string gate = m.str(1);
    const bool v255 = gate.find("224") != std::string::npos;
    const bool withDropout = !v255 && gate.find("dropout") != std::string::npos;
    const std::int64_t version = v255 ? attention::kFa2V255 : (withDropout ? attention::kFa2V262 : attention::kFa2V243);
    b.valueFrom("fa2_version", version, f.line,
                v255 ? "this wording is flash-attn 2.5.5-2.6.1's"
                     : (withDropout ? "this wording is flash-attn 2.6.2-2.7.2's" : "this wording is flash-attn <= 2.5.4's"));
    if (withDropout) b.valueFrom("dropout", 1, f.line, "the text says the backward ran with dropout");
    const auto hd = b.valueOf("head_dim");
    f.title = "FlashAttention-2 backward refuses head_dim" + (hd ? " " + str(*hd) : std::string(" > 192")) + " on this GPU";
    f.explanation =
        "flash-attn's mha_bwd runs head dims above 192 only on sm80 (A100/A800) and sm90 (H100/H800) in this release: its "
        "backward kernels for them need more shared memory than consumer and L-series GPUs grant one block.";
    // Without dropout the gate is gone from v2.6.2 (flash_api.cpp:879) and the sm86/sm89 hdim256 kernel
    // runs (flash_bwd_launch_template.h:316-318 there); with dropout no release launches one below 144 KB.
    f.fix =
        v255 ? "train with dropout 0 and head_dim 256 (not 224), or with dropout 0 on flash-attn 2.6.2+ (any head_dim), or use an A100/H100"
        : withDropout ? "train with dropout 0 (this release then runs head_dim up to 256 on this GPU), or use an A100/H100"
                      : "upgrade flash-attn and train with dropout 0 (2.5.5+ takes head_dim 256, 2.6.2+ any head_dim), or use an A100/H100";
    if (hd) {
        auto values = attentionShape(b);
        values.push_back({"fa2_version", version, 0, {}});
        if (withDropout) values.push_back({"dropout", 1, 0, {}});
        b.plan("attention", "fa2_bwd", values, "head_dim");
    }
    b.fallbackCommand("head_dim");
}

void planRejectedLaunch(FindingBuilder& b) {
    b.kernel("attention", "fa2");
    attentionFigures(b);
    if (b.valueOf("batch") || b.valueOf("heads")) b.plan("attention", "fa2", attentionShape(b), "batch");
    b.fallbackCommand("batch");
}

// A FlashAttention kernel named at the error (flash_attn, FlashAttentionForwardSm80, a
// flashattention module) is the attention family, variant unknown; planned when head_dim is known.
void claimSharedMemoryOverLimit(FindingBuilder& b) {
    const bool flash = b.near({"flash_attn"}) || b.near({"flashattention"}) || b.near({"flash_fwd"});
    const bool attention = flash || (b.valueOf("head_dim").has_value() && (b.near({"attn"}) || b.near({"attention"})));
    if (!attention) return;
    b.kernel("attention", "");
    if (b.valueOf("head_dim")) b.plan("attention", "fa2", attentionShape(b), "head_dim", "the log does not say which attention variant");
}

// A tile search's capacity text with a head_dim or an FA4 / flash kernel near it: the SM120 tile search.
void claimNoTileFits(FindingBuilder& b) {
    const bool attention = b.valueOf("head_dim").has_value() || b.near({"fa4"}) || b.near({"flash"});
    if (!attention) return;
    b.kernel("attention", "sm120_tile_search");
    if (b.valueOf("head_dim")) b.plan("attention", "sm120_tile_search", attentionShape(b), "head_dim");
}

}  // namespace

const DiagnosisSignatures* AttentionFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            // Before the looser capacity text (smem.capacity) that also matches it.
            {10,
             "attention.tile_capacity",
             {"head_dim_v"},
             R"(\(\s*head_dim\s*,\s*head_dim_v\s*\)\s*=\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*exceeds\s+(\w+)\s+shared[- ]?memory\s+capacity(?:\s*\(\s*(\d+)\s*bytes\s*\))?)",
             V::NoTileFits,
             false,
             buildTileCapacity},
            // mha_bwd's head-dim x architecture gate in its three wordings (v2.4.3:772, v2.5.5:787, v2.6.2:880).
            {175,
             "attention.bwd_arch",
             {"flashattention backward for head dim"},
             R"(FlashAttention backward for head dim ((?:> 192(?: with dropout)?)|(?:256 with dropout, or head dim 224 with/without dropout)) requires A100/A800 or H100/H800)",
             V::UnsupportedDevice,
             false,
             buildAttentionBackwardArch},
            // flash-attn 1.x's wording of the same gate at head dim 64 (v1.0.9 fmha_api.cpp:417).
            {176,
             "attention.bwd_arch_v1",
             {"flashattention backward for head dim"},
             R"(FlashAttention backward for head dim > 64 requires A100 or H100 GPUs)",
             V::UnsupportedDevice,
             false,
             buildAttentionV1BackwardArch},
            {160,
             "attention.arch",
             {"ampere gpus"},
             R"(FlashAttention only supports Ampere GPUs or newer\.?)",
             V::UnsupportedDevice,
             false,
             buildAttentionArch},
            {170,
             "attention.head_dim",
             {"head dimension at most"},
             R"(FlashAttention forward only supports head dimension at most (\d+))",
             V::UnsupportedShape,
             false,
             buildAttentionHeadDim},
            {180,
             "attention.head_dim_multiple",
             {"head_size that is a multiple"},
             R"((?:query, key, value, and out_ )?must have a head_size that is a multiple of (\d+))",
             V::UnsupportedShape,
             false,
             buildAttentionHeadDim},
            {190,
             "attention.dtype",
             {"fp16 and bf16"},
             R"(FlashAttention only supports? fp16 and bf16 data type)",
             V::UnsupportedShape,
             false,
             buildAttentionDtype},
            {200,
             "attention.bf16_arch",
             {"bfloat16 is only supported on ampere"},
             R"(bfloat16 is only supported on Ampere GPUs or newer)",
             V::UnsupportedDevice,
             false,
             buildAttentionDtype},
            {210,
             "attention.same_dtype",
             {"must have the same dtype"},
             R"(query and (?:key|value) must have the same dtype)",
             V::UnsupportedShape,
             false,
             buildAttentionDtype},
        };
        d.clues = {{80, {"flash_attn"}}, {90, {"flash_fwd"}}, {100, {"flashattention"}}};
        d.causes = {
            {"cuda.invalid_configuration", 20, "attention/fa2: grid (ceil(seqlen_q/128), batch, heads): batch or heads over 65,535"},
            {"cuda.invalid_value", 20, "attention (fa2 / sm120_tile_search): large head_dim tiles over a consumer GPU's 101,376 B opt-in"},
        };
        d.rejectedLaunch = planRejectedLaunch;
        d.sharedMemoryOverLimit = claimSharedMemoryOverLimit;
        d.noTileFits = claimNoTileFits;
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

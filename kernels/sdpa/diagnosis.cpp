// What `diagnose` knows of PyTorch SDPA: the "why not" warnings sdp_utils.cpp prints for each backend
// when none is left ("Memory efficient kernel not used because:" ...; select_sdp_backend 1233-1240 at
// pytorch 001f694a, whose line numbers these are), each mapped to its backend's rule.
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/sdpa/plan.h"

namespace tilescope {

namespace {

std::vector<DiagnosisValue> sdpaShape(const FindingBuilder& b) { return known(b, {"batch", "heads", "head_dim", "head_dim_v"}); }

// check_head_dim_size_flash (195-254, TORCH_WARN 214-223): "... Got Query.size(-1): 48, Key.size(-1): 48, Value.size(-1): 32 instead."
void buildSdpaFlashHeadDim(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("sdpa", "flash");
    b.value("head_dim", groupNumber(m, 1));
    b.value("head_dim_v", groupNumber(m, 3));
    const auto hd = b.valueOf("head_dim"), hdv = b.valueOf("head_dim_v");
    f.title = "SDPA: flash attention skipped" +
              (hd ? " for head_dim " + str(*hd) + (hdv && *hdv != *hd ? " / " + str(*hdv) : "") : std::string());
    f.explanation =
        "PyTorch's flash backend takes one head dim for q, k and v, at most 256; SDPA falls through to the next backend "
        "(or fails with \"No available kernel\" when none is left).";
    f.fix = "the efficient (CUTLASS) or math backend takes this shape; enable them in sdpa_kernel()";
    if (hd && hdv) b.plan("sdpa", "flash", sdpaShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

// check_head_dim_size_mem_efficient (287-348, TORCH_WARN 311-321): "Mem efficient attention requires last dimension of
// inputs to be divisible by 8." (older releases stop there; 001f694a adds the sizes).
void buildSdpaMemEfficientAlignment(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("sdpa", "efficient");
    const auto alignment = groupNumber(m, 1);
    b.value("head_dim", groupNumber(m, 2));
    b.value("head_dim_v", groupNumber(m, 4));
    f.title =
        "SDPA: memory-efficient attention needs head dims divisible by " + (alignment ? str(*alignment) : std::string("its alignment"));
    f.explanation = "The CUTLASS kernels behind SDPA's efficient backend load heads in aligned vectors (8 elements for fp16/bf16).";
    f.fix = "pad the head dim to a multiple of " + (alignment ? str(*alignment) : std::string("8")) + ", or use the math backend";
    if (b.valueOf("head_dim") && b.valueOf("head_dim_v")) b.plan("sdpa", "efficient", sdpaShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

// check_requires_grad_and_head_dim_gt192_constraints_on_sm86_89_or_120 (543-577, TORCH_WARN 566-571).
void buildSdpaTrainingGt192(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("sdpa", "flash");
    b.value("head_dim", groupNumber(m, 1));
    f.title = "SDPA: flash attention skipped for training with head_dim" + (b.valueOf("head_dim") ? " " + str(*b.valueOf("head_dim")) : "");
    f.explanation =
        "On sm86-sm89 (and sm120) PyTorch's flash backend does not train with head_dim in (192, 224], or in (224, 256] "
        "with dropout: its backward needs more shared memory than those GPUs grant.";
    f.fix = "SDPA's efficient or cuDNN backend trains this shape; or use an A100/H100";
    if (auto hd = b.valueOf("head_dim")) {
        auto values = known(b, {"head_dim"});
        values.push_back({"head_dim_v", *hd, 0, {}});
        values.push_back({"train", 1, 0, {}});
        b.plan("sdpa", "flash", values, "head_dim");
    }
    b.fallbackCommand("head_dim");
}

}  // namespace

const DiagnosisSignatures* SdpaFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {151,
             "sdpa.flash_head_dim",
             {"flash attention requires q,k,v"},
             R"(Flash attention requires q,k,v to have the same last dimension and to be less than or equal to 256\.(?:\s*Got Query\.size\(-1\): (\d+), Key\.size\(-1\): (\d+), Value\.size\(-1\): (\d+))?)",
             V::UnsupportedShape,
             false,
             buildSdpaFlashHeadDim},
            {152,
             "sdpa.mem_efficient_alignment",
             {"mem efficient attention requires last dimension"},
             R"(Mem efficient attention requires last dimension of inputs to be divisible by (\d+)\.(?:\s*Got Query\.size\(-1\): (\d+), Key\.size\(-1\): (\d+), Value\.size\(-1\): (\d+))?)",
             V::UnsupportedShape,
             false,
             buildSdpaMemEfficientAlignment},
            {153,
             "sdpa.flash_training_gt192",
             {"doesn't support training with head_dim"},
             R"(Flash attention currently doesn't support training with head_dim .{0,120}?and head_dim: (\d+))",
             V::UnsupportedDevice,
             false,
             buildSdpaTrainingGt192},
        };
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

// What `diagnose` knows of vLLM's Marlin layer checks: N and K per tensor-parallel partition against
// the kernel's minimum thread tile, and the group sizes it takes.
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/marlin/plan.h"

namespace tilescope {

namespace {

void buildMarlinShape(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("marlin", "gemm");
    const bool output = m.str(1).front() == 'o' || m.str(1).front() == 'O';
    const auto size = groupNumber(m, 2);
    const auto tile = groupNumber(m, 3);
    b.value(output ? "N" : "K", size);
    if (size && tile) f.limit = LimitHit{output ? "N % min_thread_n" : "K % min_thread_k", *tile, *size};
    f.title = std::string("Marlin: ") + (output ? "output" : "input") + "_size_per_partition" + (size ? " " + str(*size) : std::string()) +
              " is not a multiple of " + (tile ? str(*tile) : std::string("its tile"));
    f.explanation = std::string("vLLM's Marlin kernels split N in tiles of 64 and K in tiles of 128 per tensor-parallel rank; ") +
                    (output ? "this layer's N / tensor_parallel_size" : "this layer's K / tensor_parallel_size (a row-parallel layer)") +
                    " does not divide.";
    f.fix = "a tensor_parallel_size that keeps the partition a multiple of the tile, or --quantization gptq / awq (no Marlin)";
    if (size) b.plan("marlin", "gemm", known(b, {output ? "N" : "K"}), output ? "N" : "K", "the log gives the partition's size");
    b.fallbackCommand(output ? "N" : "K");
}

void buildMarlinGroup(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("marlin", "gemm");
    b.value("group_size", groupNumber(m, 1));
    const auto g = b.valueOf("group_size");
    f.title = "Marlin does not take group_size" + (g ? " " + str(*g) : std::string());
    f.explanation = "vLLM's Marlin kernels take quantization groups of 32, 64 or 128 (or -1, per channel).";
    f.fix = "serve the checkpoint with its own kernel (--quantization awq / gptq) or requantize with group_size 128";
    if (g) {
        f.limit = LimitHit{"group_size", 128, *g};
        b.plan("marlin", "gemm", known(b, {"group_size"}), "group_size");
    }
    b.fallbackCommand("group_size");
}

}  // namespace

const DiagnosisSignatures* MarlinFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            // vllm marlin_utils.py verify_marlin_supports_shape (older releases end after the number, newer add advice).
            {116,
             "marlin.min_thread",
             {"size_per_partition"},
             R"(Weight (output|input)_size_per_partition = (\d+) is not divisible by\s+min_thread_[nk] = (\d+))",
             V::UnsupportedShape,
             false,
             buildMarlinShape},
            {117,
             "marlin.group_size",
             {"marlin does not support group_size"},
             R"(Marlin does not support group_size = (-?\d+))",
             V::UnsupportedShape,
             false,
             buildMarlinGroup},
        };
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

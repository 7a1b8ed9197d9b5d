// What `diagnose` knows of AWQ's GEMV kernels: AutoAWQ's batch and group-size checks, the names
// that tie a CUDA error to them, and how a refused launch of one is planned.
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/awq_gemv/plan.h"

namespace tilescope {

namespace {

void buildGemvBatch(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    // "only supports batch size 1" alone is said by other stacks too: without AWQ's own wording or
    // an AWQ/GEMV clue nearby, the kernel stays unknown.
    const bool awq = lowercaseAscii(f.message).find("awq gemv") != std::string::npos || b.near({"awq"}) || b.near({"gemv"});
    if (!awq) {
        f.title = "a kernel that only supports batch size 1 got more";
        f.explanation = "The log does not say which kernel; AutoAWQ's GEMV kernel prints this text for batch > 1.";
        f.fix = "route batches larger than 1 to a kernel that takes them (for AWQ: a GEMM-packed checkpoint)";
        b.value("batch", groupNumber(m, 1));
        b.fallbackCommand("");
        return;
    }
    b.kernel("awq_gemv", "gemv");
    auto rows = groupNumber(m, 1);
    if (!rows) rows = b.figure(LogFigure::Batch);
    b.value("M", rows);
    linearFigures(b);
    f.title = rows ? "AWQ GEMV kernel got batch " + str(*rows) : "AWQ GEMV kernel got more than one row";
    if (rows) f.limit = LimitHit{"batch_size", 1, *rows};
    f.explanation = "The AWQ GEMV kernel (AutoAWQ \"GEMV\" packing) takes exactly one activation row; this call had " +
                    (rows ? str(*rows) : std::string("more than one")) + ".";
    f.fix = "use a GEMM-packed checkpoint (quantization_config.version = \"gemm\"), which accepts any batch, or serve with batch size 1";
    if (rows) b.plan("awq_gemv", "gemv", known(b, {"M", "N", "K", "group_size"}), "M");
    b.fallbackCommand("M");
}

void buildGemvFastBatch(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("awq_gemv", "gemv_fast");
    const auto batch = b.figure(LogFigure::Batch);
    const auto seq = b.figure(LogFigure::Seq);
    if (batch) b.value("M", *batch * seq.value_or(1));
    linearFigures(b);
    const auto rows = b.valueOf("M");
    f.title = rows ? "gemv_fast kernel got batch " + str(*rows) : "gemv_fast kernel got an unsupported batch size";
    f.explanation = "AutoAWQ's fast GEMV kernel (gemv_fast) has instances for batch 1..7 only" +
                    (rows ? "; this call had " + str(*rows) + " rows." : std::string(".")) +
                    " Upstream sends 8 or more rows to a GEMM kernel.";
    f.fix = "route batches of 8 or more rows to a GEMM kernel (awq_gemm), or cap the decode batch at 7";
    if (rows) b.plan("awq_gemv", "gemv_fast", known(b, {"M", "N", "K", "group_size"}), "M");
    b.fallbackCommand("M");
}

void buildGemvGroup(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    const bool fast = b.near({"gemv_fast"});
    b.kernel("awq_gemv", fast ? "gemv_fast" : "");
    b.value("group_size", b.figure(LogFigure::GroupSize));
    b.value("N", b.figure(LogFigure::N));
    b.value("K", b.figure(LogFigure::K));
    const auto g = b.valueOf("group_size");
    f.title = g ? "AWQ GEMV kernel: unsupported group size " + str(*g) : "AWQ GEMV kernel: unsupported group size";
    f.explanation = "The AWQ GEMV kernels are compiled for a few group sizes only: gemv for 64 and 128, gemv_fast for 128.";
    f.fix = "quantize with q_group_size 128, or use a GEMM-packed checkpoint (any multiple of 32)";
    if (g)
        b.plan("awq_gemv", fast ? "gemv_fast" : "gemv", known(b, {"group_size", "N", "K"}), "group_size",
               fast ? std::string() : "the log does not say which GEMV variant");
    b.fallbackCommand("group_size");
}

void planRejectedLaunch(FindingBuilder& b) {
    b.kernel("awq_gemv", "gemv");
    linearFigures(b);
    b.value("M", b.figure(LogFigure::Batch));
    if (b.valueOf("N")) b.plan("awq_gemv", "gemv", known(b, {"M", "N", "K", "group_size"}), "N");
    b.fallbackCommand("N");
}

}  // namespace

const DiagnosisSignatures* AwqGemvFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {80,
             "awq_gemv.batch",
             {"only supports batch size 1"},
             R"((?:AWQ GEMV kernel\s+)?only supports batch size 1\b(?:\s*\(got batch size (\d+)\))?)",
             V::UnsupportedShape,
             false,
             buildGemvBatch},
            {90,
             "awq_gemv.fast_batch",
             {"unsupported batch size"},
             R"(Unsupported batch size for gemv kernel\.?)",
             V::UnsupportedShape,
             false,
             buildGemvFastBatch},
            {100,
             "awq_gemv.group",
             {"unsupported group size"},
             R"(Unsupported group size for gemv kernel\.?)",
             V::UnsupportedShape,
             false,
             buildGemvGroup},
        };
        d.clues = {{20, {"awq", "gemv"}}, {40, {"wqlinear_gemv"}}, {50, {"gemv_forward_cuda"}}};
        d.causes = {
            {"cuda.invalid_configuration", 30, "awq_gemv/gemv: grid.y = N/4 over 65,535 (N over 262,140), or batch over 65,535 on grid.z"},
        };
        d.rejectedLaunch = planRejectedLaunch;
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

// What `diagnose` knows of the M-bucketed o_proj GEMM: its overflow text, the kernel name that
// ties a CUDA error to it, and how a refused launch of it is planned.
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/gemm_bucket/plan.h"

namespace tilescope {

namespace {

void buildBucketOverflow(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("gemm_bucket", "oproj");
    b.value("M", groupNumber(m, 1));
    b.value("N", b.figure(LogFigure::N));
    b.value("K", b.figure(LogFigure::K));
    const auto rows = b.valueOf("M");
    const auto top = groupNumber(m, 3);
    if (rows && top) f.limit = LimitHit{"max_tokens", *top, *rows};
    f.title = "gemm_ar: M=" + (rows ? str(*rows) : std::string("?")) + " outside every bucket";
    f.explanation = "The M-bucketed o_proj GEMM rounds M up to a cell of 8..512 rows (MAX_TOKENS" +
                    (top ? " = " + str(*top) : std::string()) + "); a larger batch of tokens has no cell.";
    f.fix = "chunk M into blocks of at most " + (top ? str(*top) : std::string("MAX_TOKENS")) +
            " rows, or cap the scheduler's tokens per step (e.g. chunked prefill size)";
    if (rows) b.plan("gemm_bucket", "oproj", known(b, {"M", "N", "K"}), "M");
    b.fallbackCommand("M");
}

void planRejectedLaunch(FindingBuilder& b) {
    b.kernel("gemm_bucket", "oproj");
    rowsFromLog(b);
    if (b.valueOf("M")) b.plan("gemm_bucket", "oproj", known(b, {"M", "N", "K"}), "M");
    b.fallbackCommand("M");
}

}  // namespace

const DiagnosisSignatures* GemmBucketFamily::diagnosisSignatures() const {
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {70,
             "gemm_bucket.overflow",
             {"gemm_ar"},
             R"(gemm_ar:\s*M\s*=\s*(-?\d+)\s+outside\s+\[\s*(-?\d+)\s*,\s*(\d+)\s*\])",
             Verdict::BucketOverflow,
             false,
             buildBucketOverflow},
        };
        d.clues = {{10, {"gemm_ar"}}};
        d.causes = {
            {"cuda.invalid_configuration", 40, "gemm_bucket/oproj: its grid is at most 152 blocks; only an empty grid (M = 0) is refused"},
            {"cuda.invalid_value", 10,
             "gemm_bucket/oproj: 196,608 to 225,280 B of dynamic shared memory, over the opt-in limit of every GPU but sm_90/sm_100"},
        };
        d.rejectedLaunch = planRejectedLaunch;
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

// What `diagnose` knows of AWQ's GEMM kernels: llm-awq's / AutoAWQ's shape checks, the names
// that tie a CUDA error to them, and the legacy launch whose grid.y a long prefill overflows.
#include <algorithm>

#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/awq_gemm/plan.h"

namespace tilescope {

namespace {

void buildGemmCheck(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto cta = groupNumber(m, 1);
    const std::string id = f.signature;
    // llm-awq's original kernel checks against its only tile width, 128.
    constexpr std::int64_t kLegacyCtaN = 128;
    const std::string variant = (id == "awq_gemm.cta_n" && cta == kLegacyCtaN) ? "legacy_grid_y" : "gemm";
    b.kernel("awq_gemm", variant);
    rowsFromLog(b);
    linearFigures(b);
    std::string axis = "N";
    std::vector<std::string_view> needed{"N"};
    if (id == "awq_gemm.cta_n") {
        f.explanation = "AWQ GEMM tiles the output features by " + (cta ? str(*cta) : std::string("cta_N")) +
                        " columns: OC (N, out_features) must be a multiple of it.";
        f.fix = "pad the layer's out_features to a multiple of " + (cta ? str(*cta) : std::string("cta_N")) +
                ", or keep this layer unquantized (modules_to_not_convert)";
    } else if (id == "awq_gemm.pack_num") {
        f.explanation = "AWQ packs 8 4-bit weights per int32 along the output features: OC must be a multiple of 8.";
        f.fix = "pad out_features to a multiple of 8, or keep this layer unquantized";
    } else if (id == "awq_gemm.group_multiple") {
        axis = "group_size";
        needed = {"group_size"};
        f.explanation = "AWQ GEMM reads scales and zeros per 32-row K step: the group size must be a multiple of 32.";
        f.fix = "quantize with q_group_size 32, 64 or 128";
    } else if (id == "awq_gemm.oc_group") {
        needed = {"N", "group_size"};
        f.explanation = "AWQ GEMM needs OC (N) to be a multiple of the group size.";
        f.fix = "quantize with a group size that divides out_features (128 usually does)";
    } else {
        axis = "K";
        needed = {"K", "group_size"};
        f.explanation = "AWQ GEMM needs IC (K, in_features) to be a multiple of the group size and of 32.";
        f.fix = "pad in_features, or quantize with a group size that divides it";
    }
    f.title = "AWQ GEMM shape check: " + f.message;
    const bool enough = std::all_of(needed.begin(), needed.end(), [&](std::string_view n) { return b.valueOf(n).has_value(); });
    if (enough) b.plan("awq_gemm", variant, known(b, {"M", "N", "K", "group_size"}), axis);
    b.fallbackCommand(axis);
}

// AutoAWQ 0.2.0 to 0.2.9 never call gemm_forward_cuda from M = 1024: WQLinearMMFunction.forward
// (awq/modules/linear/gemm.py, PR #316; plan.cpp cites the lines) sends batch x seq >= 1024 to
// dequantize_weights_cuda + torch.matmul. The releases before (up to 0.1.8, awq/modules/linear.py line 105)
// call the kernel at every M. A traceback through gemm_forward_cuda at such an M therefore comes from code
// without the dispatch: a release before 0.2.0, a development build between them, or a caller of its own.
// The log does not say which, so the finding does not name a version it ran.
void noteAutoAwqBeforeDispatch(FindingBuilder& b) {
    const auto m = b.valueOf("M");
    const AwqGemmFamily::StackDispatch* autoawq = AwqGemmFamily::stackDispatch(AwqGemmFamily::AutoAwq);
    const AwqGemmFamily::StackDispatch* vllm = AwqGemmFamily::stackDispatch(AwqGemmFamily::Vllm);
    if (!m || *m < autoawq->dequantizeFromM || !b.near({"gemm_forward_cuda"}) || !b.near({"awq/modules/linear"})) return;
    auto& f = b.finding();
    f.explanation += " AutoAWQ releases from 0.2.0 dispatch M >= " + withThousands(autoawq->dequantizeFromM) +
                     " to dequantize_weights_cuda + torch.matmul (cuBLAS) and never call gemm_forward_cuda there, so a "
                     "traceback through it at M = " +
                     withThousands(*m) + " comes from code without that dispatch (AutoAWQ before 0.2.0, or a build or caller of its own).";
    f.fix += "; or upgrade AutoAWQ to 0.2.0 or later (dequantize + GEMM from M = " + withThousands(autoawq->dequantizeFromM) +
             ", plan -k awq_gemm -v autoawq), or serve with vLLM 0.3.0 or later (from M = " + withThousands(vllm->dequantizeFromM) +
             ", -v vllm)";
}

// The legacy llm-awq launch, named near a refused grid: M from the log, N and K from the log or
// the model it names.
void planRejectedLaunch(FindingBuilder& b) {
    auto& f = b.finding();
    b.kernel("awq_gemm", "legacy_grid_y");
    rowsFromLog(b);
    linearFigures(b);
    linearFromModel(b, "awq_gemm", "legacy_grid_y");
    f.title = "AWQ GEMM launch rejected: grid.y over its limit (the legacy llm-awq launch)";
    f.explanation +=
        " The original llm-awq GEMM launch puts ceil(M/16) * N/128 blocks on grid.y, which overflows "
        "at long prefills (llm-awq issue #7).";
    if (!b.familyNote().empty()) f.explanation += " The kernel is inferred: " + b.familyNote() + ".";
    f.fix = "use a kernel that flattens the grid into grid.x (AutoAWQ / vLLM), or split the prefill into chunks";
    std::vector<std::string> missing;
    if (!b.valueOf("M")) missing.push_back("M (the rows of the call: the log gives no tokens=, tensor shape or prompt length)");
    if (!b.valueOf("N"))
        missing.push_back(
            "N and K (out_features, in_features: the log names no model Tilescope has a config for; give one with "
            "diagnose --model config.json, or add its folder in the settings)");
    if (!missing.empty()) f.unknown = "unknown: " + joinList(missing);
    // M alone still places the failure: N and K at the family's defaults say so in the plan note.
    if (b.valueOf("M")) {
        if (!b.valueOf("N")) f.planNote = (f.planNote.empty() ? "" : f.planNote + "; ") + "N and K unknown: the family's defaults";
        b.plan("awq_gemm", "legacy_grid_y", known(b, {"M", "N", "K", "group_size"}), "M");
    }
    noteAutoAwqBeforeDispatch(b);
    b.fallbackCommand("M");
}

// vLLM's refusal of an AWQ checkpoint on a GPU below AWQ's minimum capability (its model loader, before
// any kernel exists; AwqGemmFamily::kVllmMinCapability). The capability is the text's ("Current
// capability: 70", major x 10 + minor): it implies the GPUs, and the vllm variant is planned on one of
// them, where the planner refuses it with the same text. A log whose own minimum differs (80: a vLLM
// before AWQ ran on Turing) keeps its numbers in the message; the planner models 75.
void buildVllmCapability(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("awq_gemm", "vllm");
    const auto minimum = groupNumber(m, 1);
    const auto current = groupNumber(m, 2);
    b.value("min_capability", minimum);
    b.value("capability", current);
    if (minimum && current) f.limit = LimitHit{"compute_capability", *minimum, *current};
    constexpr int kModelled = AwqGemmFamily::kVllmMinCapability;
    const auto ccText = [](std::int64_t v) { return capabilityOfVersion(v).toString(); };
    f.title = "vLLM refuses AWQ below compute capability " + ccText(minimum.value_or(kModelled)) +
              (current ? ": the GPU is " + archNameOf(capabilityOfVersion(*current)) : std::string());
    f.explanation = "vLLM checks the quantization method against the GPU before it loads any kernel: AWQ needs compute capability " +
                    ccText(minimum.value_or(kModelled)) + " (AWQConfig.get_min_capability()" +
                    (minimum ? ", \"Minimum capability: " + str(*minimum) + "\"" : std::string()) + ")" +
                    (current ? ", the GPU is " + ccText(*current) + " (\"Current capability: " + str(*current) + "\", major x 10 + minor)"
                             : std::string()) +
                    ".";
    if (minimum && *minimum != kModelled)
        f.explanation += " This log's vLLM requires " + str(*minimum) + "; the planner models " + str(kModelled) +
                         ", vLLM's minimum since its AWQ kernels run on Turing (an older vLLM required 80: vllm-project/vllm "
                         "issue #1282). The message keeps the log's numbers.";
    f.fix = "run on a GPU of " + archNameOf(capabilityOfVersion(kModelled)) +
            " (Turing) or newer, or serve a GPTQ or fp16 checkpoint with a backend this GPU supports";
    if (!current) {
        b.fallbackCommand("M");
        return;
    }
    const ComputeCapability cc = capabilityOfVersion(*current);
    const bool onDatabaseGpu = b.deviceOfCapability(
        cc, "\"Current capability: " + str(*current) + "\": every database GPU of compute capability " + cc.toString());
    if (*current >= kModelled) {
        // The planner's vLLM passes this GPU: only the older vLLM of the log refuses it.
        f.fix = "upgrade vLLM: from " + str(kModelled) + " on its AWQ kernels run on " + archNameOf(cc) +
                "; or run on a GPU of compute capability " + ccText(minimum.value_or(kModelled)) + " or newer";
        f.planNote =
            "not planned at the log's minimum: the planner models vLLM's " + str(kModelled) + ", which " + archNameOf(cc) + " passes";
        if (onDatabaseGpu) f.command = "tilescope-cli plan -k awq_gemm -v vllm -d " + b.planDevice().id;
    } else if (onDatabaseGpu) {
        b.plan("awq_gemm", "vllm", known(b, {"M", "N", "K", "group_size"}), "M");
    } else {
        f.planNote = "not planned: no database GPU has compute capability " + cc.toString();
        f.command = "tilescope-cli devices";
    }
    b.fallbackCommand("M");
}

}  // namespace

const DiagnosisSignatures* AwqGemmFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {110, "awq_gemm.cta_n", {"cta_n"}, R"(OC is not multiple of cta_N\s*=\s*(\d+))", V::UnsupportedShape, false, buildGemmCheck},
            {120,
             "awq_gemm.pack_num",
             {"pack_num"},
             R"(OC is not multiple of pack_num\s*=\s*(\d+))",
             V::UnsupportedShape,
             false,
             buildGemmCheck},
            {130,
             "awq_gemm.group_multiple",
             {"group size should"},
             R"(Group size should be a multiple of (\d+))",
             V::UnsupportedShape,
             false,
             buildGemmCheck},
            {140,
             "awq_gemm.oc_group",
             {"oc is not multiple of group"},
             R"(OC is not multiple of Group size)",
             V::UnsupportedShape,
             false,
             buildGemmCheck},
            // Before core's vllm.quantization_capability (215), which reads every other method's.
            {145,
             "awq_gemm.vllm_capability",
             {"method awq is not supported"},
             R"(The quantization method awq is not supported for the current GPU\.?\s*Minimum capability:\s*(\d+)\.?\s*Current capability:\s*(\d+)\.?)",
             V::UnsupportedDevice,
             false,
             buildVllmCapability},
            {150,
             "awq_gemm.ic_group",
             {"ic is not multiple"},
             R"(IC is not multiple of (?:Group size|32))",
             V::UnsupportedShape,
             false,
             buildGemmCheck},
        };
        d.clues = {{30, {"awq", "gemm"}}, {60, {"wqlinear_gemm"}}, {70, {"gemm_forward_cuda"}}};
        d.causes = {
            {"cuda.invalid_configuration", 10,
             "awq_gemm/legacy_grid_y: grid.y = ceil(M/16) x N/128 passes 65,535 at long prefills (M=16384 with N over 8,064)"},
            {"cuda.invalid_value", 30, "awq_gemm/prefill: 73,728 B at M <= 128, over a T4's 65,536 B opt-in"},
            {"cuda.invalid_value", 40,
             "awq_gemm/legacy_grid_y and awq_gemv: a grid.y over 65,535, which the CUDA 13 runtime reports this way"},
        };
        d.rejectedLaunch = planRejectedLaunch;
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

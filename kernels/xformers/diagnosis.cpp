// What `diagnose` knows of xFormers: memory_efficient_attention's "No operator found" refusal, which
// lists the call's inputs and, per operator it tried, why that operator does not take them. The
// cutlass operator's reasons are the ones the xformers planner models (device capability, bf16,
// head-dim alignment, the largest head dim); its attn_bias alignment is read and explained here.
#include <algorithm>
#include <cctype>

#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/xformers/plan.h"

namespace tilescope {

namespace {

using X = XformersFamily;

// How far after the error line the inputs and the operators' reasons are read.
constexpr int kBlockLines = 60;

// One tensor of the inputs block: "     query       : shape=(2, 498, 8, 32) (torch.float16)"
// (xformers v0.0.30 xformers/ops/fmha/dispatch.py:76-78 and common.py Inputs' description).
struct InputTensor {
    std::vector<std::int64_t> shape;
    std::string dtype;  // "float16"
    int line = 0;       // 0-based
    std::string text;
};

struct OperatorReasons {
    std::string name;  // "cutlassF-pt"
    std::vector<std::string> reasons;
    int line = 0;  // 0-based line of its "is not supported because:"
};

struct NoOperatorBlock {
    std::optional<InputTensor> query, key, value;
    std::vector<OperatorReasons> operators;
};

std::vector<std::int64_t> numbers(std::string_view text) {
    std::vector<std::int64_t> out;
    std::int64_t v = 0;
    bool in = false;
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            v = v * 10 + (c - '0');
            in = true;
        } else if (in) {
            out.push_back(v);
            v = 0;
            in = false;
        }
    }
    if (in) out.push_back(v);
    return out;
}

// The inputs and the operators' reasons printed after "No operator found ... with inputs:": dispatch.py
// writes every reason of an operator under its "`<NAME>` is not supported because:", indented 4 spaces.
NoOperatorBlock readBlock(const LogText& log, int errorLine) {
    static const Pattern input(R"(^(query|key|value)\s*: shape=\(([0-9, ]*)\) \(torch\.(\w+)\))");
    static const Pattern header(R"(^`([^`]+)` is not supported because:)");
    static const Pattern inputField(R"(^\w+\s*: )");
    NoOperatorBlock block;
    OperatorReasons* current = nullptr;
    const int end = std::min(log.lineCount(), errorLine + 1 + kBlockLines);
    for (int i = errorLine + 1; i < end; ++i) {
        // The text after a log prefix ("[rank0]: "), and how far it is indented past that prefix.
        const std::string_view text = log.withoutPrefix(i);
        const std::string& raw = log.line(i);
        std::size_t indent = 0;
        for (auto at = static_cast<std::size_t>(text.data() - raw.data()); at > 0 && (raw[at - 1] == ' ' || raw[at - 1] == '\t'); --at)
            ++indent;
        SvMatch m;
        if (input.search(text, m)) {
            InputTensor t{numbers(m.str(2)), m.str(3), i, std::string(text)};
            const std::string name = lowercaseAscii(m.str(1));
            (name == "query" ? block.query : name == "key" ? block.key : block.value) = std::move(t);
            continue;
        }
        if (header.search(text, m)) {
            block.operators.push_back({m.str(1), {}, i});
            current = &block.operators.back();
            continue;
        }
        if (current && indent >= 4 && !text.empty()) {
            current->reasons.emplace_back(text);
            continue;
        }
        if (!current && indent > 0 && inputField.search(text)) continue;  // attn_bias, p
        break;
    }
    return block;
}

std::optional<std::int64_t> dtypeValue(const std::string& dtype) {
    if (dtype == "float16" || dtype == "half") return X::kDtypeFp16;
    if (dtype == "bfloat16") return X::kDtypeBf16;
    if (dtype == "float32" || dtype == "float") return X::kDtypeFp32;
    return std::nullopt;
}

// The call's shape from the printed inputs: [B, M, H, K] (xformers' BMHK), [B, M, K] with H = 1, and
// BMGHK's groups x heads as the heads (xformers v0.0.30 xformers/ops/fmha/__init__.py docstring).
void inputFigures(FindingBuilder& b, const NoOperatorBlock& block) {
    if (const auto& q = block.query; q && q->shape.size() >= 3) {
        const auto& s = q->shape;
        b.valueFrom("batch", s.front(), q->line + 1, q->text);
        b.valueFrom("seqlen_q", s[1], q->line + 1, q->text);
        std::int64_t heads = 1;
        for (std::size_t i = 2; i + 1 < s.size(); ++i) heads *= s[i];
        b.valueFrom("heads", heads, q->line + 1, q->text);
        b.valueFrom("head_dim", s.back(), q->line + 1, q->text);
        if (auto d = dtypeValue(q->dtype)) b.valueFrom("dtype", *d, q->line + 1, q->text);
    }
    if (const auto& k = block.key; k && k->shape.size() >= 3) b.valueFrom("seqlen_k", k->shape[1], k->line + 1, k->text);
    if (const auto& v = block.value; v && !v->shape.empty()) b.valueFrom("head_dim_v", v->shape.back(), v->line + 1, v->text);
}

// A reason of the cutlass operator and the rule it is.
struct CutlassRule {
    enum Kind { None, BiasAlignment, Planned, NotBuilt, Device } kind = None;
    std::string reason;
    std::int64_t alignment = 0;  // BiasAlignment: 128 / the bias dtype's bits
    std::int64_t stride = 0;     // BiasAlignment: the first stride that breaks it
};

CutlassRule cutlassRule(const OperatorReasons& op) {
    static const Pattern bias(R"(^attn_bias\.stride\(-2\) % (\d+) != 0 \(attn_bias\.stride\(\) = \(([0-9, ]*)\)\))");
    static const Pattern planned(
        R"(^(?:requires device with capability|bf16 is only supported|(?:query|key|value)\.shape\[-1\] % \d+ != 0|max\(query\.shape\[-1\], value\.shape\[-1\]\) >))");
    static const Pattern notBuilt(R"(^(?:xFormers wasn't build with CUDA support|operator wasn't built))");
    static const Pattern device(R"(^device=\w+ \(supported)");
    for (const auto& reason : op.reasons) {
        SvMatch m;
        if (bias.search(reason, m)) {
            CutlassRule rule{CutlassRule::BiasAlignment, reason, groupNumber(m, 1).value_or(8), 0};
            const auto strides = numbers(m.str(2));
            for (std::size_t d = 0; d + 1 < strides.size(); ++d)  // every dimension but the last (cutlass.py:105-110)
                if (rule.alignment > 0 && strides[d] % rule.alignment != 0) {
                    rule.stride = strides[d];
                    break;
                }
            return rule;
        }
    }
    for (const auto& reason : op.reasons) {
        if (planned.search(reason)) return {CutlassRule::Planned, reason};
        if (device.search(reason)) return {CutlassRule::Device, reason};
        if (notBuilt.search(reason)) return {CutlassRule::NotBuilt, reason};
    }
    return {};
}

std::string operatorsText(const NoOperatorBlock& block) {
    std::string out;
    for (const auto& op : block.operators) {
        std::string reasons;
        for (const auto& r : op.reasons) {
            if (r.starts_with("HINT:")) continue;
            if (reasons.find(r) != std::string::npos) continue;  // cutlass prints a bias reason per dimension
            reasons += (reasons.empty() ? "" : "; ") + r;
        }
        out += (out.empty() ? "" : ", ") + op.name + " (" + reasons + ")";
    }
    return out;
}

// xformers v0.0.30 xformers/ops/fmha/dispatch.py:62-83 _run_priority_list: "No operator found for
// `memory_efficient_attention_forward` with inputs:", then each operator tried (fa3F, fa2F, cutlassF)
// with its not_supported_reasons (dispatch.py:58-59).
void buildXformersNoOperator(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const bool backward = lowercaseAscii(m.str(1)).ends_with("backward");
    const std::string variant = backward ? "memory_efficient_bwd" : "memory_efficient";
    b.kernel("xformers", variant);
    const NoOperatorBlock block = readBlock(b.scope().log, b.line());
    inputFigures(b, block);
    const auto cutlass = std::find_if(block.operators.begin(), block.operators.end(),
                                      [](const OperatorReasons& op) { return op.name.starts_with("cutlass"); });
    const CutlassRule rule = cutlass != block.operators.end() ? cutlassRule(*cutlass) : CutlassRule{};
    const std::string tried = operatorsText(block);
    f.explanation = "xFormers found no " + std::string(backward ? "backward" : "forward") + " operator for this call" +
                    (tried.empty() ? std::string(".") : "; it tried " + tried + ".");
    const std::string cutlassName = cutlass != block.operators.end() ? cutlass->name : std::string(backward ? "cutlassB" : "cutlassF");
    f.title = "xFormers memory_efficient_attention: no operator takes this call" +
              (rule.kind != CutlassRule::None ? " (" + cutlassName + ": " + rule.reason + ")" : std::string());
    const auto values = known(b, {"batch", "seqlen_q", "seqlen_k", "heads", "head_dim", "head_dim_v", "dtype"});
    switch (rule.kind) {
        case CutlassRule::BiasAlignment: {
            // cutlass.py:98-123 _check_bias_alignment: every stride of the bias but the last a multiple of
            // 128 / its dtype's bits; a bias allocated at its own size [.., Mq, Mk] breaks it when Mk is not.
            f.kind = Verdict::UnsupportedShape;
            if (rule.stride > 0) f.limit = LimitHit{"attn_bias stride % alignment", rule.alignment, rule.stride};
            const auto mk = b.valueOf("seqlen_k");
            const std::string padded = mk ? str((*mk + rule.alignment - 1) / rule.alignment * rule.alignment)
                                          : std::string("a multiple of ") + str(rule.alignment);
            f.fix = "allocate attn_bias with its last dimension padded to " + padded + " and slice it back to " +
                    (mk ? str(*mk) : std::string("the key length")) +
                    " (xformers' HINT: torch.zeros([1, 1, 5, 8])[:,:,:,:5]), or make the key length a multiple of " + str(rule.alignment);
            // The planner models cutlass's shape and device checks, not the bias's memory layout: say whether
            // this shape passes them on the log's GPU.
            const auto kernel = resolveKernel(b.scope().kernels, "xformers", variant);
            if (auto shape = kernel ? FindingBuilder::shapeOf(*kernel, values) : Result<Shape>(makeError(kernel.error()))) {
                const LaunchPlan plan = kernel->family->plan(kernel->variant, *shape, b.deviceForPlans(), PlanDetail::Brief);
                f.explanation += plan.ok()
                                     ? " Without the bias's layout " + cutlassName + " takes this shape on " + b.planDevice().id +
                                           " (the xformers planner's checks pass): the bias's strides are what it refuses."
                                     : " The xformers planner also refuses this shape on " + b.planDevice().id + ": " + plan.message + ".";
            }
            b.fallbackCommand("seqlen_k");
            return;
        }
        case CutlassRule::Planned: {
            // The planner's own rules (plan.cpp): its plan gives the limit and, where it has one, the fix.
            const bool device = rule.reason.starts_with("requires device") || rule.reason.starts_with("bf16");
            f.kind = device ? Verdict::UnsupportedDevice : Verdict::UnsupportedShape;
            f.fix = rule.reason.starts_with("bf16")              ? "use float16 on this GPU (bf16 needs compute capability 8.0)"
                    : rule.reason.starts_with("requires device") ? "run on a newer GPU"
                                                                 : "pad the head dims as the reason says";
            if (b.valueOf("head_dim")) b.plan("xformers", variant, values, "head_dim");
            break;
        }
        case CutlassRule::Device:
            f.kind = Verdict::UnsupportedDevice;
            f.fix = "move query, key and value to the GPU (.cuda()) before memory_efficient_attention";
            break;
        case CutlassRule::NotBuilt:
            f.kind = Verdict::UnsupportedDevice;
            f.fix = "install an xformers build for this PyTorch and CUDA (python -m xformers.info lists what was built)";
            break;
        case CutlassRule::None: f.fix = "read the operators' reasons above: the cutlass operator's are the ones Tilescope models"; break;
    }
    b.fallbackCommand("head_dim");
}

}  // namespace

const DiagnosisSignatures* XformersFamily::diagnosisSignatures() const {
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            {155,
             "xformers.no_operator",
             {"no operator found for `memory_efficient_attention"},
             R"(No operator found for `(memory_efficient_attention_(?:forward|backward))` with inputs)",
             Verdict::UnsupportedShape,
             false,
             buildXformersNoOperator},
        };
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

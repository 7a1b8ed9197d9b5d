#include "core/diagnosis/call_shapes.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include <re2/re2.h>

#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

// A call's documented query layout for one rank: the parameter each dimension is ("" = a
// dimension the layout leaves unnamed). Every layout is checked against the upstream docstring:
//   flash_attn_func / flash_attn_with_kvcache: "q: (batch_size, seqlen, nheads, headdim)";
//   flash_attn_varlen_func: "q: (total_q, nheads, headdim)" (Dao-AILab/flash-attention
//     flash_attn/flash_attn_interface.py at 0251105a, lines 1192, 1432 and 1549).
//   xformers.ops.memory_efficient_attention: "[B, M, H, K]"; "If inputs have dimension 3, it is
//     assumed that the dimensions are [B, M, K] and H=1"; with GQA [B, M, G, H, K]
//     (facebookresearch/xformers v0.0.28 xformers/ops/fmha/__init__.py lines 205-208, 673).
//   torch.nn.functional.scaled_dot_product_attention: "query: (N, ..., Hq, L, E)" (PyTorch's
//     docstring, torch/nn/functional.py; pytorch.org/docs torch.nn.functional.scaled_dot_product_attention).
//   flashinfer.single_prefill_with_kv_cache: "q: [qo_len, num_qo_heads, head_dim_qk]";
//   flashinfer.single_decode_with_kv_cache: "q: [num_qo_heads, head_dim]" (flashinfer-ai/flashinfer
//     at fb28d724, flashinfer/prefill.py line 1217, flashinfer/decode.py line 577). The batch
//     wrappers' run(q, ...) is not read: a log names the wrapper's class, not its call.
struct Layout {
    int rank;
    std::array<std::string_view, 5> dims;
    std::string_view ambiguity;   // what stays open at this rank, "" when nothing does
    std::string_view documented;  // the docstring's words for this rank
};

struct CallLayouts {
    std::string_view needle;  // lowercase, as the log names the call
    std::string_view call;
    std::string_view documented;
    std::array<Layout, 3> layouts;  // rank 0 = unused
};

constexpr std::array<CallLayouts, 7> kCalls{{
    {"flash_attn_varlen_func",
     "flash_attn_varlen_func",
     "(total_q, nheads, headdim)",
     {{{3, {"total_q", "heads", "head_dim"}, "", "(total_q, nheads, headdim)"}, {0, {}, "", ""}, {0, {}, "", ""}}}},
    {"flash_attn_with_kvcache",
     "flash_attn_with_kvcache",
     "(batch_size, seqlen, nheads, headdim)",
     {{{4, {"batch", "seqlen_q", "heads", "head_dim"}, "", "(batch_size, seqlen, nheads, headdim)"}, {0, {}, "", ""}, {0, {}, "", ""}}}},
    {"flash_attn_func",
     "flash_attn_func",
     "(batch_size, seqlen, nheads, headdim)",
     {{{4, {"batch", "seqlen_q", "heads", "head_dim"}, "", "(batch_size, seqlen, nheads, headdim)"}, {0, {}, "", ""}, {0, {}, "", ""}}}},
    {"memory_efficient_attention",
     "memory_efficient_attention",
     "[B, M, H, K], or [B, M, K] with H=1, or [B, M, G, H, K]",
     {{{4, {"batch", "seqlen_q", "heads", "head_dim"}, "", "[B, M, H, K]"},
       {3, {"batch", "seqlen_q", "head_dim"}, "", "[B, M, K] with H=1"},
       {5, {"batch", "seqlen_q", "kv_groups", "heads", "head_dim"}, "", "[B, M, G, H, K]"}}}},
    {"single_prefill_with_kv_cache",
     "single_prefill_with_kv_cache",
     "[qo_len, num_qo_heads, head_dim_qk]",
     {{{3, {"seqlen_q", "heads", "head_dim"}, "", "[qo_len, num_qo_heads, head_dim_qk]"}, {0, {}, "", ""}, {0, {}, "", ""}}}},
    {"single_decode_with_kv_cache",
     "single_decode_with_kv_cache",
     "[num_qo_heads, head_dim]",
     {{{2, {"heads", "head_dim"}, "", "[num_qo_heads, head_dim]"}, {0, {}, "", ""}, {0, {}, "", ""}}}},
    {"scaled_dot_product_attention",
     "scaled_dot_product_attention",
     "(N, ..., Hq, L, E)",
     {{{4, {"batch", "heads", "seqlen_q", "head_dim"}, "", "(N, Hq, L, E)"},
       {3,
        {"", "seqlen_q", "head_dim"},
        "a 3-dimension query is (N, L, E) or (Hq, L, E): the first dimension may be the batch or the heads",
        "(N or Hq, L, E)"},
       {0, {}, "", ""}}}},
}};

// The cheap literal prefilter every line passes before a regex sees it.
bool mayHoldShape(std::string_view lower) {
    return lower.find("torch.") != std::string_view::npos || lower.find("shape") != std::string_view::npos;
}

std::vector<std::int64_t> parseDims(const std::string& list) {
    std::vector<std::int64_t> dims;
    std::int64_t value = 0;
    bool inNumber = false;
    for (char c : list) {
        if (c >= '0' && c <= '9') {
            if (value > (INT64_MAX - 9) / 10) return {};
            value = value * 10 + (c - '0');
            inNumber = true;
        } else if (inNumber) {
            dims.push_back(value);
            value = 0;
            inNumber = false;
        }
    }
    if (inNumber) dims.push_back(value);
    return dims;
}

// `name = torch.rand([1, 3, 71280, 128], ...)`: a tensor built with a literal size (only digits:
// a size written with variables stays unread).
const RE2& assignedTensor() {
    static const RE2 re(
        R"(([A-Za-z_]\w*)\s*=\s*torch\.(?:rand|randn|zeros|ones|empty|full)\(\s*\(?\s*\[?\s*(\d+(?:\s*,\s*\d+)*)\s*[\]),])");
    return re;
}

// A printed query shape: xformers' "query : shape=(2, 498, 8, 32)", "query.shape: torch.Size([8, 1500, 10, 64])",
// "query.shape=torch.Size([8192, 16, 512])" (lowercase text).
const RE2& printedQuery() {
    static const RE2 re(R"(\b(?:query|q)(?:\.shape)?\s*[:=]\s*(?:shape\s*=\s*)?(?:torch\.size\(\s*)?[\[(]\s*(\d+(?:\s*,\s*\d+)*)\s*[\])])");
    return re;
}

// A line as a value's source: leading blanks dropped, at most 120 characters.
std::string trimmedLine(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    return std::string(text.substr(0, 120)) + (text.size() > 120 ? "..." : "");
}

struct KeyShape {
    std::vector<std::int64_t> dims;
    int line = 0;  // 0-based
    std::string text;
};

struct ShapeHit {
    std::vector<std::int64_t> dims;
    int line = 0;  // 0-based
    std::string text;
    std::optional<KeyShape> keyShape;  // the call's second argument, when its shape is literal too
};

// The shape assigned to `variable` on the nearest line at or before `before` within the window.
std::optional<ShapeHit> assignedShape(const LogText& log, const std::string& variable, int before, int first) {
    for (int i = before; i >= first; --i) {
        if (!mayHoldShape(log.lowerLine(i)) || log.line(i).find(variable) == std::string::npos) continue;
        re2::StringPiece input(log.line(i));
        std::string name, list;
        while (RE2::FindAndConsume(&input, assignedTensor(), &name, &list))
            if (name == variable) return ShapeHit{parseDims(list), i, trimmedLine(log.line(i)), std::nullopt};
    }
    return std::nullopt;
}

// The nearest line to `errorLine` in the window that names one of the calls; -1 when none.
struct NamedCall {
    const CallLayouts* call = nullptr;
    int line = -1;
};

NamedCall nearestNamedCall(const LogText& log, int errorLine, int first, int last) {
    NamedCall best;
    for (int distance = 0; distance <= kCallShapeWindow; ++distance)
        for (int i : {errorLine - distance, errorLine + distance}) {
            if (i < first || i > last) continue;
            const std::string& lower = log.lowerLine(i);
            for (const auto& c : kCalls)
                if (lower.find(c.needle) != std::string::npos) return {&c, i};
        }
    return best;
}

// The first two positional (or q= / k= keyword) arguments where the line calls `needle(`.
std::pair<std::string, std::string> callArguments(const std::string& line, std::string_view needle) {
    static const RE2 arguments(R"(^\s*\(\s*(?:(?:q|query)\s*=\s*)?([A-Za-z_]\w*)\s*(?:,\s*(?:(?:k|key)\s*=\s*)?([A-Za-z_]\w*)\s*)?[,)])");
    std::size_t at = 0;
    while ((at = line.find(needle, at)) != std::string::npos) {
        at += needle.size();
        std::string query, key;
        if (RE2::PartialMatch(re2::StringPiece(line.data() + at, line.size() - at), arguments, &query, &key)) return {query, key};
    }
    return {};
}

// The query shape the window gives for `call`: the tensor passed to a call line, else a query
// shape the stack printed. Nearest to the error first.
std::optional<ShapeHit> queryShape(const LogText& log, const CallLayouts& call, int errorLine, int first, int last) {
    for (int distance = 0; distance <= kCallShapeWindow; ++distance)
        for (int i : {errorLine - distance, errorLine + distance}) {
            if (i < first || i > last || (distance == 0 && i != errorLine)) continue;
            const std::string& lower = log.lowerLine(i);
            if (lower.find(call.needle) != std::string::npos) {
                const auto [query, key] = callArguments(log.line(i), call.needle);
                if (!query.empty())
                    if (auto shape = assignedShape(log, query, i, first)) {
                        if (!key.empty())
                            if (auto k = assignedShape(log, key, i, first)) shape->keyShape = KeyShape{k->dims, k->line, k->text};
                        return shape;
                    }
            }
            if (mayHoldShape(lower)) {
                std::string list;
                if (RE2::PartialMatch(lower, printedQuery(), &list))
                    return ShapeHit{parseDims(list), i, trimmedLine(log.line(i)), std::nullopt};
            }
            if (distance == 0) break;
        }
    return std::nullopt;
}

}  // namespace

std::optional<CallShape> findCallShape(const LogText& log, int errorLine) {
    if (errorLine < 0 || errorLine >= log.lineCount()) return std::nullopt;
    const int first = std::max(0, errorLine - kCallShapeWindow);
    const int last = std::min(log.lineCount() - 1, errorLine + kCallShapeWindow);
    const NamedCall named = nearestNamedCall(log, errorLine, first, last);
    if (!named.call) return std::nullopt;
    const auto shape = queryShape(log, *named.call, errorLine, first, last);
    if (!shape || shape->dims.empty()) return std::nullopt;

    CallShape result;
    result.call = std::string(named.call->call);
    result.layout = std::string(named.call->documented);
    result.callLine = named.line + 1;
    const auto rank = static_cast<int>(shape->dims.size());
    const Layout* layout = nullptr;
    for (const auto& l : named.call->layouts)
        if (l.rank == rank) layout = &l;
    if (!layout) {
        result.ambiguity = result.call + " takes its query as " + result.layout + "; the " + str(rank) + "-dimension shape on line " +
                           str(shape->line + 1) + " fits none of them, so no dimension is named";
        return result;
    }
    const std::string source = result.call + " query " + std::string(layout->documented) + ": " + shape->text;
    for (int d = 0; d < rank; ++d)
        if (!layout->dims[static_cast<std::size_t>(d)].empty())
            result.values.push_back({std::string(layout->dims[static_cast<std::size_t>(d)]), shape->dims[static_cast<std::size_t>(d)],
                                     shape->line + 1, source});
    // The key's sequence length, where the call's second argument has a literal shape of the same rank.
    const auto seqAt = std::find(layout->dims.begin(), layout->dims.end(), std::string_view("seqlen_q"));
    if (shape->keyShape && shape->keyShape->dims.size() == shape->dims.size() && seqAt != layout->dims.end()) {
        const auto at = static_cast<std::size_t>(seqAt - layout->dims.begin());
        result.values.push_back({"seqlen_k", shape->keyShape->dims[at], shape->keyShape->line + 1,
                                 result.call + " key " + std::string(layout->documented) + ": " + shape->keyShape->text});
    }
    // xformers reads a 3-dimension input as [B, M, K] with H=1 (its docstring).
    if (named.call->call == "memory_efficient_attention" && rank == 3)
        result.values.push_back(
            {"heads", 1, shape->line + 1, "memory_efficient_attention reads a 3-dimension query as [B, M, K] with H=1: " + shape->text});
    result.ambiguity = std::string(layout->ambiguity);
    return result;
}

void callShapeFigures(FindingBuilder& b) {
    const auto shape = findCallShape(b.scope().log, b.line());
    if (!shape) return;
    for (const auto& v : shape->values)
        if (!b.valueOf(v.name)) b.valueFrom(v.name, v.value, v.line, v.source);
    auto& f = b.finding();
    if (!shape->ambiguity.empty() && f.unknown.find(shape->ambiguity) == std::string::npos)
        f.unknown += (f.unknown.empty() ? "" : "; ") + shape->ambiguity;
}

}  // namespace tilescope

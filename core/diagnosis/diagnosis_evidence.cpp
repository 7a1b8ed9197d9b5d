#include "core/diagnosis/diagnosis_evidence.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>

#include "core/diagnosis/diagnosis_regex.h"

namespace tilescope {

namespace {

constexpr int kRowsLinesBefore = 80;  // how far before an error a reading of its call's rows may be
constexpr int kRowsLinesAfter = 3;    // "prompt tokens" printed after the traceback header by a logger

std::optional<std::int64_t> toInteger(const std::string& digits) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}

// The dimensions of "1, 16384, 4096" or "2048 * 16, 14336" (a product is one dimension).
std::vector<std::int64_t> integerList(const std::string& text) {
    std::vector<std::int64_t> out;
    std::string digits;
    std::int64_t product = 1;
    bool any = false;
    for (char c : text + ",") {
        if (c >= '0' && c <= '9') {
            digits += c;
            continue;
        }
        if (!digits.empty()) {
            if (auto v = toInteger(digits)) product *= *v;
            digits.clear();
            any = true;
        }
        if (c == ',' && any) {
            out.push_back(product);
            product = 1;
            any = false;
        }
    }
    return out;
}

// The word before `pos` in `lower`, across blanks, '_' and '-' ("max new tokens" -> "new").
std::string wordBefore(const std::string& lower, std::size_t pos) {
    std::size_t end = pos;
    while (end > 0 && (lower[end - 1] == ' ' || lower[end - 1] == '_' || lower[end - 1] == '-')) --end;
    std::size_t start = end;
    while (start > 0 && lower[start - 1] >= 'a' && lower[start - 1] <= 'z') --start;
    return lower.substr(start, end - start);
}

bool isGenerationWord(const std::string& word) {
    static const std::array<std::string_view, 9> words{"max",        "new",    "output",  "generated", "generation",
                                                       "completion", "decode", "decoded", "total"};
    return std::find(words.begin(), words.end(), word) != words.end();
}

bool isPromptWord(const std::string& word) {
    static const std::array<std::string_view, 4> words{"prompt", "input", "prefill", "context"};
    return std::find(words.begin(), words.end(), word) != words.end();
}

struct Spelling {
    RowsReading reading;
    Pattern pattern;  // group 1: the number (or the list of a shape)
    bool shape = false;
};

const std::vector<Spelling>& spellings() {
    using R = RowsReading;
    constexpr auto icase = Pattern::Case::Insensitive;
    static const std::vector<Spelling> list{
        {R::Explicit, Pattern(R"((?:^|[^\w])M\s*=\s*(\d+))", Pattern::Case::Sensitive)},
        {R::Explicit, Pattern(R"((?:^|[^\w#])(?:num_tokens|n_tokens|num_batched_tokens|tokens)\s*[:=]\s*(\d+))", icase)},
        {R::Explicit, Pattern(R"(#new-token\s*:\s*(\d+))", icase)},
        {R::TensorShape, Pattern(R"(torch\.Size\(\[\s*(\d+(?:\s*,\s*\d+)+)\s*\]\))", icase), true},
        // A tensor made in a repro script: torch.randn(1, 256, 2, 256), torch.Tensor(2048 * 16, 14336).
        {R::TensorShape,
         Pattern(R"(torch\.(?:Tensor|randn|rand|empty|zeros|ones|full)\(\s*(\d+(?:\s*\*\s*\d+)*(?:\s*,\s*\d+(?:\s*\*\s*\d+)*)+)\s*[,)])",
                 icase),
         true},
        {R::TensorShape, Pattern(R"((?:shape|size)\s*[:=]?\s*[\[(]\s*(\d+(?:\s*,\s*\d+)+)\s*,?\s*[\])])", icase), true},
        {R::TensorShape, Pattern(R"(\[\s*(\d+\s*,\s*\d+\s*,\s*\d+(?:\s*,\s*\d+)?)\s*\])", icase), true},
        {R::PromptLength,
         Pattern(
             R"((?:^|[^\w])(?:prompt|input|prefill|context)[ _](?:tokens|token_ids|token count|length|len|size|ids length)\s*[:=]?\s*(\d+))",
             icase)},
        {R::PromptLength, Pattern(R"((?:^|[^\w])num_prompt_tokens\s*[:=]\s*(\d+))", icase)},
        {R::PromptLength, Pattern(R"(input length of input_ids is\s*(\d+))", icase)},
        {R::PromptLength, Pattern(R"((?:input prompt|prompt)\s*\(\s*(\d+)\s*tokens?\))", icase)},
        {R::PromptLength, Pattern(R"((?:prompt|input|sequence) length of\s*(\d+))", icase)},
        {R::PromptLength, Pattern(R"((\d+)\s+(?:prompt|input)\s+tokens)", icase)},
        {R::PromptLength, Pattern(R"(maximum sequence length for this model \(\s*(\d+)\s*>)", icase)},
        {R::PromptLength,
         Pattern(R"((?:^|[^\w])(?:seq_len|seqlen|seq_length|sequence_length|sequence length|max_seqlen_q)\s*[:=]\s*(\d+))", icase)},
        {R::StepBudget, Pattern(R"((?:^|[^\w])(?:max_num_batched_tokens|chunked_prefill_size|max_prefill_tokens)\s*[:=]\s*(\d+))", icase)},
        {R::StepBudget, Pattern(R"(--(?:max-num-batched-tokens|chunked-prefill-size|max-prefill-tokens)[ =](\d+))", icase)},
    };
    return list;
}

int strength(RowsReading r) { return static_cast<int>(r); }

// A cheap test before the regexes (about twenty of them): a digit and a word one of
// the spellings needs.
bool mayHoldRows(const std::string& lower) {
    if (std::none_of(lower.begin(), lower.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    static const std::array<std::string_view, 13> words{
        "token", "shape", "size", "len", "prompt", "input", "m =", "context", "prefill", "seq", "torch.", "[", "m="};
    return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

}  // namespace

std::string_view rowsReadingName(RowsReading reading) {
    switch (reading) {
        case RowsReading::Explicit: return "rows of the call";
        case RowsReading::TensorShape: return "tensor shape (all dims but the last)";
        case RowsReading::PromptLength: return "prompt length";
        case RowsReading::BatchTimesSeq: return "batch x sequence length";
        case RowsReading::StepBudget: return "step token budget (chunked prefill)";
    }
    return "";
}

namespace {

// The readings of line `i`: a step budget anywhere, the other readings only near the error.
void readRows(const LogText& log, int i, bool nearError, std::vector<RowsEvidence>& out) {
    const std::string& text = log.line(i);
    const std::string& lower = log.lowerLine(i);
    if (text.empty() || !mayHoldRows(lower)) return;
    std::vector<std::pair<std::size_t, std::size_t>> taken;  // spans already read on this line
    for (const auto& spelling : spellings()) {
        if (spelling.reading != RowsReading::StepBudget && !nearError) continue;
        for (const SvMatch& m : spelling.pattern.searchAll(text)) {
            const auto start = static_cast<std::size_t>(m.position(0));
            const auto end = start + static_cast<std::size_t>(m.length(0));
            const auto number = static_cast<std::size_t>(m.position(1));
            if (std::any_of(taken.begin(), taken.end(), [&](const auto& span) { return number >= span.first && number < span.second; }))
                continue;
            RowsEvidence e;
            e.reading = spelling.reading;
            e.line = i;
            e.text = m.str(0);
            while (!e.text.empty() && !(std::isalnum(static_cast<unsigned char>(e.text.front())) || e.text.front() == '#' ||
                                        e.text.front() == '-' || e.text.front() == '[' || e.text.front() == '('))
                e.text.erase(0, 1);
            if (spelling.shape) {
                const auto dims = integerList(m.str(1));
                if (dims.size() < 2) continue;
                std::int64_t rows = 1;
                for (std::size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
                e.value = rows;
                e.lastDim = dims.back();
            } else {
                auto v = toInteger(m.str(1));
                if (!v) continue;
                e.value = *v;
                if (spelling.reading == RowsReading::Explicit && lower.compare(start, 1, "#") != 0) {
                    // "max_new_tokens" cannot match ([^\w] before the keyword); "max new tokens: 256" and
                    // "prompt tokens: 16384" can: the word before decides.
                    std::size_t at = start;
                    while (at < end && !(lower[at] >= 'a' && lower[at] <= 'z')) ++at;
                    const std::string before = wordBefore(lower, at);
                    if (isGenerationWord(before) || isPromptWord(before)) continue;
                }
                if (spelling.reading == RowsReading::PromptLength) {
                    std::size_t at = start;
                    while (at < end && !(lower[at] >= 'a' && lower[at] <= 'z')) ++at;
                    if (isGenerationWord(wordBefore(lower, at))) continue;
                }
            }
            if (e.value <= 0) continue;
            taken.emplace_back(start, end);
            out.push_back(std::move(e));
        }
    }
}

// Batch x sequence length, where both are given near the error.
void batchTimesSeq(const LogText& log, int errorLine, std::vector<RowsEvidence>& out) {
    const auto batch = log.figure(LogFigure::Batch, errorLine, kRowsLinesBefore);
    const auto seq = log.figure(LogFigure::Seq, errorLine, kRowsLinesBefore);
    if (batch && seq && *batch > 1 && *seq > 0) {
        RowsEvidence e;
        e.reading = RowsReading::BatchTimesSeq;
        e.value = *batch * *seq;
        e.line = errorLine;
        e.text = "batch " + std::to_string(*batch) + " x sequence length " + std::to_string(*seq);
        for (int i = errorLine; i >= 0 && i >= errorLine - kRowsLinesBefore; --i)
            if (log.figure(LogFigure::Batch, i, 0)) {
                e.line = i;
                break;
            }
        out.push_back(std::move(e));
    }
}

}  // namespace

std::vector<RowsEvidence> findRowsEvidence(const LogText& log, int errorLine) {
    std::vector<RowsEvidence> out;
    for (int i = 0; i < log.lineCount(); ++i) readRows(log, i, i >= errorLine - kRowsLinesBefore && i <= errorLine + kRowsLinesAfter, out);
    batchTimesSeq(log, errorLine, out);
    return out;
}

std::vector<RowsEvidence> findStepBudgets(const LogText& log) {
    std::vector<RowsEvidence> out;
    for (int i = 0; i < log.lineCount(); ++i) readRows(log, i, false, out);
    return out;
}

// The readings findRowsEvidence gives that chooseRows can pick: every reading near the error, and
// of the step budgets farther away only the lines nearest before and after the error's window (a
// budget on a farther line is never the nearest). Time: the window, not the log.
std::vector<RowsEvidence> findRowsEvidence(const LogText& log, int errorLine, const std::vector<RowsEvidence>& stepBudgets) {
    const int first = std::max(0, errorLine - kRowsLinesBefore);
    const int last = std::min(log.lineCount() - 1, errorLine + kRowsLinesAfter);
    std::vector<RowsEvidence> out;
    auto before =
        std::lower_bound(stepBudgets.begin(), stepBudgets.end(), first, [](const RowsEvidence& e, int line) { return e.line < line; });
    if (before != stepBudgets.begin()) {
        const int line = std::prev(before)->line;
        auto from = std::lower_bound(stepBudgets.begin(), before, line, [](const RowsEvidence& e, int l) { return e.line < l; });
        out.insert(out.end(), from, before);
    }
    for (int i = first; i <= last; ++i) readRows(log, i, true, out);
    auto after =
        std::upper_bound(stepBudgets.begin(), stepBudgets.end(), last, [](int line, const RowsEvidence& e) { return line < e.line; });
    if (after != stepBudgets.end()) {
        const int line = after->line;
        for (auto it = after; it != stepBudgets.end() && it->line == line; ++it) out.push_back(*it);
    }
    batchTimesSeq(log, errorLine, out);
    return out;
}

RowsChoice chooseRows(const std::vector<RowsEvidence>& readings, int errorLine) {
    RowsChoice choice;
    auto distance = [&](const RowsEvidence& e) { return e.line <= errorLine ? errorLine - e.line : 1000 + e.line - errorLine; };
    std::vector<RowsEvidence> sorted;
    std::optional<RowsEvidence> budget;
    for (const auto& e : readings) {
        if (e.reading == RowsReading::StepBudget) {
            if (!budget || distance(e) < distance(*budget)) budget = e;
        } else {
            sorted.push_back(e);
        }
    }
    std::stable_sort(sorted.begin(), sorted.end(), [&](const RowsEvidence& a, const RowsEvidence& b) {
        if (strength(a.reading) != strength(b.reading)) return strength(a.reading) < strength(b.reading);
        return distance(a) < distance(b);
    });
    if (!sorted.empty()) {
        choice.chosen = sorted.front();
        const bool callLength = choice.chosen->reading == RowsReading::PromptLength || choice.chosen->reading == RowsReading::BatchTimesSeq;
        if (budget && callLength && budget->value < choice.chosen->value) {
            choice.note = "the prompt (" + std::to_string(choice.chosen->value) + " tokens) is longer than the step budget (" +
                          budget->text + "): chunked prefill runs at most " + std::to_string(budget->value) + " rows per step";
            choice.chosen = budget;
        }
    } else if (budget) {
        choice.chosen = budget;
        choice.note = "only a step token budget is given: the most rows one step can run";
    }
    if (!choice.chosen) return choice;
    choice.readings.push_back(*choice.chosen);
    std::vector<RowsEvidence> all = sorted;
    if (budget) all.push_back(*budget);
    for (const auto& e : all) {
        const bool seen = std::any_of(choice.readings.begin(), choice.readings.end(),
                                      [&](const RowsEvidence& r) { return r.value == e.value && r.reading == e.reading; });
        if (!seen) choice.readings.push_back(e);
    }
    const bool disagree =
        std::any_of(choice.readings.begin(), choice.readings.end(), [&](const RowsEvidence& r) { return r.value != choice.chosen->value; });
    if (disagree && choice.note.empty())
        choice.note = "the log gives more than one figure for M; planned the " + std::string(rowsReadingName(choice.chosen->reading)) +
                      (choice.chosen->line <= errorLine ? " nearest before the error" : " after the error");
    return choice;
}

std::vector<ModelMention> findModelMentions(const LogText& log, const std::vector<const CatalogModel*>& models) {
    // A line can name a model only if it holds the model's repository name (its id ends with it):
    // one scan for all of them picks the lines and models to look at closely.
    std::vector<std::string> repos;
    for (const auto* model : models) {
        const std::string id = lowercaseAscii(model->id);
        const auto slash = id.rfind('/');
        repos.push_back(slash == std::string::npos ? id : id.substr(slash + 1));
    }
    const LiteralSet names(std::vector<std::string_view>(repos.begin(), repos.end()));
    std::vector<ModelMention> out;
    std::vector<int> named;
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        if (!names.find(lower, named)) continue;
        const CatalogModel* best = nullptr;
        std::size_t bestLength = 0;
        for (const int index : named) {  // ascending: the models' order, so the first of equal lengths wins as before
            const CatalogModel* model = models[static_cast<std::size_t>(index)];
            const std::size_t length = modelNameLength(*model, lower);
            if (length > bestLength) {
                best = model;
                bestLength = length;
            }
        }
        if (best) out.push_back(ModelMention{best, i});
    }
    return out;
}

std::optional<ModelMention> nearestModelMention(const std::vector<ModelMention>& mentions, int errorLine) {
    auto after =
        std::upper_bound(mentions.begin(), mentions.end(), errorLine, [](int line, const ModelMention& m) { return line < m.line; });
    if (after != mentions.begin()) return *std::prev(after);
    if (after != mentions.end()) return *after;
    return std::nullopt;
}

std::optional<ModelMention> findModelMention(const LogText& log, const std::vector<const CatalogModel*>& models, int errorLine) {
    return nearestModelMention(findModelMentions(log, models), errorLine);
}

int findAwqMention(const LogText& log) {
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        if (lower.find("awq") != std::string::npos || lower.find("wqlinear") != std::string::npos) return i;
    }
    return -1;
}

}  // namespace tilescope

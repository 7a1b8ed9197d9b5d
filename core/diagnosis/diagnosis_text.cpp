#include "core/diagnosis/diagnosis_text.h"

#include <algorithm>
#include <charconv>

#include "core/diagnosis/diagnosis_regex.h"
#include "core/model/launch_checks.h"

namespace tilescope {

namespace {

constexpr char kEscape = '\x1b';
constexpr char kBell = '\x07';
// A file is binary when it holds a NUL byte or more than this share of other control bytes.
constexpr double kMaxControlShare = 0.01;

bool isBlank(char c) { return c == ' ' || c == '\t'; }

char toLowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowercase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), toLowerAscii);
    return out;
}

// Removes ESC-introduced sequences (CSI "ESC[31m", OSC "ESC]...BEL"), and the "[31m" remnants
// that logs keep when the ESC byte itself was lost on the way.
std::string stripAnsi(std::string_view text) {
    // Most lines hold neither ESC nor '[': copied whole.
    if (text.find(kEscape) == std::string_view::npos && text.find('[') == std::string_view::npos) return std::string(text);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == kEscape && i + 1 < text.size()) {
            const char kind = text[i + 1];
            std::size_t j = i + 2;
            if (kind == '[') {
                while (j < text.size() && !(text[j] >= '@' && text[j] <= '~')) ++j;
            } else if (kind == ']') {
                while (j < text.size() && text[j] != kBell && !(text[j] == kEscape && j + 1 < text.size() && text[j + 1] == '\\')) ++j;
                if (j < text.size() && text[j] == kEscape) ++j;
            } else {
                j = i + 1;
            }
            i = std::min(j, text.size() - 1);
            continue;
        }
        if (c == '[') {  // orphaned SGR: "[0m", "[1;31m"
            std::size_t j = i + 1;
            while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
            if (j > i + 1 && j < text.size() && text[j] == 'm' && j - i <= 12) {
                i = j;
                continue;
            }
        }
        out += c;
    }
    return out;
}

struct FigureSpelling {
    LogFigure figure;
    Pattern pattern;  // group 1 is the number
    // Words of which the pattern needs one (lowercase; a case-sensitive pattern's are its
    // punctuation): a line holding none is skipped without running the pattern.
    std::vector<std::string_view> needs;
};

const std::vector<FigureSpelling>& figureSpellings() {
    using F = LogFigure;
    constexpr auto icase = Pattern::Case::Insensitive;
    constexpr auto exact = Pattern::Case::Sensitive;
    static const std::vector<FigureSpelling> spellings{
        {F::M, Pattern(R"((?:^|[^\w])M\s*=\s*(\d+))", exact), {"="}},
        {F::Tokens, Pattern(R"((?:#new-token|(?:^|[^\w#])(?:num_tokens|n_tokens|tokens))\s*[:=]\s*(\d+))", icase), {"token"}},
        {F::N, Pattern(R"(out_features\s*[:=]\s*(\d+))", icase), {"out_features"}},
        {F::N, Pattern(R"((?:^|[^\w])(?:N|OC)\s*[:=]\s*(\d+))", exact), {":", "="}},
        {F::K, Pattern(R"(in_features\s*[:=]\s*(\d+))", icase), {"in_features"}},
        {F::K, Pattern(R"((?:^|[^\w])(?:K|IC)\s*[:=]\s*(\d+))", exact), {":", "="}},
        {F::GroupSize, Pattern(R"((?:q_group_size|group_size|group size)\s*[:=]?\s*(\d+))", icase), {"group"}},
        {F::Batch, Pattern(R"((?:^|[^\w])(?:batch_size|batch size|bs|batch)\s*[:=]?\s*(\d+))", icase), {"batch", "bs"}},
        {F::Batch, Pattern(R"((\d+)\s+(?:sequences|seqs|requests)\b)", icase), {"seqs", "sequences", "requests"}},
        {F::Batch, Pattern(R"(#new-seq\s*:\s*(\d+))", icase), {"#new-seq"}},
        {F::Seq, Pattern(R"((?:^|[^\w])(?:seq_len|seqlen|seq_length|seq|sequence length)\s*[:=]\s*(\d+))", icase), {"seq"}},
        {F::Seq, Pattern(R"((\d+)\s+tokens?\s+each)", icase), {"token"}},
        {F::HeadDim,
         Pattern(R"((?:^|[^\w])(?:head_dim|head_size|headdim|head dim)['"]?\s*[:=]\s*(\d+))", icase),
         {"head_dim", "head_size", "headdim", "head dim"}},
        {F::HeadDimV,
         Pattern(R"((?:v_head_dim|head_dim_v|head_size_v)\s*[:=]\s*(\d+))", icase),
         {"v_head_dim", "head_dim_v", "head_size_v"}},
        {F::Heads, Pattern(R"((?:^|[^\w])(?:num_heads|num_attention_heads|nheads|n_heads|heads)['"]?\s*[:=]\s*(\d+))", icase), {"heads"}},
        {F::Threads,
         Pattern(R"((?:^|[^\w])(?:block|blockdim|block_size|threads_per_block|threads)\s*[:=]\s*\(?\s*(\d+))", icase),
         {"block", "threads"}},
        {F::Registers,
         Pattern(R"((?:regs/thread|registers/thread|registers per thread|regs|registers)\s*[:=]\s*(\d+))", icase),
         {"regs", "registers"}},
        {F::Registers, Pattern(R"(used\s+(\d+)\s+registers)", icase), {"registers"}},
    };
    return spellings;
}

std::optional<std::int64_t> toInteger(std::string_view digits) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}

}  // namespace

Result<void> LogText::check(std::string_view raw) {
    if (std::all_of(raw.begin(), raw.end(),
                    [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }))
        return makeError("the input is empty: paste or pipe the log or traceback that holds the error");
    std::size_t control = 0;
    for (char c : raw) {
        if (c == '\0') return makeError("the input is binary (it contains NUL bytes), not a text log");
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != kEscape && c != kBell) ++control;
    }
    if (static_cast<double>(control) > kMaxControlShare * static_cast<double>(raw.size()))
        return makeError("the input is binary (" + std::to_string(control) + " control bytes), not a text log");
    return {};
}

Result<LogText> LogText::parse(std::string_view raw) {
    if (auto checked = check(raw); !checked) return makeError(checked.error());
    LogText log;
    log.m_lines.reserve(static_cast<std::size_t>(std::count(raw.begin(), raw.end(), '\n')) + 1);
    std::size_t start = 0;
    while (start <= raw.size()) {
        std::size_t end = raw.find('\n', start);
        if (end == std::string_view::npos) end = raw.size();
        std::string line = stripAnsi(raw.substr(start, end - start));
        while (!line.empty() && (line.back() == '\r' || isBlank(line.back()))) line.pop_back();
        if (line.find('\r') != std::string::npos) std::replace(line.begin(), line.end(), '\r', ' ');  // progress-bar rewrites inside a line
        log.m_lines.push_back(std::move(line));
        if (end == raw.size()) break;
        start = end + 1;
    }
    while (log.m_lines.size() > 1 && log.m_lines.back().empty()) log.m_lines.pop_back();
    log.m_lower.reserve(log.m_lines.size());
    for (const auto& line : log.m_lines) log.m_lower.push_back(lowercase(line));
    return log;
}

std::string_view LogText::withoutPrefix(int index) const {
    static const Pattern prefix(
        R"(^(?:\s*(?:\[[^\]]{0,80}\]:?|\([A-Za-z_][\w.]* pid=\d+(?:, ip=[\d.]+)?\)|rank\s*\d+:|\d{4}-\d\d-\d\d[ T][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?|[IWEF]\d{4} [\d:.]+(?:\s+\d+)?\s+[\w.]+:\d+\]|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b:?))+\s*)",
        Pattern::Case::Sensitive);
    const std::string& text = line(index);
    SvMatch match;
    std::string_view view = text;
    if (prefix.search(text, match)) view.remove_prefix(static_cast<std::size_t>(match.length(0)));
    while (!view.empty() && isBlank(view.front())) view.remove_prefix(1);
    return view;
}

bool LogText::isTracebackSource(int index) const {
    static const Pattern frame(R"(^\s*File "[^"]*", line \d+)", Pattern::Case::Sensitive);
    for (int i = index - 1; i >= 0; --i) {
        const std::string_view previous = withoutPrefix(i);
        if (previous.empty()) continue;
        return frame.search(previous);
    }
    return false;
}

std::optional<std::int64_t> LogText::figure(LogFigure figure, int index, int window) const {
    if (auto hit = figureHit(figure, index, window)) return hit->value;
    return std::nullopt;
}

std::optional<LogText::FigureHit> LogText::figureHit(LogFigure figure, int index, int window) const {
    for (int i = std::min(index, lineCount() - 1); i >= 0 && i >= index - window; --i) {
        const std::string& text = line(i);
        std::optional<std::pair<std::ptrdiff_t, FigureHit>> best;  // leftmost spelling on the line
        const std::string& lower = lowerLine(i);
        for (const auto& spelling : figureSpellings()) {
            if (spelling.figure != figure) continue;
            if (std::none_of(spelling.needs.begin(), spelling.needs.end(),
                             [&](std::string_view w) { return lower.find(w) != std::string::npos; }))
                continue;
            SvMatch match;
            if (!spelling.pattern.search(text, match)) continue;
            const auto value = toInteger(match.str(1));
            if (value && (!best || match.position(1) < best->first)) {
                std::string matched = match.str(0);
                while (!matched.empty() && (matched.front() == ' ' || matched.front() == '\t' || matched.front() == '"' ||
                                            matched.front() == ',' || matched.front() == '(' || matched.front() == '{'))
                    matched.erase(0, 1);
                best = std::make_pair(match.position(1), FigureHit{*value, i, matched});
            }
        }
        if (best) return best->second;
    }
    return std::nullopt;
}

int LogText::nearestLineWith(std::span<const std::string_view> keywords, int index, int before, int after) const {
    auto holds = [&](int i) {
        if (i < 0 || i >= lineCount()) return false;
        const std::string& lower = m_lower[static_cast<std::size_t>(i)];
        return std::all_of(keywords.begin(), keywords.end(), [&](std::string_view k) { return lower.find(k) != std::string::npos; });
    };
    for (int d = 0; d <= std::max(before, after); ++d) {
        if (d <= before && holds(index - d)) return index - d;
        if (d > 0 && d <= after && holds(index + d)) return index + d;
    }
    return -1;
}

std::string lowercaseAscii(std::string_view text) { return lowercase(text); }

std::string archNameOf(ComputeCapability cc) { return "sm_" + std::to_string(cc.smVersion()); }

int cudaRuntimeOfLaunchError(std::string_view logText) {
    // The longer text first, as it holds no shorter one.
    int found = 0;
    std::size_t longest = 0;
    for (const int runtime : kCudaRuntimeChoices) {
        const LaunchRejection rejection = launchConfigurationRejection(runtime);
        for (const std::string_view quoted : {rejection.message, rejection.error.name})
            if (quoted.size() > longest && logText.find(quoted) != std::string_view::npos) {
                found = runtime;
                longest = quoted.size();
            }
    }
    return found;
}

}  // namespace tilescope

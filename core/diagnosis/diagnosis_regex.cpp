#include "core/diagnosis/diagnosis_regex.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <stdexcept>

#include <re2/re2.h>

namespace tilescope {

namespace {

re2::RE2::Options options(Pattern::Case sensitivity) {
    re2::RE2::Options o;
    o.set_encoding(re2::RE2::Options::EncodingLatin1);  // bytes, as std::regex read them
    o.set_case_sensitive(sensitivity == Pattern::Case::Sensitive);
    o.set_log_errors(false);
    o.set_max_mem(8 << 20);
    return o;
}

char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

Pattern::Pattern(std::string_view text, Case sensitivity)
    : m_re(std::make_shared<const re2::RE2>(re2::StringPiece(text.data(), text.size()), options(sensitivity))) {
    if (!m_re->ok()) throw std::invalid_argument("diagnosis pattern rejected by RE2: " + m_re->error() + ": " + std::string(text));
}

bool Pattern::search(std::string_view subject, SvMatch& match, std::size_t from) const {
    const int groups = 1 + m_re->NumberOfCapturingGroups();
    std::array<re2::StringPiece, 16> small;
    std::vector<re2::StringPiece> large;
    re2::StringPiece* pieces = small.data();
    if (static_cast<std::size_t>(groups) > small.size()) {
        large.resize(static_cast<std::size_t>(groups));
        pieces = large.data();
    }
    const re2::StringPiece text(subject.data(), subject.size());
    if (from > subject.size() || !m_re->Match(text, from, subject.size(), re2::RE2::UNANCHORED, pieces, groups)) return false;
    match.m_subject = subject.data();
    match.m_groups.assign(static_cast<std::size_t>(groups), SvMatch::Group{});
    for (int g = 0; g < groups; ++g) {
        const re2::StringPiece& p = pieces[g];
        if (p.data() == nullptr) continue;
        auto& out = match.m_groups[static_cast<std::size_t>(g)];
        out.first = p.data();
        out.second = p.data() + p.size();
        out.matched = true;
    }
    // An empty subject has no data pointer: the whole match is then the empty match at 0.
    if (!match.m_groups[0].matched) match.m_groups[0] = {subject.data(), subject.data(), true};
    return true;
}

bool Pattern::search(std::string_view subject) const {
    return m_re->Match(re2::StringPiece(subject.data(), subject.size()), 0, subject.size(), re2::RE2::UNANCHORED, nullptr, 0);
}

std::vector<SvMatch> Pattern::searchAll(std::string_view subject) const {
    std::vector<SvMatch> out;
    std::size_t from = 0;
    SvMatch m;
    while (from <= subject.size() && search(subject, m, from)) {
        const auto end = static_cast<std::size_t>(m.position(0) + m.length(0));
        from = m.length(0) == 0 ? end + 1 : end;  // an empty match moves on by one, as regex_iterator does
        out.push_back(m);
    }
    return out;
}

// Aho-Corasick over lowercase bytes: a full transition table on byte classes (the bytes the
// literals use, and one class for every other byte), so a scan is one lookup per byte.
struct LiteralSet::Impl {
    std::array<std::uint8_t, 256> byteClass{};
    std::size_t classes = 1;  // class 0: a byte no literal uses
    // (state * classes + class) -> the next state's row offset (its state * classes), with
    // kAccepting set when a literal ends there: the scan's only dependent work per byte is a load.
    std::vector<std::uint32_t> next;
    std::vector<std::vector<int>> outputs;  // literals ending at each state (after failure links)
    static constexpr std::uint32_t kAccepting = 0x80000000u;
    static constexpr std::uint32_t kOffset = 0x7fffffffu;
};

LiteralSet::LiteralSet(const std::vector<std::string_view>& literals) : m_impl(std::make_unique<Impl>()) {
    Impl& a = *m_impl;
    for (std::string_view literal : literals)
        for (char c : literal) {
            const auto u = static_cast<unsigned char>(lowerAscii(c));
            if (a.byteClass[u] == 0) a.byteClass[u] = static_cast<std::uint8_t>(a.classes++);
        }
    for (int c = 'A'; c <= 'Z'; ++c) a.byteClass[static_cast<std::size_t>(c)] = a.byteClass[static_cast<std::size_t>(c - 'A' + 'a')];
    const std::size_t k = a.classes;
    // The trie, -1 for a missing edge.
    std::vector<std::int32_t> trie(k, -1);
    a.outputs.emplace_back();
    for (std::size_t i = 0; i < literals.size(); ++i) {
        m_longest = std::max(m_longest, literals[i].size());
        if (literals[i].empty()) continue;
        std::int32_t state = 0;
        for (char c : literals[i]) {
            const std::size_t cls = a.byteClass[static_cast<unsigned char>(c)];
            auto& edge = trie[static_cast<std::size_t>(state) * k + cls];
            if (edge < 0) {
                edge = static_cast<std::int32_t>(a.outputs.size());
                a.outputs.emplace_back();
                trie.resize(trie.size() + k, -1);
            }
            state = trie[static_cast<std::size_t>(state) * k + cls];
        }
        a.outputs[static_cast<std::size_t>(state)].push_back(static_cast<int>(i));
    }
    // Breadth-first: failure links folded into a complete transition table.
    const std::size_t states = a.outputs.size();
    std::vector<std::int32_t> next(states * k, 0);
    std::vector<std::int32_t> fail(states, 0);
    std::deque<std::int32_t> queue;
    for (std::size_t c = 0; c < k; ++c) {
        const std::int32_t s = trie[c];
        if (s >= 0) {
            next[c] = s;
            queue.push_back(s);
        }
    }
    while (!queue.empty()) {
        const std::int32_t s = queue.front();
        queue.pop_front();
        const auto su = static_cast<std::size_t>(s);
        const auto& inherited = a.outputs[static_cast<std::size_t>(fail[su])];
        a.outputs[su].insert(a.outputs[su].end(), inherited.begin(), inherited.end());
        for (std::size_t c = 0; c < k; ++c) {
            const std::int32_t t = trie[su * k + c];
            if (t >= 0) {
                fail[static_cast<std::size_t>(t)] = next[static_cast<std::size_t>(fail[su]) * k + c];
                next[su * k + c] = t;
                queue.push_back(t);
            } else {
                next[su * k + c] = next[static_cast<std::size_t>(fail[su]) * k + c];
            }
        }
    }
    a.next.resize(next.size());
    for (std::size_t i = 0; i < next.size(); ++i) {
        const auto target = static_cast<std::size_t>(next[i]);
        a.next[i] = static_cast<std::uint32_t>(target * k) | (a.outputs[target].empty() ? 0 : Impl::kAccepting);
    }
}

LiteralSet::~LiteralSet() = default;
LiteralSet::LiteralSet(LiteralSet&&) noexcept = default;
LiteralSet& LiteralSet::operator=(LiteralSet&&) noexcept = default;

bool LiteralSet::find(std::string_view text, std::vector<int>& found) const {
    found.clear();
    const Impl& a = *m_impl;
    const std::size_t k = a.classes;
    std::uint32_t row = 0;
    for (char c : text) {
        const std::uint32_t to = a.next[row + a.byteClass[static_cast<unsigned char>(c)]];
        row = to & Impl::kOffset;
        if (to & Impl::kAccepting) {
            const auto& ending = a.outputs[row / k];
            found.insert(found.end(), ending.begin(), ending.end());
        }
    }
    if (found.empty()) return false;
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return true;
}

bool LiteralSet::any(std::string_view text) const {
    const Impl& a = *m_impl;
    std::uint32_t row = 0;
    for (char c : text) {
        const std::uint32_t to = a.next[row + a.byteClass[static_cast<unsigned char>(c)]];
        if (to & Impl::kAccepting) return true;
        row = to & Impl::kOffset;
    }
    return false;
}

LiteralSet::Scan LiteralSet::scan(std::string_view text) const {
    const Impl& a = *m_impl;
    std::uint32_t row = 0;
    std::uint32_t seen = 0;
    for (char c : text) {
        const std::uint32_t to = a.next[row + a.byteClass[static_cast<unsigned char>(c)]];
        seen |= to;
        row = to & Impl::kOffset;
    }
    Scan out;
    out.any = (seen & Impl::kAccepting) != 0;
    out.endsInPrefix = row != 0;
    return out;
}

}  // namespace tilescope

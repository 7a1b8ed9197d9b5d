// The diagnosis' regular expressions: RE2 (linear time in the text, no backtracking) behind the
// small interface the signatures and the figure readers use. Patterns are written in the common
// subset of ECMAScript and RE2 syntax (no lookaround, no backreferences); text is matched byte by
// byte (Latin-1), as std::regex matched it, so a log in any encoding is read the same way.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace tilescope {

// One match: the whole match (group 0) and every capturing group, as views into the subject.
class SvMatch {
public:
    struct Group {
        const char* first = nullptr;
        const char* second = nullptr;
        bool matched = false;
        std::string str() const { return matched ? std::string(first, second) : std::string(); }
        std::string_view view() const {
            return matched ? std::string_view(first, static_cast<std::size_t>(second - first)) : std::string_view();
        }
    };

    std::size_t size() const { return m_groups.size(); }
    bool empty() const { return m_groups.empty(); }
    const Group& operator[](std::size_t n) const { return n < m_groups.size() ? m_groups[n] : m_unmatched; }
    std::string str(std::size_t n = 0) const { return (*this)[n].str(); }
    // Offset of group `n` in the subject and its length (like std::match_results).
    std::ptrdiff_t position(std::size_t n = 0) const { return (*this)[n].matched ? (*this)[n].first - m_subject : 0; }
    std::ptrdiff_t length(std::size_t n = 0) const { return (*this)[n].matched ? (*this)[n].second - (*this)[n].first : 0; }

private:
    friend class Pattern;
    const char* m_subject = nullptr;
    std::vector<Group> m_groups;
    Group m_unmatched;
};

// A compiled pattern (copies share it; RE2 is safe to match from several threads). Construction
// throws std::invalid_argument when RE2 rejects the text.
class Pattern {
public:
    enum class Case { Insensitive, Sensitive };
    explicit Pattern(std::string_view text, Case sensitivity = Case::Insensitive);

    // The leftmost match in `subject` that starts at or after `from` (`^` and word boundaries still
    // see the text before `from`, as std::regex_iterator's next search does).
    bool search(std::string_view subject, SvMatch& match, std::size_t from = 0) const;
    bool search(std::string_view subject) const;  // whether it matches anywhere
    // Every non-overlapping match, left to right.
    std::vector<SvMatch> searchAll(std::string_view subject) const;

private:
    std::shared_ptr<const re2::RE2> m_re;
};

// Which of many lowercase literals occur in a text, in one pass (the prefilter before the
// patterns: a line that holds none of them costs one scan). Matching is ASCII case-insensitive.
class LiteralSet {
public:
    explicit LiteralSet(const std::vector<std::string_view>& literals);
    ~LiteralSet();
    LiteralSet(LiteralSet&&) noexcept;
    LiteralSet& operator=(LiteralSet&&) noexcept;

    // Indices (into the constructor's list) of the literals that occur in `text`, ascending; `found`
    // is cleared first. Returns whether any did.
    bool find(std::string_view text, std::vector<int>& found) const;
    bool any(std::string_view text) const;
    // One scan: whether a literal occurs, and whether the text ends with the start of one (a
    // literal may go on in the text that follows).
    struct Scan {
        bool any = false;
        bool endsInPrefix = false;
    };
    Scan scan(std::string_view text) const;
    std::size_t longest() const { return m_longest; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::size_t m_longest = 0;
};

}  // namespace tilescope

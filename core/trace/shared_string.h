// SharedString: an immutable string that copies share, read as a const std::string&; and
// StringInterner, which gives equal texts one SharedString for as long as a read lasts.
#pragma once

#include <compare>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tilescope {

// An immutable string that copies share: a trace's 200,000 records carry a few dozen distinct
// kernel names of ~300 bytes each (PyTorch template names), and one string per record was most of
// the memory a read touched (docs/PERFORMANCE.md, issue 17). Reads as a const std::string&.
class SharedString {
public:
    SharedString() = default;
    SharedString(const std::string& text) : SharedString(std::string_view(text)) {}
    SharedString(std::string_view text) : m_text(text.empty() ? nullptr : std::make_shared<const std::string>(text)) {}
    SharedString(const char* text) : SharedString(std::string_view(text)) {}

    const std::string& str() const { return m_text ? *m_text : emptyString(); }
    void clear() { m_text.reset(); }  // this handle only: copies keep the text
    operator const std::string&() const { return str(); }
    operator std::string_view() const { return str(); }

    // std::string's reading API, so code that read the name as a std::string reads it unchanged.
    bool empty() const { return !m_text; }
    std::size_t size() const { return str().size(); }
    std::size_t length() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    const char* data() const { return str().data(); }
    std::string::const_iterator begin() const { return str().begin(); }
    std::string::const_iterator end() const { return str().end(); }
    char operator[](std::size_t i) const { return str()[i]; }
    char front() const { return str().front(); }
    char back() const { return str().back(); }
    std::size_t find(std::string_view s, std::size_t pos = 0) const { return str().find(s, pos); }
    std::size_t find(char c, std::size_t pos = 0) const { return str().find(c, pos); }
    std::size_t rfind(std::string_view s, std::size_t pos = std::string::npos) const { return str().rfind(s, pos); }
    std::size_t rfind(char c, std::size_t pos = std::string::npos) const { return str().rfind(c, pos); }
    std::string substr(std::size_t pos = 0, std::size_t n = std::string::npos) const { return str().substr(pos, n); }
    bool starts_with(std::string_view s) const { return str().starts_with(s); }
    bool ends_with(std::string_view s) const { return str().ends_with(s); }
    int compare(std::string_view s) const { return str().compare(s); }

    // Equal texts compare equal whether or not they share storage.
    friend bool operator==(const SharedString& a, const SharedString& b) { return a.m_text == b.m_text || a.str() == b.str(); }
    friend bool operator==(const SharedString& a, const std::string& b) { return a.str() == b; }
    friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
    friend bool operator==(const SharedString& a, const char* b) { return a.str() == b; }
    friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) { return a.str() <=> b.str(); }
    friend std::strong_ordering operator<=>(const SharedString& a, const std::string& b) { return a.str() <=> b; }
    friend std::strong_ordering operator<=>(const SharedString& a, std::string_view b) { return std::string_view(a.str()) <=> b; }
    friend std::strong_ordering operator<=>(const SharedString& a, const char* b) { return std::string_view(a.str()) <=> b; }
    friend std::string operator+(const SharedString& a, std::string_view b) { return std::string(a.str()).append(b); }
    friend std::string operator+(std::string_view a, const SharedString& b) { return std::string(a).append(b.str()); }
    friend std::string operator+(const SharedString& a, char b) { return a.str() + b; }
    friend std::string operator+(char a, const SharedString& b) { return a + b.str(); }
    friend std::ostream& operator<<(std::ostream& out, const SharedString& s) { return out << s.str(); }

private:
    static const std::string& emptyString() {
        static const std::string empty;
        return empty;
    }
    std::shared_ptr<const std::string> m_text;  // null when empty
};

// One SharedString per distinct text for as long as a reader lives: the records a read builds
// share their names. Owned by one read (never global), so what it holds ends with the read.
class StringInterner {
public:
    SharedString intern(std::string_view text) {
        if (text.empty()) return {};
        if (text == m_last.str()) return m_last;  // records often repeat the previous name
        auto it = m_seen.find(text);
        if (it == m_seen.end()) {
            const SharedString shared(text);
            it = m_seen.emplace(std::string_view(shared.str()), shared).first;  // the key views the shared text
        }
        m_last = it->second;
        return m_last;
    }

private:
    std::unordered_map<std::string_view, SharedString> m_seen;
    SharedString m_last;
};

}  // namespace tilescope

#include "core/diagnosis/device_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <set>
#include <unordered_map>

#include "core/model/text_format.h"

namespace tilescope {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool isAlnum(char c) { return isDigit(c) || isAlpha(c); }
char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::optional<int> toInt(std::string_view digits) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}

// An upper-case run of ASCII letters and digits and where it lies in the line.
struct Token {
    std::string text;
    std::size_t begin = 0;
    std::size_t end = 0;
};

// "NVIDIA GeForce RTX-4090 (sm_89)" -> NVIDIA GEFORCE RTX 4090 SM 89. A count run into a name
// ("2xRTX", "8xA100") is split off, so the name stays a word of its own.
std::vector<Token> tokenize(std::string_view text) {
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!isAlnum(text[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        std::string word;
        while (j < text.size() && isAlnum(text[j])) word += upper(text[j++]);
        std::size_t digits = 0;
        while (digits < word.size() && isDigit(word[digits])) ++digits;
        if (digits > 0 && digits + 1 < word.size() && word[digits] == 'X') {  // "2xRTX", "4x3090"
            out.push_back({word.substr(0, digits + 1), i, i + digits + 1});
            out.push_back({word.substr(digits + 1), i + digits + 1, j});
        } else if (digits > 0 && (word.substr(digits) == "GPU" || word.substr(digits) == "GPUS")) {  // "3090GPU"
            out.push_back({word.substr(0, digits), i, i + digits});
            out.push_back({word.substr(digits), i + digits, j});
        } else {
            out.push_back({std::move(word), i, j});
        }
        i = j;
    }
    return out;
}

bool hasDigit(std::string_view word) { return std::any_of(word.begin(), word.end(), isDigit); }
bool hasAlpha(std::string_view word) { return std::any_of(word.begin(), word.end(), isAlpha); }
bool isMemoryWord(std::string_view word) {
    return word.size() > 2 && word.substr(word.size() - 2) == "GB" && std::all_of(word.begin(), word.end() - 2, isDigit);
}

// Words of a product name that say who sells it, not which GPU it is.
constexpr std::array<std::string_view, 5> kVendorWords{"NVIDIA", "GEFORCE", "TESLA", "QUADRO", "JETSON"};
// Words before a model number that belong to it ("RTX 4090", "RTX PRO 6000", "TITAN RTX").
constexpr std::array<std::string_view, 4> kSeriesWords{"RTX", "GTX", "TITAN", "PRO"};
// Words after a model number that make another product ("RTX 3090 Ti", "RTX 6000 Ada").
constexpr std::array<std::string_view, 3> kSuffixWords{"TI", "SUPER", "ADA"};
// Words that tell variants apart but are never the model ("Jetson AGX Orin", "A100 SXM4").
constexpr std::array<std::string_view, 3> kVariantWords{"AGX", "NX", "NANO"};

template <std::size_t N>
bool among(const std::array<std::string_view, N>& list, std::string_view word) {
    return std::find(list.begin(), list.end(), word) != list.end();
}

// One database product: the spellings of its model and the words that tell its variants apart.
struct Product {
    const DeviceSpec* device = nullptr;
    std::string memory;                   // "80GB"
    std::vector<std::string> qualifiers;  // "SXM4", "PCIE", "HBM3", "AGX"
};

// A spelling of a model, run together ("RTX3090TI"): which products it names, and whether it is a
// bare GeForce number ("3090") that needs a GPU word nearby to be read as a GPU.
struct Spelling {
    std::vector<std::size_t> products;
    bool bareNumber = false;
};

class ProductCatalog {
public:
    explicit ProductCatalog(const DeviceDatabase& devices) {
        for (const auto& device : devices.devices()) add(device);
    }

    const std::vector<Product>& products() const { return m_products; }
    const Spelling* find(const std::string& joined) const {
        auto it = m_spellings.find(joined);
        return it == m_spellings.end() ? nullptr : &it->second;
    }
    bool mayStart(char c) const { return m_firstChars.count(c) > 0; }
    // Whether a lowercase word of letters and digits may hold a model number: "a100", "h20e",
    // "rtx2080ti", "4x3090" (not "cu121", "py3", "0x7f").
    bool mayHoldModel(std::string_view word) const {
        std::size_t digits = 0;
        while (digits < word.size() && isDigit(word[digits])) ++digits;
        if (digits > 0 && digits + 1 < word.size() && word[digits] == 'x') word.remove_prefix(digits + 1);  // a count
        if (word.starts_with("rtx") || word.starts_with("gtx")) word.remove_prefix(3);
        for (std::size_t n = 2; n <= std::min<std::size_t>(word.size(), 6); ++n)
            if (m_anchors.count(word.substr(0, n))) return true;
        return false;
    }

private:
    void add(const DeviceSpec& device) {
        std::vector<std::string> list;
        for (auto& t : tokenize(device.name))
            if (!among(kVendorWords, t.text)) list.push_back(t.text);
        const bool geforce = device.name.find("GeForce") != std::string::npos;
        std::size_t model = list.size();
        for (std::size_t i = 0; i < list.size(); ++i)
            if (hasDigit(list[i]) && !isMemoryWord(list[i])) {
                model = i;
                break;
            }
        std::vector<std::string> core;  // the model without its leading RTX / GTX
        std::string series;
        std::set<std::size_t> used;
        if (model < list.size()) {
            std::size_t first = model, last = model;
            while (first > 0 && among(kSeriesWords, list[first - 1])) --first;
            while (last + 1 < list.size() && among(kSuffixWords, list[last + 1])) ++last;
            for (std::size_t i = first; i <= last; ++i) {
                used.insert(i);
                if (i == first && (list[i] == "RTX" || list[i] == "GTX")) series = list[i];
                else core.push_back(list[i]);
            }
        } else {  // no model number: "TITAN RTX", "Jetson AGX Orin 64GB"
            for (std::size_t i = 0; i < list.size(); ++i)
                if (!isMemoryWord(list[i]) && !among(kVariantWords, list[i])) {
                    core.push_back(list[i]);
                    used.insert(i);
                }
        }
        if (core.empty()) return;
        Product product;
        product.device = &device;
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (used.count(i)) continue;
            if (isMemoryWord(list[i])) product.memory = list[i];
            else product.qualifiers.push_back(list[i]);
        }
        const std::size_t index = m_products.size();
        m_products.push_back(std::move(product));
        for (const auto& w : core)
            if (hasDigit(w)) {
                m_anchors.insert(lowercaseAscii(w));
                break;
            }
        std::string joined;
        for (const auto& w : core) joined += w;
        // A datacenter model ("A100", "L40S", "H20") is its own name; a GeForce number is read
        // without its "RTX" only near a GPU word; other bare numbers ("6000") need the series.
        const bool distinctive = std::any_of(core.begin(), core.end(), [](const std::string& w) { return hasAlpha(w) && hasDigit(w); });
        if (!series.empty()) addSpelling(series + joined, index);
        if (series.empty() || distinctive || geforce) addSpelling(joined, index);
    }

    void addSpelling(const std::string& joined, std::size_t product) {
        auto& s = m_spellings[joined];
        s.products.push_back(product);
        s.bareNumber = std::all_of(joined.begin(), joined.end(), isDigit);  // "3090", not "3090TI"
        m_firstChars.insert(joined.front());
    }

    std::vector<Product> m_products;
    std::unordered_map<std::string, Spelling> m_spellings;
    std::set<char> m_firstChars;
    std::set<std::string, std::less<>> m_anchors;  // each model's number word, lowercase: "a100", "3090", "l40s"
};

bool qualifierMatches(const std::string& mentioned, const std::string& known) {
    const std::size_t n = std::min(mentioned.size(), known.size());
    return n >= 3 && mentioned.compare(0, n, known, 0, n) == 0;  // "SXM" fits "SXM5"
}

// Words near a bare GeForce number that say the line is about a GPU ("card", "显卡" / "卡").
bool mentionsGpu(std::string_view lower) {
    static constexpr std::array<std::string_view, 8> kWords{"gpu", "cuda", "nvidia", "geforce", "card", "device", "\xe5\x8d\xa1", "vram"};
    return std::any_of(kWords.begin(), kWords.end(), [&](std::string_view w) { return lower.find(w) != std::string_view::npos; });
}

int countAroundAnySize(std::string_view line, std::size_t begin, std::size_t end) {
    // Before: digits, optional blank, x / X / * / ×, optional blank.
    std::size_t i = begin;
    while (i > 0 && line[i - 1] == ' ') --i;
    std::size_t mark = i;
    if (i > 0 && (line[i - 1] == 'x' || line[i - 1] == 'X' || line[i - 1] == '*')) mark = i - 1;
    else if (i >= 2 && line.substr(i - 2, 2) == "\xc3\x97") mark = i - 2;  // ×
    if (mark != i) {
        std::size_t d = mark;
        while (d > 0 && line[d - 1] == ' ') --d;
        std::size_t digits = d;
        while (digits > 0 && isDigit(line[digits - 1])) --digits;
        if (digits < d && (digits == 0 || !isAlnum(line[digits - 1])))
            if (auto n = toInt(line.substr(digits, d - digits))) return *n;
    }
    // Chinese: a numeral and 卡 ("card"), 个 or 张 (counting words) right before the name.
    static constexpr std::array<std::string_view, 3> kCountWords{"\xe5\x8d\xa1", "\xe4\xb8\xaa", "\xe5\xbc\xa0"};
    static constexpr std::array<std::pair<std::string_view, int>, 11> kNumerals{{{"\xe4\xb8\x80", 1},
                                                                                 {"\xe4\xba\x8c", 2},
                                                                                 {"\xe4\xb8\xa4", 2},
                                                                                 {"\xe4\xb8\x89", 3},
                                                                                 {"\xe5\x9b\x9b", 4},
                                                                                 {"\xe4\xba\x94", 5},
                                                                                 {"\xe5\x85\xad", 6},
                                                                                 {"\xe4\xb8\x83", 7},
                                                                                 {"\xe5\x85\xab", 8},
                                                                                 {"\xe4\xb9\x9d", 9},
                                                                                 {"\xe5\x8d\x81", 10}}};
    for (std::string_view word : kCountWords) {
        if (begin < word.size() || line.substr(begin - word.size(), word.size()) != word) continue;
        const std::size_t at = begin - word.size();
        for (const auto& [numeral, n] : kNumerals)
            if (at >= numeral.size() && line.substr(at - numeral.size(), numeral.size()) == numeral) return n;
        std::size_t digits = at;
        while (digits > 0 && isDigit(line[digits - 1])) --digits;
        if (digits < at)
            if (auto n = toInt(line.substr(digits, at - digits))) return *n;
    }
    // After: an optional "(141GB)", then x / * and digits.
    std::size_t j = end;
    while (j < line.size() && line[j] == ' ') ++j;
    if (j < line.size() && line[j] == '(') {
        const std::size_t close = line.find(')', j);
        if (close != std::string_view::npos && close - j < 24) j = close + 1;
        while (j < line.size() && line[j] == ' ') ++j;
    }
    if (j < line.size() && (line[j] == 'x' || line[j] == 'X' || line[j] == '*')) {
        ++j;
        while (j < line.size() && line[j] == ' ') ++j;
        std::size_t digits = j;
        while (digits < line.size() && isDigit(line[digits])) ++digits;
        if (digits > j && (digits == line.size() || !isAlnum(line[digits])))
            if (auto n = toInt(line.substr(j, digits - j))) return *n;
    }
    return 0;
}

// How many GPUs the text right before or after a name gives: "2x ", "8 x ", "x 8", "* 8", "八卡",
// "8个"; 0 when none (or a figure no machine has: "1920x1080" is a resolution).
int countAround(std::string_view line, std::size_t begin, std::size_t end) {
    constexpr int kMostGpus = 256;
    const int count = countAroundAnySize(line, begin, end);
    return count <= kMostGpus ? count : 0;
}

// Whether a lowercase line can name a GPU at all, in one pass and without allocating: a word that
// holds a model number ("a100", "rtx3090", "h20e"), a GeForce number ("1080", "3090"; not a year or a
// time), or a series or model word that has no digit ("rtx", "titan", "orin"). Most log lines
// (timestamps, plain words) stop here.
bool mayNameGpu(std::string_view lower, const ProductCatalog& catalog) {
    std::size_t i = 0;
    while (i < lower.size()) {
        if (!isAlnum(lower[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        bool letter = false, digit = false;
        while (j < lower.size() && isAlnum(lower[j])) (isDigit(lower[j]) ? digit : letter) = true, ++j;
        const std::string_view word = lower.substr(i, j - i);
        if (letter && digit && catalog.mayHoldModel(word)) return true;
        if (digit && word.size() == 4 && word[0] >= '1' && word[0] <= '5' && word[1] == '0' && word[2] >= '5' && word[3] == '0')
            return true;
        if (word == "rtx" || word == "gtx" || word == "titan" || word == "orin" || word == "tesla" || word == "quadro") return true;
        i = j;
    }
    return false;
}

// One product name found in a line.
struct NameHit {
    std::vector<std::string> ids;
    std::size_t begin = 0, end = 0;  // in the line
    int count = 0;
    // A variant of a database model the database lacks ("RTX 3060 Laptop GPU", "RTX 4080 SUPER"): no
    // id, but the model's architecture.
    std::optional<ComputeCapability> variantOf;
};

// Words after a model that make a product the database does not hold: its SM count and clocks
// differ ("RTX 4090 D", "RTX 3060 Laptop GPU"), its architecture does not.
constexpr std::array<std::string_view, 5> kOtherVariantWords{"TI", "SUPER", "D", "LAPTOP", "MOBILE"};

// Every product name in `line`, left to right, the longest spelling at each place.
std::vector<NameHit> findNames(std::string_view line, const ProductCatalog& catalog) {
    std::vector<NameHit> hits;
    const std::vector<Token> tokens = tokenize(line);
    std::optional<bool> gpuWords;  // computed on the first bare number
    constexpr std::size_t kMaxWords = 4;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!catalog.mayStart(tokens[i].text.front())) continue;
        const Spelling* best = nullptr;
        std::size_t bestEnd = 0;
        std::string joined;
        for (std::size_t k = i; k < tokens.size() && k < i + kMaxWords; ++k) {
            joined += tokens[k].text;
            if (const Spelling* s = catalog.find(joined)) {
                best = s;
                bestEnd = k;
            } else if (joined.size() > 1 && joined.back() == 'E') {  // "H20e": an edition of the H20
                if (const Spelling* e = catalog.find(joined.substr(0, joined.size() - 1)); e && !e->bareNumber) {
                    best = e;
                    bestEnd = k;
                }
            }
        }
        if (!best) continue;
        const std::size_t begin = tokens[i].begin, end = tokens[bestEnd].end;
        const int count = countAround(line, begin, end);
        if (best->bareNumber && bestEnd == i && count == 0) {
            // "3090" alone: a GPU only with a GPU word on the line, or owned ("my 3090": people name their
            // card so, Knowledgator/TurboT5#8), and not inside a time or a port.
            const bool glued =
                (begin > 0 && (line[begin - 1] == ':' || line[begin - 1] == '.' || line[begin - 1] == '/' || line[begin - 1] == '-')) ||
                (end < line.size() && (line[end] == ':' || line[end] == '.' || line[end] == '/'));
            const std::string before = lowercaseAscii(line.substr(begin >= 4 ? begin - 4 : 0, std::min<std::size_t>(begin, 4)));
            const bool owned = before.ends_with("my ") && (before.size() < 4 || !isAlnum(before.front()));
            if (!gpuWords) gpuWords = mentionsGpu(lowercaseAscii(line));
            if (glued || (!*gpuWords && !owned)) continue;
        }
        if (bestEnd + 1 < tokens.size() && among(kOtherVariantWords, tokens[bestEnd + 1].text)) {
            NameHit variant;
            variant.begin = begin;
            variant.end = tokens[bestEnd + 1].end;
            variant.count = count;
            const DeviceSpec& model = *catalog.products()[best->products.front()].device;
            variant.variantOf = model.computeCapability;
            hits.push_back(std::move(variant));
            i = bestEnd + 1;
            continue;
        }
        // The words around the model ("80GB HBM3", "PCIe", "AGX") tell the database's variants apart.
        constexpr std::size_t kAfter = 6, kBefore = 3;
        std::vector<std::string> near;
        for (std::size_t k = (i > kBefore ? i - kBefore : 0); k < i; ++k) near.push_back(tokens[k].text);
        for (std::size_t k = bestEnd + 1; k < tokens.size() && k <= bestEnd + kAfter; ++k) near.push_back(tokens[k].text);
        std::vector<std::pair<int, std::size_t>> scored;
        for (std::size_t p : best->products) {
            const Product& product = catalog.products()[p];
            bool contradicts = false;
            int score = 0;
            for (const auto& word : near) {
                if (isMemoryWord(word) && !product.memory.empty()) {
                    if (word == product.memory) ++score;
                    else contradicts = true;
                }
                for (const auto& q : product.qualifiers)
                    if (qualifierMatches(word, q)) ++score;
            }
            if (!contradicts) scored.emplace_back(score, p);
        }
        // A memory size the database lacks ("H20e (141GB)") names the model still: keep every variant.
        if (scored.empty())
            for (std::size_t p : best->products) scored.emplace_back(0, p);
        const int top = std::max_element(scored.begin(), scored.end())->first;
        NameHit hit;
        hit.begin = begin;
        hit.end = end;
        hit.count = count;
        for (const auto& [score, p] : scored)
            if (score == top) hit.ids.push_back(catalog.products()[p].device->id);
        hits.push_back(std::move(hit));
        i = bestEnd;
    }
    return hits;
}

// The name as written, with the count around it: "2x RTX2080Ti", "H20e (141GB) x 8", "八卡3090".
std::string writtenName(std::string_view line, const NameHit& hit) {
    std::string name(line.substr(hit.begin, hit.end - hit.begin));
    if (hit.count > 0) name += " (" + std::to_string(hit.count) + " GPUs)";
    if (hit.variantOf) name += " (not in the database: its architecture, " + archNameOf(*hit.variantOf) + ")";
    return name;
}

// Architecture names a log gives for the GPU it runs on ("Pascal class GPU"), with the compute
// capabilities each covers. "only supports Ampere GPUs or newer" states a requirement, not the GPU.
struct Family {
    std::string_view word;
    std::vector<ComputeCapability> capabilities;
};
const std::vector<Family>& families() {
    static const std::vector<Family> list{
        {"PASCAL", {{6, 0}, {6, 1}}},
        {"VOLTA", {{7, 0}}},
        {"TURING", {{7, 5}}},
        {"AMPERE", {{8, 0}, {8, 6}, {8, 7}}},
        {"ADA", {{8, 9}}},
        {"LOVELACE", {{8, 9}}},
        {"HOPPER", {{9, 0}}},
        {"BLACKWELL", {{10, 0}, {10, 3}, {12, 0}, {12, 1}}},
    };
    return list;
}

const Family* findFamily(std::string_view line, std::string_view lower) {
    static constexpr std::array<std::string_view, 4> kNouns{"class", "gpu", "card", "architecture"};
    if (std::none_of(kNouns.begin(), kNouns.end(), [&](std::string_view n) { return lower.find(n) != std::string_view::npos; }))
        return nullptr;
    // Server logs print "GPU" on most lines (vLLM's "GPU KV cache usage"): tokenize only a line that
    // holds an architecture's name.
    static constexpr std::array<std::string_view, 8> kFamilyWords{"pascal", "volta",    "turing", "ampere",
                                                                  "ada",    "lovelace", "hopper", "blackwell"};
    if (std::none_of(kFamilyWords.begin(), kFamilyWords.end(), [&](std::string_view w) { return lower.find(w) != std::string_view::npos; }))
        return nullptr;
    static constexpr std::array<std::string_view, 8> kRequirement{"or newer", "or later", "or above", "or higher",
                                                                  "require",  "support",  "at least", "need"};
    const std::vector<Token> tokens = tokenize(line);
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        const std::string& next = tokens[i + 1].text;
        if (next != "CLASS" && next != "ARCHITECTURE" && next != "GPU" && next != "GPUS" && next != "CARD" && next != "CARDS") continue;
        const auto family = std::find_if(families().begin(), families().end(), [&](const Family& f) { return tokens[i].text == f.word; });
        if (family == families().end()) continue;
        // The sentence the word stands in: a requirement there ("requires Ampere GPUs or newer") names no GPU.
        const std::size_t from = lower.find_last_of(".?!;", tokens[i].begin);
        const std::size_t to = lower.find_first_of(".?!;", tokens[i].end);
        const std::string_view sentence =
            lower.substr(from == std::string_view::npos ? 0 : from + 1,
                         (to == std::string_view::npos ? lower.size() : to) - (from == std::string_view::npos ? 0 : from + 1));
        if (std::none_of(kRequirement.begin(), kRequirement.end(),
                         [&](std::string_view r) { return sentence.find(r) != std::string_view::npos; }))
            return &*family;
    }
    return nullptr;
}

// The opt-in limits a log prints for its GPU: Triton's "Hardware limit: 101376" (older Triton:
// "Hardware limitation: 101376", "shared memoryRequired: 110592Hardware limit: 101376").
std::set<std::int64_t> printedOptinLimits(const LogText& log) {
    std::set<std::int64_t> limits;
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        for (std::size_t at = lower.find("hardware limit"); at != std::string::npos; at = lower.find("hardware limit", at + 1)) {
            std::size_t j = at + 14;
            if (lower.compare(j, 5, "ation") == 0) j += 5;
            while (j < lower.size() && (lower[j] == ':' || lower[j] == ' ' || lower[j] == '=')) ++j;
            std::size_t d = j;
            while (d < lower.size() && isDigit(lower[d])) ++d;
            std::int64_t value = 0;
            if (d > j && std::from_chars(lower.data() + j, lower.data() + d, value).ec == std::errc()) limits.insert(value);
        }
    }
    return limits;
}

bool sharedArchitecture(const std::vector<std::string>& ids, const DeviceDatabase& devices, ComputeCapability* cc) {
    if (ids.empty()) return false;
    const ComputeCapability first = devices.find(ids.front())->computeCapability;
    for (const auto& id : ids)
        if (devices.find(id)->computeCapability != first) return false;
    *cc = first;
    return true;
}

// Keeps the products whose opt-in limit is one the log prints: a product whose limit differs is not
// the GPU that printed it (101,376 B with "RTX 3090, RTX 4090, A100": not the A100's 166,912 B).
void keepThoseTheLimitAgreesWith(std::vector<DeviceMention>& mentions, const LogText& log, const DeviceDatabase& devices) {
    const std::set<std::int64_t> limits = printedOptinLimits(log);
    if (limits.empty()) return;
    auto agrees = [&](const std::string& id) { return limits.count(devices.find(id)->smemPerBlockOptin) > 0; };
    bool anyDisagrees = false;
    for (const auto& m : mentions)
        for (const auto& id : m.ids) anyDisagrees = anyDisagrees || (!m.required && !agrees(id));
    if (!anyDisagrees) return;
    std::vector<std::string> dropped;
    for (auto& m : mentions) {
        if (m.required) continue;  // a GPU the text requires is not a candidate for the log's device
        std::vector<std::string> kept;
        for (const auto& id : m.ids) {
            if (agrees(id)) kept.push_back(id);
            else if (std::find(dropped.begin(), dropped.end(), id) == dropped.end()) dropped.push_back(id);
        }
        m.ids = std::move(kept);
    }
    std::vector<DeviceMention> out;
    for (auto& m : mentions) {
        if (m.ids.empty() && !m.architectureOnly && !m.required) continue;
        if (!m.ids.empty() && !m.required) {
            std::set<std::int64_t> its;
            for (const auto& id : m.ids) its.insert(devices.find(id)->smemPerBlockOptin);
            std::string printed;
            for (auto limit : its) printed += (printed.empty() ? "" : ", ") + withThousands(limit) + " B";
            m.text += "; kept: the printed limit " + printed + " is its opt-in limit, not that of " + joinList(dropped) +
                      ", which the log also names";
            ComputeCapability cc;
            if (!m.cc && sharedArchitecture(m.ids, devices, &cc)) m.cc = cc;
        }
        out.push_back(std::move(m));
    }
    mentions = std::move(out);
}

// "sm_86" at `at` (lowercase text): the version when it is one, not followed by more digits.
std::optional<ComputeCapability> smAt(std::string_view lower, std::size_t at) {
    if (at > 0 && isAlnum(lower[at - 1])) return std::nullopt;
    std::size_t j = at + 2;
    if (j < lower.size() && lower[j] == '_') ++j;
    std::size_t d = j;
    while (d < lower.size() && isDigit(lower[d])) ++d;
    if (d - j < 2 || d - j > 3) return std::nullopt;
    std::size_t after = d;
    if (after < lower.size() && (lower[after] == 'a' || lower[after] == 'f')) ++after;
    if (after < lower.size() && isDigit(lower[after])) return std::nullopt;
    const auto version = toInt(lower.substr(j, d - j));
    if (!version) return std::nullopt;
    return ComputeCapability{*version / 10, *version % 10};
}

// "compute capability 8.6" / "Compute Capability: 9.0" at `at`; not "compute capability 8.0 or
// higher", a requirement.
std::optional<ComputeCapability> capabilityAt(std::string_view lower, std::size_t at) {
    std::size_t j = at + std::string_view("compute capability").size();
    while (j < lower.size() && (lower[j] == ' ' || lower[j] == ':' || lower[j] == '=')) ++j;
    std::size_t d = j;
    while (d < lower.size() && isDigit(lower[d])) ++d;
    if (d == j || d + 1 >= lower.size() || lower[d] != '.' || !isDigit(lower[d + 1])) return std::nullopt;
    std::size_t m = d + 1;
    while (m < lower.size() && isDigit(lower[m])) ++m;
    const std::string_view rest = lower.substr(m, 12);
    if (rest.starts_with(" or ") || rest.starts_with("+")) return std::nullopt;
    const std::string_view before = lower.substr(at > 24 ? at - 24 : 0, std::min<std::size_t>(at, 24));
    for (std::string_view r : {"least", "minimum", "require", "need"})
        if (before.find(r) != std::string_view::npos) return std::nullopt;
    const auto major = toInt(lower.substr(j, d - j));
    const auto minor = toInt(lower.substr(d + 1, m - d - 1));
    if (!major || !minor) return std::nullopt;
    return ComputeCapability{*major, *minor};
}

// xformers' "... but your GPU has capability (8, 9) (too old)" at `at` (xformers v0.0.28
// xformers/ops/fmha/common.py:375-376): torch.cuda.get_device_capability()'s tuple. The same reason's
// "requires device with capability > (9, 0)" is the operator's need, not the GPU: only "gpu has" counts.
std::optional<ComputeCapability> capabilityTupleAt(std::string_view lower, std::size_t at) {
    std::size_t j = at + std::string_view("gpu has capability (").size();
    std::size_t d = j;
    while (d < lower.size() && isDigit(lower[d])) ++d;
    if (d == j || !lower.substr(d).starts_with(", ")) return std::nullopt;
    std::size_t m = d + 2;
    while (m < lower.size() && isDigit(lower[m])) ++m;
    if (m == d + 2 || m >= lower.size() || lower[m] != ')') return std::nullopt;
    const auto major = toInt(lower.substr(j, d - j));
    const auto minor = toInt(lower.substr(d + 2, m - d - 2));
    if (!major || !minor) return std::nullopt;
    return ComputeCapability{*major, *minor};
}

}  // namespace

namespace {

std::optional<ComputeCapability> findArchitectureLower(std::string_view lower) {
    for (std::size_t at = lower.find("sm"); at != std::string::npos; at = lower.find("sm", at + 1))
        if (auto cc = smAt(lower, at)) return cc;
    for (std::size_t at = lower.find("compute capability"); at != std::string::npos; at = lower.find("compute capability", at + 1))
        if (auto cc = capabilityAt(lower, at)) return cc;
    if (const auto at = lower.find("gpu has capability ("); at != std::string::npos) return capabilityTupleAt(lower, at);
    return std::nullopt;
}

// Whether the name at `begin` on line `index` is a GPU the text requires rather than the one it runs
// on: "requires A100/A800 or H100/H800", "only supports H100", "is only supported on the A100 GPU",
// "needs an A100" before it, in the same sentence (which may start on the line before: a message
// wrapped there), with a few words at most between and none that turn to the writer's own GPU ("but I
// have", "my", "using"). A sentence ends at '.', '!' or '?' before a blank, the line's end or a capital
// ("requires A100 or H100.Can it support the A40?" names the A40 as the writer's).
bool requiredBefore(const LogText& log, int index, std::size_t begin) {
    constexpr std::size_t kMaxWordsBetween = 6;
    static constexpr std::array<std::string_view, 8> kTriggers{
        "requires ", "require ", "required ", "needs ", "only supports ", "only support ", "only supported on ", "only supported by "};
    static constexpr std::array<std::string_view, 8> kOwnGpu{" my ", " i ", " i'm ", " have ", " using ", " but ", " while ", " on "};
    auto sentenceStart = [](std::string_view text) -> std::optional<std::size_t> {
        for (std::size_t at = text.size(); at-- > 0;) {
            if (text[at] != '.' && text[at] != '!' && text[at] != '?') continue;
            if (at + 1 == text.size() || text[at + 1] == ' ' || std::isupper(static_cast<unsigned char>(text[at + 1]))) return at + 1;
        }
        return std::nullopt;
    };
    const std::string_view line = log.line(index);
    std::string sentence(line.substr(0, begin));
    if (const auto start = sentenceStart(sentence)) {
        sentence.erase(0, *start);
    } else if (index > 0 && sentence.find(':') == std::string::npos) {  // began on the line before: a wrapped message
        // (a line that labels its own record, "GPU 0: NVIDIA H100", is no continuation)
        const std::string_view previous = log.line(index - 1);
        const auto previousStart = sentenceStart(previous);
        if (!previousStart || *previousStart < previous.size())
            sentence = std::string(previous.substr(previousStart.value_or(0))) + " " + sentence;
    }
    sentence = lowercaseAscii(sentence);
    std::size_t trigger = std::string::npos, triggerEnd = 0;
    for (const std::string_view word : kTriggers) {  // the last trigger; the longest of those starting there
        const auto at = sentence.rfind(word);
        if (at == std::string::npos || (trigger != std::string::npos && at < trigger)) continue;
        triggerEnd = (at == trigger) ? std::max(triggerEnd, at + word.size()) : at + word.size();
        trigger = at;
    }
    if (trigger == std::string::npos) return false;
    const std::string between = " " + sentence.substr(triggerEnd) + " ";
    if (std::any_of(kOwnGpu.begin(), kOwnGpu.end(), [&](std::string_view w) { return between.find(w) != std::string::npos; })) return false;
    std::size_t words = 0;
    for (std::size_t at = 1; at < between.size(); ++at)
        if (between[at] != ' ' && between[at - 1] == ' ') ++words;
    return words <= kMaxWordsBetween;
}

}  // namespace

std::optional<ComputeCapability> findArchitecture(std::string_view text) { return findArchitectureLower(lowercaseAscii(text)); }

bool listsBuildArchitectures(std::string_view lower) {
    return lower.find("supports cuda capabilities") != std::string_view::npos ||
           lower.find("cuda capability supported by this version of pytorch") != std::string_view::npos;
}

std::vector<std::string> matchProductName(std::string_view text, const DeviceDatabase& devices, std::string* matched) {
    const ProductCatalog catalog(devices);
    std::vector<std::string> ids;
    if (matched) matched->clear();
    for (const auto& hit : findNames(text, catalog)) {
        for (const auto& id : hit.ids)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        if (matched) *matched += (matched->empty() ? "" : ", ") + writtenName(text, hit);
    }
    return ids;
}

std::vector<DeviceMention> findDeviceMentions(const LogText& log, const DeviceDatabase& devices) {
    std::vector<DeviceMention> mentions;
    const ProductCatalog catalog(devices);
    auto add = [](DeviceMention& mention, std::string_view line, const NameHit& hit) {
        for (const auto& id : hit.ids)
            if (std::find(mention.ids.begin(), mention.ids.end(), id) == mention.ids.end()) mention.ids.push_back(id);
        mention.text += (mention.text.empty() ? "" : ", ") + writtenName(line, hit);
        mention.count = std::max(mention.count, hit.count);
        if (hit.variantOf && !mention.cc) mention.cc = hit.variantOf;
    };
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& line = log.line(i);
        const std::string& lower = log.lowerLine(i);
        DeviceMention mention;
        mention.line = i;
        // The GPUs the text names as a requirement make a mention of their own, flagged.
        DeviceMention required;
        required.line = i;
        required.required = true;
        if (mayNameGpu(lower, catalog))
            for (const auto& hit : findNames(line, catalog)) add(requiredBefore(log, i, hit.begin) ? required : mention, line, hit);
        if (!required.ids.empty() || required.cc) {
            ComputeCapability shared;
            if (!required.cc && sharedArchitecture(required.ids, devices, &shared)) required.cc = shared;
            mentions.push_back(std::move(required));
        }
        // A build's list of architectures names none of them as the GPU (its first, sm_70, is no device).
        if ((lower.find("sm") != std::string::npos || lower.find("capability") != std::string::npos) && !listsBuildArchitectures(lower))
            if (auto cc = findArchitectureLower(lower)) mention.cc = cc;
        ComputeCapability shared;
        if (!mention.cc && sharedArchitecture(mention.ids, devices, &shared)) mention.cc = shared;
        if (mention.ids.empty() && mention.cc) {
            if (mention.text.empty()) mention.text = archNameOf(*mention.cc);  // a variant keeps its name
            mention.architectureOnly = true;
        }
        if (mention.ids.empty() && !mention.cc) {
            // "Pascal class GPU": every database GPU of that architecture, said to be the architecture only.
            if (const Family* family = findFamily(line, lower)) {
                for (const auto& d : devices.devices())
                    if (std::find(family->capabilities.begin(), family->capabilities.end(), d.computeCapability) !=
                        family->capabilities.end())
                        mention.ids.push_back(d.id);
                if (family->capabilities.size() == 1) mention.cc = family->capabilities.front();
                std::string ccs;
                for (const auto& cc : family->capabilities) ccs += (ccs.empty() ? "" : ", ") + cc.toString();
                const std::string word(family->word);
                mention.text =
                    word.substr(0, 1) + lowercaseAscii(word.substr(1)) + ", an architecture and no product: compute capability " + ccs;
                mention.architectureOnly = true;
            }
        }
        if (!mention.ids.empty() || mention.cc) mentions.push_back(std::move(mention));
    }
    keepThoseTheLimitAgreesWith(mentions, log, devices);
    return mentions;
}

std::optional<VendorMention> findOtherVendor(const LogText& log) {
    struct Clue {
        std::string_view word;
        std::string_view vendor;
        std::string_view memory;
    };
    static constexpr std::string_view kAmd = "AMD ROCm / HIP", kIntel = "Intel XPU", kApple = "Apple MPS";
    static constexpr std::string_view kLds = "LDS", kSlm = "SLM", kThreadgroup = "threadgroup memory";
    // What PyTorch's collect_env, vLLM's and sglang's platform detection, HIP builds and RCCL print on
    // AMD GPUs; torch.xpu and Intel's GPU names; the MPS backend on Apple silicon.
    static constexpr std::array<Clue, 25> kClues{{
        {"rocm", kAmd, kLds},
        {"hip runtime", kAmd, kLds},
        {"hiperror", kAmd, kLds},
        {"amd instinct", kAmd, kLds},
        {"instinct mi", kAmd, kLds},
        {"radeon", kAmd, kLds},
        {"gfx90a", kAmd, kLds},
        {"gfx942", kAmd, kLds},
        {"gfx950", kAmd, kLds},
        {"gfx908", kAmd, kLds},
        {"gfx11", kAmd, kLds},
        {"librccl", kAmd, kLds},
        {"non-nv platform", kAmd, kLds},
        {"mi300", kAmd, kLds},
        {"mi250", kAmd, kLds},
        {"mi210", kAmd, kLds},
        {"mi325", kAmd, kLds},
        {"mi355", kAmd, kLds},
        {"torch.xpu", kIntel, kSlm},
        {"intel(r) data center gpu", kIntel, kSlm},
        {"intel(r) arc", kIntel, kSlm},
        {"level_zero", kIntel, kSlm},
        {"torch.mps", kApple, kThreadgroup},
        {"mps backend", kApple, kThreadgroup},
        {"a770", kIntel, kSlm},
    }};
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        // collect_env on an NVIDIA machine prints "ROCM used to build PyTorch: N/A" and "HIP runtime version: N/A".
        const bool notApplicable = lower.find("n/a") != std::string::npos || lower.find("could not collect") != std::string::npos;
        for (const auto& clue : kClues) {
            if (lower.find(clue.word) == std::string::npos) continue;
            if (notApplicable && (clue.word == "rocm" || clue.word == "hip runtime")) continue;
            return VendorMention{i, std::string(clue.vendor), std::string(clue.memory)};
        }
    }
    return std::nullopt;
}

}  // namespace tilescope

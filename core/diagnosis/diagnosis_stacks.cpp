#include "core/diagnosis/diagnosis_stacks.h"

#include <algorithm>
#include <charconv>

#include "core/model/text_format.h"

namespace tilescope {

std::vector<std::string> devicesWithOptinLimit(const DeviceDatabase& devices, std::int64_t bytes) {
    std::vector<std::string> out;
    for (const auto& d : devices.devices())
        if (d.smemPerBlockOptin == bytes) out.push_back(d.id);
    return out;
}

std::vector<std::string> devicesOfArchitecture(const DeviceDatabase& devices, ComputeCapability cc) {
    std::vector<std::string> out;
    for (const auto& d : devices.devices())
        if (d.computeCapability == cc) out.push_back(d.id);
    return out;
}

std::vector<std::string> devicesWithOptinAtLeast(const DeviceDatabase& devices, std::int64_t bytes) {
    std::vector<std::string> out;
    for (const auto& d : devices.devices())
        if (d.smemPerBlockOptin >= bytes) out.push_back(d.id);
    return out;
}

namespace {

constexpr std::string_view kIncompatible = " with cuda capability ";  // then "sm_61"
constexpr std::string_view kIncompatibleEnd = "is not compatible with the current pytorch install";
constexpr std::string_view kSupportedList = "supports cuda capabilities";  // lowercase, as listsBuildArchitectures reads it
constexpr int kListLinesAfter = 3;  // the list follows the warning's line; a wrapped one a line later

// A quote a report wraps a pasted line in, or a blank.
bool quoteOrBlank(char c) { return c == ' ' || c == '\t' || c == '"' || c == '`' || c == '\''; }

}  // namespace

std::optional<BuildArchWarning> findBuildArchWarning(const LogText& log) {
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        const auto with = lower.find(kIncompatible);
        if (with == std::string::npos || lower.find(kIncompatibleEnd, with) == std::string::npos) continue;
        const std::string& text = log.line(i);
        const auto cc = findArchitecture(std::string_view(text).substr(with + kIncompatible.size()));
        if (!cc) continue;
        BuildArchWarning warning;
        warning.line = i;
        warning.cc = *cc;
        // The name before " with": after a "UserWarning:" on the same line and any quote a report adds.
        std::string_view name = std::string_view(text).substr(0, with);
        if (const auto colon = name.rfind(": "); colon != std::string_view::npos) name.remove_prefix(colon + 2);
        while (!name.empty() && quoteOrBlank(name.front())) name.remove_prefix(1);
        warning.device = std::string(name);
        for (int j = i; j < log.lineCount() && j <= i + kListLinesAfter; ++j) {
            const std::string& listLower = log.lowerLine(j);
            const auto at = listLower.find(kSupportedList);
            if (at == std::string::npos) continue;
            warning.listLine = j;
            std::string_view rest = std::string_view(log.line(j)).substr(at + kSupportedList.size());
            while (!rest.empty()) {
                const auto begin = rest.find_first_not_of(" \t");
                if (begin == std::string_view::npos) break;
                rest.remove_prefix(begin);
                std::string_view word = rest.substr(0, rest.find_first_of(" \t"));
                rest.remove_prefix(word.size());
                while (!word.empty() && (word.back() == '.' || quoteOrBlank(word.back()))) word.remove_suffix(1);
                if (!word.starts_with("sm_") && !word.starts_with("compute_")) break;
                warning.archs.emplace_back(word);
            }
            break;
        }
        return warning;
    }
    return std::nullopt;
}

namespace {

constexpr std::string_view kFoundGpu = "found gpu";
constexpr std::string_view kOfCapability = " which is of cuda capability ";
constexpr std::string_view kBuildMinimum = "minimum";  // "The minimum cuda capability ...", "Minimum and Maximum cuda capability ..."
constexpr std::string_view kBuildCapability = "cuda capability";
constexpr int kWarningLinesAfter = 4;  // the warning's own lines after "Found GPU": at most three, and a wrap

// "6.1" at the start of `text` (after blanks and an opening parenthesis); the characters read in `used`.
std::optional<ComputeCapability> capabilityNumberAt(std::string_view text, std::size_t* used) {
    std::size_t at = text.find_first_not_of(" \t(");
    if (at == std::string_view::npos) return std::nullopt;
    int major = 0, minor = 0;
    const auto [majorEnd, majorError] = std::from_chars(text.data() + at, text.data() + text.size(), major);
    if (majorError != std::errc{} || majorEnd == text.data() + text.size() || *majorEnd != '.') return std::nullopt;
    const auto [minorEnd, minorError] = std::from_chars(majorEnd + 1, text.data() + text.size(), minor);
    if (minorError != std::errc{}) return std::nullopt;
    if (used) *used = static_cast<std::size_t>(minorEnd - text.data());
    return ComputeCapability{major, minor};
}

}  // namespace

std::optional<OldGpuWarning> findOldGpuWarning(const LogText& log, int from) {
    for (int i = std::max(from, 0); i < log.lineCount(); ++i) {
        const std::string& lower = log.lowerLine(i);
        const auto of = lower.find(kOfCapability);
        if (of == std::string::npos) continue;
        const auto found = lower.rfind(kFoundGpu, of);
        if (found == std::string::npos) continue;
        const std::string& text = log.line(i);
        OldGpuWarning warning;
        warning.line = i;
        const auto cc = capabilityNumberAt(std::string_view(text).substr(of + kOfCapability.size()), nullptr);
        if (!cc) continue;
        warning.cc = *cc;
        std::string_view rest = std::string_view(text).substr(found + kFoundGpu.size(), of - found - kFoundGpu.size());
        const auto [indexEnd, indexError] = std::from_chars(rest.data(), rest.data() + rest.size(), warning.gpuIndex);
        if (indexError == std::errc{}) rest.remove_prefix(static_cast<std::size_t>(indexEnd - rest.data()));
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
        warning.device = std::string(rest);
        // The build's range follows within the warning, maybe wrapped: read the lines after as one text.
        std::string after;
        std::vector<std::pair<std::size_t, int>> starts;  // offset in `after` -> line
        for (int j = i + 1; j < log.lineCount() && j <= i + kWarningLinesAfter; ++j) {
            if (log.lowerLine(j).find(kFoundGpu) != std::string::npos) break;  // the next GPU's warning
            starts.emplace_back(after.size(), j);
            after += log.lowerLine(j);
            after += ' ';
        }
        const auto minimum = after.find(kBuildMinimum);
        const auto capability = minimum == std::string::npos ? std::string::npos : after.find(kBuildCapability, minimum);
        const auto is = capability == std::string::npos ? std::string::npos : after.find(" is", capability);
        if (is != std::string::npos) {
            std::size_t used = 0;
            std::string_view numbers = std::string_view(after).substr(is + 3);
            warning.minimum = capabilityNumberAt(numbers, &used);
            if (warning.minimum) {
                for (const auto& [offset, line] : starts)
                    if (offset <= minimum) warning.rangeLine = line;
                numbers.remove_prefix(used);
                const auto dash = numbers.find_first_not_of(" \t)");
                if (dash != std::string_view::npos && numbers[dash] == '-')
                    warning.maximum = capabilityNumberAt(numbers.substr(dash + 1), nullptr);
            }
        }
        return warning;
    }
    return std::nullopt;
}

std::string otherVendorText(const VendorMention& vendor, std::string_view line) {
    return "The log runs on " + vendor.vendor + " (line " + std::to_string(vendor.line + 1) + ": \"" + std::string(line) +
           "\"): the limit is that vendor's GPU's " + vendor.memory +
           ", not an NVIDIA GPU's shared memory, so no GPU of the database is implied and nothing is planned on one.";
}

std::optional<std::int64_t> parseHexBytes(std::string_view text) {
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    text.remove_prefix(2);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::string divisibilityText(std::int64_t value, std::int64_t divisor) {
    if (divisor <= 0) return {};
    const std::int64_t below = value / divisor * divisor;
    std::string text = withThousands(value) + " = " + withThousands(value / divisor) + " x " + withThousands(divisor) + " + " +
                       withThousands(value - below) + ": the nearest multiples of " + withThousands(divisor) + " are " +
                       withThousands(below) + " and " + withThousands(below + divisor);
    // The largest power of two that divides it: the widest such tile the value would take.
    if (value > 0) {
        const std::int64_t power = value & -value;
        if (power < divisor) text += "; " + withThousands(value) + " is a multiple of " + withThousands(power);
    }
    return text;
}

}  // namespace tilescope

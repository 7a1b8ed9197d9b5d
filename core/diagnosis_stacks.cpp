#include "core/diagnosis_stacks.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>

#include "core/text_format.h"

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

int findRocmMention(const LogText& log) {
    // What PyTorch's collect_env, vLLM's platform detection and HIP builds print on AMD GPUs.
    static constexpr std::array<std::string_view, 6> kWords{"rocm", "hip runtime", "amd instinct", "gfx90a", "gfx942", "radeon"};
    for (int i = 0; i < log.lineCount(); ++i)
        for (std::string_view word : kWords)
            if (log.lowerLine(i).find(word) != std::string::npos) return i;
    return -1;
}

std::vector<TritonConfigValue> findTritonConfig(const LogText& log, int errorLine, int window) {
    struct Spelling {
        std::string_view parameter;
        std::regex pattern;
    };
    // The tutorial's names (BLOCK_SIZE_M) and the common short ones (BLOCK_M), quoted as dict keys
    // or written as keyword arguments.
    static const std::vector<Spelling> spellings = [] {
        auto p = [](const char* name) {
            return std::regex(std::string(R"((?:^|[^A-Za-z0-9_])['"]?)") + name + R"(['"]?\s*[:=]\s*(\d+))", std::regex::ECMAScript);
        };
        std::vector<Spelling> s;
        s.push_back({"BLOCK_M", p("BLOCK_(?:SIZE_)?M")});
        s.push_back({"BLOCK_N", p("BLOCK_(?:SIZE_)?N")});
        s.push_back({"BLOCK_K", p("BLOCK_(?:SIZE_)?K")});
        s.push_back({"num_stages", p("num_stages")});
        s.push_back({"num_warps", p("num_warps")});
        return s;
    }();
    std::vector<TritonConfigValue> out;
    for (const auto& spelling : spellings)
        for (int i = errorLine; i >= 0 && i >= errorLine - window; --i) {
            const std::string& text = log.line(i);
            std::smatch match;
            if (!std::regex_search(text, match, spelling.pattern)) continue;
            std::int64_t value = 0;
            const std::string digits = match.str(1);
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (ec != std::errc() || ptr != digits.data() + digits.size()) continue;
            out.push_back({std::string(spelling.parameter), value, i, text});
            break;
        }
    return out;
}

std::optional<std::int64_t> parseHexBytes(std::string_view text) {
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    text.remove_prefix(2);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::string customSharedMemoryCommand(std::string_view parameter, std::int64_t bytes, bool optIn, std::string_view device) {
    return "tilescope-cli plan -k custom" + (device.empty() ? std::string() : " -d " + std::string(device)) + " -s " +
           std::string(parameter) + "=" + std::to_string(bytes) + (optIn ? ",smem_optin=1" : "");
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

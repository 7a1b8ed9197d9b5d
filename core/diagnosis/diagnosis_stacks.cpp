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

#include "core/model/shape.h"

#include <algorithm>
#include <charconv>

namespace tilescope {

Shape Shape::defaults(const ParameterList& parameters) {
    Shape shape;
    shape.resize(static_cast<int>(parameters.size()));
    for (std::size_t i = 0; i < parameters.size(); ++i) shape[static_cast<int>(i)] = parameters[i].defaultValue;
    return shape;
}

namespace {

// One step of steppedValue: strictly past `value` in the direction `up`.
std::int64_t nextStep(const ParameterSpec& parameter, std::int64_t value, bool up) {
    if (parameter.isFlag) return up ? 1 : 0;
    if (parameter.scale == AxisScale::Log2) {
        if (up) {
            std::int64_t power = 1;
            while (power <= value) power *= 2;
            return power;
        }
        if (value <= 1) return 0;
        std::int64_t power = 1;
        while (power * 2 < value) power *= 2;
        return power;
    }
    return up ? alignedAtOrAbove(parameter, value + 1) : alignedAtOrBelow(parameter, value - 1);
}

}  // namespace

std::int64_t alignedAtOrBelow(const ParameterSpec& parameter, std::int64_t value) {
    const std::int64_t step = std::max<std::int64_t>(1, parameter.alignment);
    const std::int64_t quotient = value / step;
    return (value % step != 0 && value < 0 ? quotient - 1 : quotient) * step;  // floor, also below 0
}

std::int64_t alignedAtOrAbove(const ParameterSpec& parameter, std::int64_t value) {
    const std::int64_t below = alignedAtOrBelow(parameter, value);
    return below == value ? value : below + std::max<std::int64_t>(1, parameter.alignment);
}

std::int64_t steppedValue(const ParameterSpec& parameter, std::int64_t value, int steps) {
    std::int64_t result = value;
    if (steps >= kPageStep || steps <= -kPageStep) {
        // Page steps double or halve; from 0 a page up takes the first step.
        result = steps > 0 ? (value > 0 ? value * 2 : nextStep(parameter, value, true)) : value / 2;
        if (parameter.scale == AxisScale::Linear) result = alignedAtOrBelow(parameter, result);
    } else {
        for (int i = 0; i < (steps > 0 ? steps : -steps); ++i) result = nextStep(parameter, result, steps > 0);
    }
    return std::clamp(result, parameter.minimum, parameter.maximum);
}

int parameterIndex(const ParameterList& parameters, std::string_view name) {
    for (std::size_t i = 0; i < parameters.size(); ++i)
        if (parameters[i].name == name) return static_cast<int>(i);
    return -1;
}

static std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

Result<std::int64_t> parseInteger(std::string_view text) {
    text = trim(text);
    std::int64_t value = 0;
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    if (!text.empty() && *begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (text.empty() || ec == std::errc::invalid_argument || ptr != end) return makeError("'" + std::string(text) + "' is not an integer");
    if (ec == std::errc::result_out_of_range) return makeError("'" + std::string(text) + "' does not fit in 64 bits");
    return value;
}

Result<void> checkParameterValue(const ParameterSpec& parameter, std::int64_t value) {
    if (value < parameter.minimum || value > parameter.maximum) {
        return makeError(parameter.name + "=" + std::to_string(value) + " is out of range; accepted: " + std::to_string(parameter.minimum) +
                         ".." + std::to_string(parameter.maximum));
    }
    return {};
}

static std::string acceptedNames(const ParameterList& parameters) {
    std::string names;
    for (const auto& p : parameters) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

Result<Shape> parseShape(std::string_view text, const ParameterList& parameters) {
    Shape shape = Shape::defaults(parameters);
    text = trim(text);
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view item = trim(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        if (item.empty()) continue;
        const auto equals = item.find('=');
        if (equals == std::string_view::npos)
            return makeError("'" + std::string(item) + "' is not NAME=VALUE; parameters: " + acceptedNames(parameters));
        const auto name = trim(item.substr(0, equals));
        const int index = parameterIndex(parameters, name);
        if (index < 0) return makeError("unknown parameter '" + std::string(name) + "'; parameters: " + acceptedNames(parameters));
        auto value = parseInteger(item.substr(equals + 1));
        if (!value) return makeError(std::string(name) + ": " + value.error());
        if (auto inRange = checkParameterValue(parameters[static_cast<std::size_t>(index)], *value); !inRange)
            return makeError(inRange.error());
        shape[index] = *value;
    }
    return shape;
}

std::string formatShape(const Shape& shape, const ParameterList& parameters) {
    std::string out;
    for (int i = 0; i < shape.size() && i < static_cast<int>(parameters.size()); ++i) {
        if (!out.empty()) out += ',';
        out += parameters[static_cast<std::size_t>(i)].name + "=" + std::to_string(shape[i]);
    }
    return out;
}

}  // namespace tilescope

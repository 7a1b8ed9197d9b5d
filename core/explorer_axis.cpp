#include "core/explorer_axis.h"

#include <algorithm>
#include <cmath>

namespace tilescope {

SweepAxis makeExplorerAxis(const ParameterSpec& parameter, int parameterIndex, std::int64_t from, std::int64_t to, int cells) {
    SweepAxis axis;
    axis.parameter = parameterIndex;
    axis.scale = parameter.scale;
    from = std::clamp(from, parameter.minimum, parameter.maximum);
    to = std::clamp(to, parameter.minimum, parameter.maximum);
    if (to < from) std::swap(from, to);
    cells = std::max(1, cells);
    if (parameter.scale == AxisScale::Log2) {
        from = std::max<std::int64_t>(from, 1);
        to = std::max(to, from);
        const double octaves = std::log2(static_cast<double>(to) / static_cast<double>(from));
        const double ratio = cells > 1 ? octaves / (cells - 1) : 0.0;
        // Round to `bits` significant binary digits, enough for the requested cells per octave:
        // values stay products of powers of two (64, 96, 128, 192 ...), which the kernels'
        // divisibility checks expect, instead of arbitrary integers that fail them.
        const double perOctave = octaves > 0 ? (cells - 1) / octaves : 1.0;
        const int bits = std::max(1, static_cast<int>(std::ceil(std::log2(std::max(1.0, perOctave)))) + 1);
        for (int i = 0; i < cells; ++i) {
            const double target = static_cast<double>(from) * std::exp2(ratio * i);
            const int exponent = std::max(0, static_cast<int>(std::floor(std::log2(target))) - bits + 1);
            const double step = std::exp2(exponent);
            const auto v = static_cast<std::int64_t>(std::llround(std::round(target / step) * step));
            const std::int64_t clamped = std::clamp(v, from, to);
            if (axis.values.empty() || clamped > axis.values.back()) axis.values.push_back(clamped);
        }
        if (axis.values.back() != to) axis.values.push_back(to);
        return axis;
    }
    const std::int64_t span = to - from;
    const std::int64_t count = std::min<std::int64_t>(cells, span + 1);
    for (std::int64_t i = 0; i < count; ++i)
        axis.values.push_back(count > 1 ? from + (span * i + (count - 1) / 2) / (count - 1) : from);
    return axis;
}

int nearestAxisIndex(const SweepAxis& axis, std::int64_t value) {
    int best = -1;
    double bestDistance = 0.0;
    const bool log = axis.scale == AxisScale::Log2;
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
        const double a = static_cast<double>(axis.values[i]);
        const double b = static_cast<double>(value);
        const double d = log && a > 0 && b > 0 ? std::abs(std::log2(a / b)) : std::abs(a - b);
        if (best < 0 || d < bestDistance) {
            best = static_cast<int>(i);
            bestDistance = d;
        }
    }
    return best;
}

}  // namespace tilescope

namespace tilescope {

double axisPosition(const SweepAxis& axis, std::int64_t value) {
    const auto& v = axis.values;
    if (v.empty()) return 0.0;
    if (value <= v.front()) return value == v.front() ? 0.0 : -0.5;
    if (value >= v.back()) return value == v.back() ? static_cast<double>(v.size() - 1) : static_cast<double>(v.size()) - 0.5;
    const auto upper = std::upper_bound(v.begin(), v.end(), value);
    const auto i = static_cast<std::size_t>(upper - v.begin()) - 1;
    const bool log = axis.scale == AxisScale::Log2 && v[i] > 0;
    const double a = log ? std::log2(static_cast<double>(v[i])) : static_cast<double>(v[i]);
    const double b = log ? std::log2(static_cast<double>(v[i + 1])) : static_cast<double>(v[i + 1]);
    const double x = log ? std::log2(static_cast<double>(value)) : static_cast<double>(value);
    return static_cast<double>(i) + (x - a) / (b - a);
}

std::vector<int> axisTickIndices(const SweepAxis& axis, int maxTicks) {
    std::vector<int> ticks;
    const int n = static_cast<int>(axis.values.size());
    if (n == 0 || maxTicks < 1) return ticks;
    std::vector<int> candidates;
    if (axis.scale == AxisScale::Log2) {
        for (int i = 0; i < n; ++i) {
            const std::int64_t v = axis.values[static_cast<std::size_t>(i)];
            if (v > 0 && (v & (v - 1)) == 0) candidates.push_back(i);
        }
    }
    if (candidates.size() < 2) {
        candidates.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) candidates[static_cast<std::size_t>(i)] = i;
    }
    // Labels need room: on a geometric axis the small powers of two crowd into the first
    // cells, so keep a candidate only when it is far enough from the last one kept.
    const int spacing = std::max(1, n / (2 * maxTicks));
    std::vector<int> spaced;
    for (int i : candidates)
        if (spaced.empty() || i - spaced.back() >= spacing) spaced.push_back(i);
    const int count = static_cast<int>(spaced.size());
    const int stride = (count + maxTicks - 1) / maxTicks;
    for (int i = 0; i < count; i += stride) ticks.push_back(spaced[static_cast<std::size_t>(i)]);
    return ticks;
}

std::pair<std::int64_t, std::int64_t> defaultExplorerRange(const ParameterSpec& parameter) {
    if (parameter.scale == AxisScale::Log2)
        return {std::max<std::int64_t>(1, parameter.minimum), std::min(parameter.maximum, kExplorerLog2Ceiling)};
    return {parameter.minimum, parameter.maximum};
}

}  // namespace tilescope

#include "core/series/explorer_axis.h"

#include <algorithm>
#include <cmath>

#include "core/model/text_format.h"

namespace tilescope {

namespace {

// A range moved inwards onto the parameter's alignment: its ends and the step between values
// (1 when the range holds no multiple of the alignment, so that its values are still shown).
struct AlignedRange {
    std::int64_t from = 0;
    std::int64_t to = 0;
    std::int64_t step = 1;
    std::int64_t count() const { return (to - from) / step + 1; }
};

AlignedRange alignedRange(const ParameterSpec& parameter, std::int64_t from, std::int64_t to) {
    from = std::clamp(from, parameter.minimum, parameter.maximum);
    to = std::clamp(to, parameter.minimum, parameter.maximum);
    if (to < from) std::swap(from, to);
    if (parameter.scale == AxisScale::Log2) {
        from = std::max<std::int64_t>(from, 1);
        to = std::max(to, from);
    }
    const std::int64_t alignedFrom = alignedAtOrAbove(parameter, from);
    const std::int64_t alignedTo = alignedAtOrBelow(parameter, to);
    if (parameter.alignment > 1 && alignedFrom <= alignedTo) return {alignedFrom, alignedTo, parameter.alignment};
    return {from, to, 1};
}

// `cells` geometric targets from `range.from` to `range.to`, each rounded to `bits` significant
// binary digits (enough for the cells per octave) and to the range's step, repeats dropped.
std::vector<std::int64_t> geometricValues(const AlignedRange& range, int cells) {
    std::vector<std::int64_t> values;
    const double from = static_cast<double>(range.from), to = static_cast<double>(range.to);
    const double octaves = std::log2(to / from);
    const double ratio = cells > 1 ? octaves / (cells - 1) : 0.0;
    const double perOctave = octaves > 0 ? (cells - 1) / octaves : 1.0;
    const int bits = std::max(1, static_cast<int>(std::ceil(std::log2(std::max(1.0, perOctave)))) + 1);
    for (int i = 0; i < cells; ++i) {
        const double target = from * std::exp2(ratio * i);
        const int exponent = std::max(0, static_cast<int>(std::floor(std::log2(target))) - bits + 1);
        const double quantum = std::exp2(exponent);
        std::int64_t v = std::llround(std::round(target / quantum) * quantum);
        if (range.step > 1) v = (v + range.step / 2) / range.step * range.step;
        v = std::clamp(v, range.from, range.to);
        if (values.empty() || v > values.back()) values.push_back(v);
    }
    if (values.back() != range.to) values.push_back(range.to);
    return values;
}

// Drops interior values, each time the one whose neighbours are closest in log distance, until
// `cells` are left: the extra values of an oversampled geometric axis go where it is densest.
void thinTo(std::vector<std::int64_t>& values, std::size_t cells) {
    while (values.size() > cells && values.size() > 2) {
        std::size_t drop = 1;
        double narrowest = 0.0;
        for (std::size_t i = 1; i + 1 < values.size(); ++i) {
            const double gap = std::log2(static_cast<double>(values[i + 1]) / static_cast<double>(values[i - 1]));
            if (i == 1 || gap < narrowest) {
                drop = i;
                narrowest = gap;
            }
        }
        values.erase(values.begin() + static_cast<std::ptrdiff_t>(drop));
    }
}

}  // namespace

std::int64_t explorerAxisCapacity(const ParameterSpec& parameter, std::int64_t from, std::int64_t to) {
    return alignedRange(parameter, from, to).count();
}

SweepAxis makeExplorerAxis(const ParameterSpec& parameter, int parameterIndex, std::int64_t from, std::int64_t to, int cells) {
    SweepAxis axis;
    axis.parameter = parameterIndex;
    axis.scale = parameter.scale;
    const AlignedRange range = alignedRange(parameter, from, to);
    const int count = static_cast<int>(std::min<std::int64_t>(std::max(1, cells), range.count()));
    if (parameter.scale == AxisScale::Log2) {
        // Small values repeat after rounding (1..2 holds two integers however many cells it gets), so
        // sample more targets until `count` distinct values come out, then thin the surplus.
        axis.values = geometricValues(range, count);
        if (static_cast<int>(axis.values.size()) < count) {
            constexpr int kMostTargets = 1 << 22;
            int fewer = count, enough = count;
            while (enough < kMostTargets && static_cast<int>(geometricValues(range, enough).size()) < count) {
                fewer = enough;
                enough *= 2;
            }
            while (enough - fewer > 1) {
                const int middle = fewer + (enough - fewer) / 2;
                (static_cast<int>(geometricValues(range, middle).size()) < count ? fewer : enough) = middle;
            }
            axis.values = geometricValues(range, enough);
        }
        thinTo(axis.values, static_cast<std::size_t>(count));
        return axis;
    }
    const std::int64_t first = range.from / range.step;
    const std::int64_t span = range.to / range.step - first;
    for (std::int64_t i = 0; i < count; ++i)
        axis.values.push_back(count > 1 ? (first + (span * i + (count - 1) / 2) / (count - 1)) * range.step : range.from);
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

namespace {

// Round values in [low, high]: powers of two with exponents divisible by `every` (Log2), or the
// multiples of `step` (linear).
std::vector<std::int64_t> powersOfTwo(std::int64_t low, std::int64_t high, int every) {
    std::vector<std::int64_t> values;
    for (int e = 0; e < 62; e += every) {
        const std::int64_t v = std::int64_t{1} << e;
        if (v > high) break;
        if (v >= low) values.push_back(v);
    }
    return values;
}

std::vector<std::int64_t> multiplesOf(std::int64_t low, std::int64_t high, std::int64_t step) {
    std::vector<std::int64_t> values;
    std::int64_t v = low >= 0 ? (low + step - 1) / step * step : -(-low / step * step);
    for (; v <= high; v += step) values.push_back(v);
    return values;
}

}  // namespace

std::int64_t everyValueUpTo(const ParameterSpec& parameter, const SweepAxis& axis) {
    const auto& v = axis.values;
    if (axis.scale != AxisScale::Log2 || v.size() < 3) return 0;
    const std::int64_t step = parameter.alignment > 1 && v.front() % parameter.alignment == 0 ? parameter.alignment : 1;
    std::size_t end = 0;
    while (end + 1 < v.size() && v[end + 1] - v[end] == step) ++end;
    return end >= 2 ? v[end] : 0;
}

std::vector<AxisTick> axisTicks(const SweepAxis& axis, int maxTicks, std::int64_t everyValueEnd) {
    std::vector<AxisTick> ticks;
    const auto& v = axis.values;
    if (v.empty() || maxTicks < 1) return ticks;
    const std::int64_t low = *std::min_element(v.begin(), v.end());
    const std::int64_t high = *std::max_element(v.begin(), v.end());
    // Labels need room: on a geometric axis the small powers of two crowd into the first cells.
    const double spacing = std::max(1.0, static_cast<double>(v.size()) / (2.0 * maxTicks));
    // The first value is labelled as well when it is not round and has room before the first round one.
    auto withFirst = [&](std::vector<std::int64_t> round) {
        if (round.empty() || (round.front() != v.front() && axisPosition(axis, round.front()) >= spacing))
            round.insert(round.begin(), v.front());
        return round;
    };
    std::vector<std::int64_t> values;
    // The doubling part of the axis: above its every-value start, where cells are evenly log2.
    const std::int64_t logLow = std::max(low, everyValueEnd);
    auto evenlyApart = [&](const std::vector<std::int64_t>& powers) {
        for (std::size_t i = 1; i < powers.size(); ++i)
            if (axisPosition(axis, powers[i]) - axisPosition(axis, powers[i - 1]) < spacing - 1e-9) return false;
        return true;
    };
    if (axis.scale == AxisScale::Log2 && logLow >= 1 && powersOfTwo(logLow, high, 1).size() >= 2) {
        for (int every = 1; every < 62; ++every) {
            const std::vector<std::int64_t> powers = powersOfTwo(logLow, high, every);
            values = withFirst(powers);
            if (static_cast<int>(values.size()) <= maxTicks && (everyValueEnd <= low || evenlyApart(powers))) break;
        }
    } else {
        for (std::int64_t step = 1;; step *= 2) {
            values = withFirst(multiplesOf(low, high, step));
            if (static_cast<int>(values.size()) <= maxTicks || step > high - low) break;
        }
    }
    // Where the every-value start ends (the axis label names the value), when it has room on both sides.
    if (everyValueEnd > low && values.size() >= 2 && values.front() < everyValueEnd && values[1] > everyValueEnd) {
        const double at = axisPosition(axis, everyValueEnd);
        if (at - axisPosition(axis, values.front()) >= spacing && axisPosition(axis, values[1]) - at >= spacing)
            values.insert(values.begin() + 1, everyValueEnd);
    }
    for (const std::int64_t value : values) {
        const double position = axisPosition(axis, value);
        if (ticks.empty() || position - ticks.back().position >= spacing - 1e-9) ticks.push_back({position, value});
    }
    while (static_cast<int>(ticks.size()) > maxTicks) ticks.pop_back();
    return ticks;
}

std::pair<std::int64_t, std::int64_t> defaultExplorerRange(const ParameterSpec& parameter) {
    if (parameter.scale == AxisScale::Log2)
        return {std::max<std::int64_t>(1, parameter.minimum), std::min(parameter.maximum, kExplorerLog2Ceiling)};
    const AlignedRange range = alignedRange(parameter, parameter.minimum, parameter.maximum);
    return {range.from, range.to};
}

std::pair<std::int64_t, std::int64_t> explorerAxisLimits(const ParameterSpec& parameter) {
    if (parameter.scale == AxisScale::Log2) return {std::max<std::int64_t>(1, parameter.minimum), parameter.maximum};
    const AlignedRange range = alignedRange(parameter, parameter.minimum, parameter.maximum);
    return {range.from, range.to};
}

std::string mapAxisTitle(const SweepAxis& axis, const ParameterList& parameters, AxisTitleLength length) {
    const std::string label = axisLabel(axis, parameters);
    if (length == AxisTitleLength::LabelOnly) return label;
    const bool full = length == AxisTitleLength::Full;
    const ParameterSpec& parameter = parameters[static_cast<std::size_t>(axis.parameter)];
    const std::int64_t everyValueEnd = everyValueUpTo(parameter, axis);
    std::string scale;
    if (everyValueEnd > 0 && !axis.values.empty() && everyValueEnd == axis.values.back())
        scale = full ? " (every value, one cell each)" : " (every value)";
    else if (everyValueEnd > 0)
        scale = full ? " (every value to " + withThousands(everyValueEnd) + ", log2 scale above)"
                     : " (log2 above " + withThousands(everyValueEnd) + ")";
    else if (axis.scale == AxisScale::Log2) scale = full ? " (log2 scale)" : " (log2)";
    return label + scale;
}

}  // namespace tilescope

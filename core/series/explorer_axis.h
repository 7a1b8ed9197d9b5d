// Axes for interactive maps: a parameter's range cut into a number of cells, doubling (geometric)
// for Log2 parameters and evenly stepped for linear ones, on values the kernel can be asked for
// (multiples of the parameter's alignment: the rule the spin boxes step by, core/model/shape.h); and the
// round values to label them with.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/shape.h"
#include "core/model/sweep.h"

namespace tilescope {

// Values from `from` to `to` (clamped to the parameter's range, then moved inwards to multiples of
// its alignment when the range holds one): exactly `cells` of them when the range holds that many
// such values (explorerAxisCapacity), else all of them. Log2 axes start at max(from, 1) and keep
// values with few significant binary digits (64, 96, 128, 192 ...), which divisibility checks expect.
SweepAxis makeExplorerAxis(const ParameterSpec& parameter, int parameterIndex, std::int64_t from, std::int64_t to, int cells);

// How many values makeExplorerAxis can put on an axis over `from` .. `to`: the multiples of the
// alignment in range (every integer when the range holds none), from 1 up on Log2 axes.
std::int64_t explorerAxisCapacity(const ParameterSpec& parameter, std::int64_t from, std::int64_t to);

// Index of the value nearest `value` (in log distance on Log2 axes); -1 for an empty axis.
int nearestAxisIndex(const SweepAxis& axis, std::int64_t value);

// Where `value` falls in index coordinates (index i at i, fractional between neighbours,
// interpolated in log2 on Log2 axes); values beyond the ends extrapolate by half a cell.
double axisPosition(const SweepAxis& axis, std::int64_t value);

// The last value of the every-value start of a doubling axis, 0 when it has none. Where an axis
// asks for more cells per octave than the low octaves hold values (1 .. 65,536 in 128 cells wants 8
// per octave; 1 .. 2 holds 2 values), it takes every value there is, one cell each, and is evenly
// log2 only above: 1, 2, 3 ... 18 on that axis, 1 .. 151 with 999 cells. At least three values in a
// row at the parameter's alignment (1, 2, 4 is log2 already).
std::int64_t everyValueUpTo(const ParameterSpec& parameter, const SweepAxis& axis);

// A label on a map axis: a round value at its place in index coordinates (axisPosition).
struct AxisTick {
    double position = 0.0;
    std::int64_t value = 0;
    friend bool operator==(const AxisTick&, const AxisTick&) = default;
};
// At most `maxTicks` labels at round values: powers of two on Log2 axes (every second, third ...
// power when there are too many: 1, 4, 16 ...), multiples of a power of two on linear ones (128, 256
// ... on head_dim); the axis's first value too when it is not round and has room. Labels keep at
// least width / (2 maxTicks) cells apart (the small powers crowd the first cells of a Log2 axis).
// On a Log2 axis with an every-value start (everyValueUpTo), the powers are taken above it only, so
// that consecutive labels keep one ratio and one distance, and the start's last value is labelled
// when it has room (issue #31 item 12: 1 .. 65,536 in 999 cells was labelled 1, 64, 256, 1,024 ...:
// 64 in the 63rd cell, then x4 every 194 cells).
std::vector<AxisTick> axisTicks(const SweepAxis& axis, int maxTicks, std::int64_t everyValueEnd = 0);

// How much of the scale a map axis's title says: all of it, a short form for an axis too short for
// the long one (the Y axis under the Diagnose dock at 1,024 x 700 cut "(every value to 18, log2
// scale above)" at both ends), or the parameter's label alone.
enum class AxisTitleLength { Full, Compact, LabelOnly };

// A map axis's title: the parameter's label (axisLabel) and where the axis is log2, from everyValueUpTo:
// " (log2 scale)", " (every value to 151, log2 scale above)", or " (every value, one cell each)" when
// the whole range holds fewer values than cells (M 1 .. 8 on awq_gemv); nothing for a linear axis.
// Compact: " (log2)", " (log2 above 151)", " (every value)".
std::string mapAxisTitle(const SweepAxis& axis, const ParameterList& parameters, AxisTitleLength length = AxisTitleLength::Full);

// The range an interactive axis starts with: the whole range of a linear parameter (its first and
// last multiple of the alignment), and 1 .. min(maximum, kExplorerLog2Ceiling) for a doubling one.
inline constexpr std::int64_t kExplorerLog2Ceiling = std::int64_t{1} << 16;
std::pair<std::int64_t, std::int64_t> defaultExplorerRange(const ParameterSpec& parameter);

// The values an interactive axis can start and end at, what its boxes accept: the parameter's range,
// from 1 on a doubling axis (it starts at max(from, 1)), and its first and last multiple of the
// alignment on a linear one. M's box on the Boundaries page read "0 … 16,777,216", took 0 and drew
// from 1 (issue 31).
std::pair<std::int64_t, std::int64_t> explorerAxisLimits(const ParameterSpec& parameter);

}  // namespace tilescope

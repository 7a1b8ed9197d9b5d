// Axes for interactive maps: a parameter's range cut into at most `cells` values, doubling
// (geometric) for Log2 parameters and evenly stepped for linear ones.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/shape.h"
#include "core/sweep.h"

namespace tilescope {

// Values from `from` to `to` (both clamped to the parameter's range, both included).
// Log2 axes start at max(from, 1), round to integers and drop repeats, so they may hold fewer
// than `cells` values; a linear axis never holds more values than the integers in range.
SweepAxis makeExplorerAxis(const ParameterSpec& parameter, int parameterIndex, std::int64_t from, std::int64_t to, int cells);

// Index of the value nearest `value` (in log distance on Log2 axes); -1 for an empty axis.
int nearestAxisIndex(const SweepAxis& axis, std::int64_t value);

// Where `value` falls in index coordinates (index i at i, fractional between neighbours,
// interpolated in log2 on Log2 axes); values beyond the ends extrapolate by half a cell.
double axisPosition(const SweepAxis& axis, std::int64_t value);

// Up to `maxTicks` indices to label: powers of two on Log2 axes when there are some, else
// evenly spaced indices; always the first index; at least width / (2 maxTicks) cells apart.
std::vector<int> axisTickIndices(const SweepAxis& axis, int maxTicks);

// The range an interactive axis starts with: the whole range of a linear parameter, and
// 1 .. min(maximum, kExplorerLog2Ceiling) for a doubling one.
inline constexpr std::int64_t kExplorerLog2Ceiling = std::int64_t{1} << 16;
std::pair<std::int64_t, std::int64_t> defaultExplorerRange(const ParameterSpec& parameter);

}  // namespace tilescope

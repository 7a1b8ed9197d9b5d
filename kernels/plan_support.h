// Small helpers the planners share: ceiling division and saturating byte/FLOP arithmetic.
#pragma once

#include <cstdint>
#include <string>

#include "core/model/text_format.h"  // str() for the planners' messages

namespace tilescope {

constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
constexpr std::int64_t roundUp(std::int64_t a, std::int64_t b) { return ceilDiv(a, b) * b; }

// Buffer sizes can exceed 2^63 for absurd shapes inside the parameter ranges: compute them in
// double and clamp, so a huge shape reads as out_of_memory instead of overflowing.
inline std::int64_t clampBytes(double bytes) {
    constexpr double kMax = 9.0e18;
    return bytes >= kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(bytes);
}

}  // namespace tilescope

// Verdict kinds, one per failure, in the precedence order of KERNELS.md.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tilescope {

// The numeric order is the precedence: a plan reports the first kind that applies.
enum class Verdict : unsigned char {
    UnsupportedDevice,
    UnsupportedShape,
    BucketOverflow,
    NoTileFits,
    InvalidLaunch,
    OutOfResources,
    OutOfMemory,
    Ok,
};

inline constexpr std::array kAllVerdicts{
    Verdict::UnsupportedDevice, Verdict::UnsupportedShape, Verdict::BucketOverflow, Verdict::NoTileFits,
    Verdict::InvalidLaunch,     Verdict::OutOfResources,   Verdict::OutOfMemory,    Verdict::Ok};

std::string_view verdictName(Verdict verdict);  // "invalid_launch"
std::optional<Verdict> verdictFromName(std::string_view name);
std::string_view verdictDescription(Verdict verdict);  // what the real stack does, for legends

}  // namespace tilescope

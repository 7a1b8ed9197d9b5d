// Host-side IEEE fp16 and bfloat16 conversions (round to nearest even), for packers and
// references that must not depend on cuda_fp16.h's host support.
#pragma once

#include <cstdint>
#include <cstring>

namespace tilescope {

inline std::uint16_t floatToHalfBits(float value) {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::int32_t exponent = static_cast<std::int32_t>((f >> 23) & 0xffu) - 127 + 15;
    std::uint32_t mantissa = f & 0x7fffffu;
    if (((f >> 23) & 0xffu) == 0xffu)  // inf or nan
        return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
    if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (exponent <= 0) {
        if (exponent < -10) return static_cast<std::uint16_t>(sign);
        mantissa |= 0x800000u;
        const int shift = 14 - exponent;
        std::uint32_t half = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
        return static_cast<std::uint16_t>(sign | half);
    }
    std::uint32_t half = (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
    return static_cast<std::uint16_t>(sign | half);
}

inline float halfBitsToFloat(std::uint16_t h) {
    const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t f;
    if (exponent == 0x1fu) {
        f = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent == 0) {
        if (mantissa == 0) {
            f = sign;
        } else {
            exponent = 127 - 15 + 1;
            while (!(mantissa & 0x400u)) {
                mantissa <<= 1;
                --exponent;
            }
            f = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else {
        f = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float out;
    std::memcpy(&out, &f, sizeof out);
    return out;
}

inline std::uint16_t floatToBf16Bits(float value) {
    std::uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((f >> 16) | 0x40u);  // nan stays nan
    const std::uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
    return static_cast<std::uint16_t>((f + rounding) >> 16);
}

inline float bf16BitsToFloat(std::uint16_t b) {
    const std::uint32_t f = static_cast<std::uint32_t>(b) << 16;
    float out;
    std::memcpy(&out, &f, sizeof out);
    return out;
}

}  // namespace tilescope

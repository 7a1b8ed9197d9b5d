// Shape: the integer parameters of one kernel call, in the order of its family's parameter list.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/result.h"

namespace tilescope {

enum class AxisScale { Linear, Log2 };  // Log2: the parameter usually doubles (M, N, K)

struct ParameterSpec {
    std::string name;  // "M", "head_dim"
    std::string help;  // tooltip / --help text
    std::int64_t minimum = 0;
    std::int64_t maximum = 0;
    std::int64_t defaultValue = 0;
    AxisScale scale = AxisScale::Linear;
    bool isFlag = false;  // 0/1 parameter such as causal
    // What the kernel accepts along a Linear parameter (head_dim: multiples of 8); the GUI's spin box
    // steps by it so that one click never lands on a shape every kernel refuses.
    std::int64_t alignment = 1;
};

// The value one spin-box step (steps = +-1, more when held) or page step (|steps| >= kPageStep) moves a
// parameter to: Log2 parameters go to the next / previous power of two, Linear ones to the next / previous
// multiple of their alignment, and a page step doubles or halves. Clamped to the parameter's range.
constexpr int kPageStep = 10;  // what Qt's PageUp / PageDown pass to QAbstractSpinBox::stepBy
std::int64_t steppedValue(const ParameterSpec& parameter, std::int64_t value, int steps);

// The one alignment rule that spin-box steps (steppedValue) and map axes (core/series/explorer_axis.h) share:
// the nearest multiple of the parameter's alignment at or above / at or below `value` (`value` itself
// when the alignment is 1). Not clamped to the parameter's range.
std::int64_t alignedAtOrAbove(const ParameterSpec& parameter, std::int64_t value);
std::int64_t alignedAtOrBelow(const ParameterSpec& parameter, std::int64_t value);

using ParameterList = std::vector<ParameterSpec>;

// Fixed-size storage so that a sweep plans millions of shapes without allocating.
class Shape {
public:
    static constexpr int kMaxParameters = 10;

    Shape() = default;
    static Shape defaults(const ParameterList& parameters);

    int size() const { return m_size; }
    std::int64_t operator[](int index) const { return m_values[static_cast<std::size_t>(index)]; }
    std::int64_t& operator[](int index) { return m_values[static_cast<std::size_t>(index)]; }
    void resize(int size) { m_size = size; }
    friend bool operator==(const Shape& a, const Shape& b) {
        if (a.m_size != b.m_size) return false;
        for (int i = 0; i < a.m_size; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }

private:
    std::array<std::int64_t, kMaxParameters> m_values{};
    int m_size = 0;
};

int parameterIndex(const ParameterList& parameters, std::string_view name);  // -1 when unknown

// "M=32768,N=5376,K=4096"; missing parameters keep their defaults. The error says which
// parameter or value is wrong and what is accepted.
Result<Shape> parseShape(std::string_view text, const ParameterList& parameters);
// Checks one value against its parameter's range.
Result<void> checkParameterValue(const ParameterSpec& parameter, std::int64_t value);
Result<std::int64_t> parseInteger(std::string_view text);                      // plain decimal, optional sign
std::string formatShape(const Shape& shape, const ParameterList& parameters);  // "M=1,N=4096"

}  // namespace tilescope

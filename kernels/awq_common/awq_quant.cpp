#include "kernels/awq_common/awq_quant.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/awq_common/awq_format.h"
#include "kernels/common/float16.h"

namespace tilescope::awq {

namespace {
constexpr int kMaxQ = 15;
std::uint32_t setNibble(std::uint32_t word, int nibble, int value) {
    return word | (static_cast<std::uint32_t>(value & kNibbleMask) << (kNibbleBits * nibble));
}
}  // namespace

double Quantized::weight(std::int64_t row, std::int64_t col) const {
    const std::size_t g = static_cast<std::size_t>(row * groups() + col / groupSize);
    return static_cast<double>(q[static_cast<std::size_t>(row * k + col)] - zeros[g]) * static_cast<double>(halfBitsToFloat(scales[g]));
}

Quantized quantize(const std::vector<float>& weights, std::int64_t n, std::int64_t k, std::int64_t groupSize) {
    Quantized out;
    out.n = n;
    out.k = k;
    out.groupSize = groupSize;
    const std::int64_t groups = out.groups();
    out.q.resize(static_cast<std::size_t>(n * k));
    out.zeros.resize(static_cast<std::size_t>(n * groups));
    out.scales.resize(static_cast<std::size_t>(n * groups));
    for (std::int64_t row = 0; row < n; ++row) {
        for (std::int64_t g = 0; g < groups; ++g) {
            const std::int64_t k0 = g * groupSize, k1 = std::min(k, k0 + groupSize);
            float lo = weights[static_cast<std::size_t>(row * k + k0)], hi = lo;
            for (std::int64_t c = k0; c < k1; ++c) {
                lo = std::min(lo, weights[static_cast<std::size_t>(row * k + c)]);
                hi = std::max(hi, weights[static_cast<std::size_t>(row * k + c)]);
            }
            const float range = std::max(hi - lo, 1e-5f);
            const std::uint16_t scaleBits = floatToHalfBits(range / kMaxQ);
            const float scale = halfBitsToFloat(scaleBits);
            const int zero = std::clamp(static_cast<int>(std::lround(-lo / scale)), 0, kMaxQ);
            const std::size_t gi = static_cast<std::size_t>(row * groups + g);
            out.scales[gi] = scaleBits;
            out.zeros[gi] = static_cast<std::uint8_t>(zero);
            for (std::int64_t c = k0; c < k1; ++c) {
                const float w = weights[static_cast<std::size_t>(row * k + c)];
                out.q[static_cast<std::size_t>(row * k + c)] =
                    static_cast<std::uint8_t>(std::clamp(static_cast<int>(std::lround(w / scale)) + zero, 0, kMaxQ));
            }
        }
    }
    return out;
}

std::vector<float> randomHalfValues(std::size_t count, std::uint64_t seed, float amplitude) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> uniform(-amplitude, amplitude);
    std::vector<float> values(count);
    for (auto& v : values) v = halfBitsToFloat(floatToHalfBits(uniform(engine)));
    return values;
}

std::vector<std::uint16_t> toHalfBits(const std::vector<float>& values) {
    std::vector<std::uint16_t> bits(values.size());
    std::transform(values.begin(), values.end(), bits.begin(), floatToHalfBits);
    return bits;
}

// ---- GEMV ----
GemvPacked packGemv(const Quantized& w) {
    GemvPacked p;
    p.zerosWidth = gemvZerosWidth(w.k, w.groupSize);
    const std::int64_t words = w.k / kNibblesPerWord, groups = w.groups();
    p.qweight.assign(static_cast<std::size_t>(w.n * words), 0);
    p.qzeros.assign(static_cast<std::size_t>(w.n * p.zerosWidth), 0);
    p.scales.assign(static_cast<std::size_t>(w.n * p.zerosWidth * kNibblesPerWord), 0);
    for (std::int64_t row = 0; row < w.n; ++row) {
        for (std::int64_t c = 0; c < w.k; ++c) {
            auto& word = p.qweight[static_cast<std::size_t>(row * words + c / kNibblesPerWord)];
            word = static_cast<std::int32_t>(setNibble(static_cast<std::uint32_t>(word), static_cast<int>(c % kNibblesPerWord),
                                                       w.q[static_cast<std::size_t>(row * w.k + c)]));
        }
        for (std::int64_t g = 0; g < groups; ++g) {
            auto& word = p.qzeros[static_cast<std::size_t>(row * p.zerosWidth + g / kNibblesPerWord)];
            word = static_cast<std::int32_t>(setNibble(static_cast<std::uint32_t>(word), static_cast<int>(g % kNibblesPerWord),
                                                       w.zeros[static_cast<std::size_t>(row * groups + g)]));
            p.scales[static_cast<std::size_t>(row * p.zerosWidth * kNibblesPerWord + g)] =
                w.scales[static_cast<std::size_t>(row * groups + g)];
        }
    }
    return p;
}

Quantized unpackGemv(const GemvPacked& p, std::int64_t n, std::int64_t k, std::int64_t groupSize) {
    Quantized w;
    w.n = n;
    w.k = k;
    w.groupSize = groupSize;
    const std::int64_t words = k / kNibblesPerWord, groups = w.groups();
    w.q.resize(static_cast<std::size_t>(n * k));
    w.zeros.resize(static_cast<std::size_t>(n * groups));
    w.scales.resize(static_cast<std::size_t>(n * groups));
    for (std::int64_t row = 0; row < n; ++row) {
        for (std::int64_t c = 0; c < k; ++c)
            w.q[static_cast<std::size_t>(row * k + c)] = static_cast<std::uint8_t>(
                nibbleAt(static_cast<unsigned>(p.qweight[static_cast<std::size_t>(row * words + c / kNibblesPerWord)]),
                         static_cast<int>(c % kNibblesPerWord)));
        for (std::int64_t g = 0; g < groups; ++g) {
            w.zeros[static_cast<std::size_t>(row * groups + g)] = static_cast<std::uint8_t>(
                nibbleAt(static_cast<unsigned>(p.qzeros[static_cast<std::size_t>(row * p.zerosWidth + g / kNibblesPerWord)]),
                         static_cast<int>(g % kNibblesPerWord)));
            w.scales[static_cast<std::size_t>(row * groups + g)] =
                p.scales[static_cast<std::size_t>(row * p.zerosWidth * kNibblesPerWord + g)];
        }
    }
    return w;
}

// ---- gemv_fast ----
GemvFastPacked packGemvFast(const Quantized& w) {
    GemvFastPacked p;
    const std::int64_t groups = w.groups();
    p.qweight.assign(static_cast<std::size_t>(w.n * w.k / kFastInterleave), 0);
    p.scales.resize(static_cast<std::size_t>(groups * w.n));
    p.scaledZeros.resize(static_cast<std::size_t>(groups * w.n));
    for (std::int64_t row = 0; row < w.n; ++row) {
        for (std::int64_t c = 0; c < w.k; ++c) {
            const FastLocation at = fastLocation(row, c, w.k);
            auto& element = p.qweight[static_cast<std::size_t>(at.element)];
            element = static_cast<std::int16_t>(static_cast<std::uint16_t>(element) |
                                                (w.q[static_cast<std::size_t>(row * w.k + c)] << (kNibbleBits * at.nibble)));
        }
        for (std::int64_t g = 0; g < groups; ++g) {
            const std::size_t src = static_cast<std::size_t>(row * groups + g), dst = static_cast<std::size_t>(g * w.n + row);
            p.scales[dst] = w.scales[src];
            p.scaledZeros[dst] = floatToHalfBits(-static_cast<float>(w.zeros[src]) * halfBitsToFloat(w.scales[src]));
        }
    }
    return p;
}

Quantized unpackGemvFast(const GemvFastPacked& p, std::int64_t n, std::int64_t k, std::int64_t groupSize) {
    Quantized w;
    w.n = n;
    w.k = k;
    w.groupSize = groupSize;
    const std::int64_t groups = w.groups();
    w.q.resize(static_cast<std::size_t>(n * k));
    w.zeros.resize(static_cast<std::size_t>(n * groups));
    w.scales.resize(static_cast<std::size_t>(n * groups));
    for (std::int64_t rowGroup = 0; rowGroup < n / kFastInterleave; ++rowGroup)
        for (std::int64_t pos = 0; pos < k; ++pos)
            for (int s = 0; s < kFastInterleave; ++s) {
                const FastWeight at = fastWeightAt(pos, s);
                const unsigned element = static_cast<std::uint16_t>(p.qweight[static_cast<std::size_t>(rowGroup * k + pos)]);
                w.q[static_cast<std::size_t>((rowGroup * kFastInterleave + at.row) * k + at.k)] =
                    static_cast<std::uint8_t>(nibbleAt(element, s));
            }
    for (std::int64_t row = 0; row < n; ++row)
        for (std::int64_t g = 0; g < groups; ++g) {
            const std::size_t src = static_cast<std::size_t>(g * n + row), dst = static_cast<std::size_t>(row * groups + g);
            w.scales[dst] = p.scales[src];
            const float scale = halfBitsToFloat(p.scales[src]);
            w.zeros[dst] = static_cast<std::uint8_t>(std::lround(-halfBitsToFloat(p.scaledZeros[src]) / scale));
        }
    return w;
}

// ---- GEMM ----
GemmPacked packGemm(const Quantized& w) {
    GemmPacked p;
    const std::int64_t words = w.n / kNibblesPerWord, groups = w.groups();
    p.qweight.assign(static_cast<std::size_t>(w.k * words), 0);
    p.qzeros.assign(static_cast<std::size_t>(groups * words), 0);
    p.scales.resize(static_cast<std::size_t>(groups * w.n));
    for (std::int64_t row = 0; row < w.n; ++row) {
        const int nibble = gemmNibbleOfColumn(static_cast<int>(row % kNibblesPerWord));
        const std::int64_t word = row / kNibblesPerWord;
        for (std::int64_t c = 0; c < w.k; ++c) {
            auto& packed = p.qweight[static_cast<std::size_t>(c * words + word)];
            packed = static_cast<std::int32_t>(
                setNibble(static_cast<std::uint32_t>(packed), nibble, w.q[static_cast<std::size_t>(row * w.k + c)]));
        }
        for (std::int64_t g = 0; g < groups; ++g) {
            auto& packed = p.qzeros[static_cast<std::size_t>(g * words + word)];
            packed = static_cast<std::int32_t>(
                setNibble(static_cast<std::uint32_t>(packed), nibble, w.zeros[static_cast<std::size_t>(row * groups + g)]));
            p.scales[static_cast<std::size_t>(g * w.n + row)] = w.scales[static_cast<std::size_t>(row * groups + g)];
        }
    }
    return p;
}

Quantized unpackGemm(const GemmPacked& p, std::int64_t n, std::int64_t k, std::int64_t groupSize) {
    Quantized w;
    w.n = n;
    w.k = k;
    w.groupSize = groupSize;
    const std::int64_t words = n / kNibblesPerWord, groups = w.groups();
    w.q.resize(static_cast<std::size_t>(n * k));
    w.zeros.resize(static_cast<std::size_t>(n * groups));
    w.scales.resize(static_cast<std::size_t>(n * groups));
    for (std::int64_t c = 0; c < k; ++c)
        for (std::int64_t word = 0; word < words; ++word)
            for (int i = 0; i < kNibblesPerWord; ++i) {
                const std::int64_t row = word * kNibblesPerWord + gemmColumnOfNibble(i);
                w.q[static_cast<std::size_t>(row * k + c)] =
                    static_cast<std::uint8_t>(nibbleAt(static_cast<unsigned>(p.qweight[static_cast<std::size_t>(c * words + word)]), i));
            }
    for (std::int64_t g = 0; g < groups; ++g)
        for (std::int64_t word = 0; word < words; ++word)
            for (int i = 0; i < kNibblesPerWord; ++i) {
                const std::int64_t row = word * kNibblesPerWord + gemmColumnOfNibble(i);
                w.zeros[static_cast<std::size_t>(row * groups + g)] =
                    static_cast<std::uint8_t>(nibbleAt(static_cast<unsigned>(p.qzeros[static_cast<std::size_t>(g * words + word)]), i));
                w.scales[static_cast<std::size_t>(row * groups + g)] = p.scales[static_cast<std::size_t>(g * n + row)];
            }
    return w;
}

std::vector<double> linearReference(const std::vector<float>& x, std::int64_t m, const Quantized& w) {
    std::vector<double> dequantized(static_cast<std::size_t>(w.n * w.k));
    for (std::int64_t row = 0; row < w.n; ++row)
        for (std::int64_t c = 0; c < w.k; ++c) dequantized[static_cast<std::size_t>(row * w.k + c)] = w.weight(row, c);
    std::vector<double> out(static_cast<std::size_t>(m * w.n));
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t row = 0; row < w.n; ++row) {
            double sum = 0.0;
            for (std::int64_t c = 0; c < w.k; ++c)
                sum += static_cast<double>(x[static_cast<std::size_t>(i * w.k + c)]) * dequantized[static_cast<std::size_t>(row * w.k + c)];
            out[static_cast<std::size_t>(i * w.n + row)] = sum;
        }
    return out;
}

}  // namespace tilescope::awq

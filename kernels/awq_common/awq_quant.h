// AWQ weights on the CPU: quantisation of fp16 weights, the three packings and their inverses
// (round-trip tested), shared by the GPU launcher and the tests. Index maths: awq_format.h.
#pragma once

#include <cstdint>
#include <vector>

namespace tilescope::awq {

// 4-bit weights of a linear layer [N out, K in] with one zero and scale per (row, K group).
struct Quantized {
    std::int64_t n = 0, k = 0, groupSize = 0;
    std::vector<std::uint8_t> q;        // [n][k], 0..15
    std::vector<std::uint8_t> zeros;    // [n][groups], 0..15
    std::vector<std::uint16_t> scales;  // [n][groups], fp16 bits
    std::int64_t groups() const { return groupSize > 0 ? (k + groupSize - 1) / groupSize : 0; }
    double weight(std::int64_t row, std::int64_t col) const;  // (q - z) * s
    friend bool operator==(const Quantized&, const Quantized&) = default;
};

// Asymmetric min/max quantisation per group, as AutoAWQ's quantizer with zero_point=True.
Quantized quantize(const std::vector<float>& weights, std::int64_t n, std::int64_t k, std::int64_t groupSize);
// fp16-representable values uniform in [-amplitude, amplitude), reproducible from the seed.
std::vector<float> randomHalfValues(std::size_t count, std::uint64_t seed, float amplitude);
std::vector<std::uint16_t> toHalfBits(const std::vector<float>& values);

struct GemvPacked {  // AutoAWQ "GEMV"
    std::int64_t zerosWidth = 0;
    std::vector<std::int32_t> qweight;  // [N, K/8], natural nibble order along K
    std::vector<std::int32_t> qzeros;   // [N, zw], natural order along groups
    std::vector<std::uint16_t> scales;  // [N, zw*8] fp16
};
GemvPacked packGemv(const Quantized& w);
Quantized unpackGemv(const GemvPacked& packed, std::int64_t n, std::int64_t k, std::int64_t groupSize);

struct GemvFastPacked {                      // AutoAWQ "gemv_fast" (pack_intweight, interleave 4, k-stride 64)
    std::vector<std::int16_t> qweight;       // [N/4, K]
    std::vector<std::uint16_t> scales;       // [K/G, N] fp16
    std::vector<std::uint16_t> scaledZeros;  // [K/G, N] fp16, -z * s
};
GemvFastPacked packGemvFast(const Quantized& w);
Quantized unpackGemvFast(const GemvFastPacked& packed, std::int64_t n, std::int64_t k, std::int64_t groupSize);

struct GemmPacked {                     // AutoAWQ / vLLM "GEMM"
    std::vector<std::int32_t> qweight;  // [K, N/8], AWQ order
    std::vector<std::int32_t> qzeros;   // [K/G, N/8], AWQ order
    std::vector<std::uint16_t> scales;  // [K/G, N] fp16
};
GemmPacked packGemm(const Quantized& w);
Quantized unpackGemm(const GemmPacked& packed, std::int64_t n, std::int64_t k, std::int64_t groupSize);

// out[M, N] = x[M, K] @ W^T in float64, W dequantised.
std::vector<double> linearReference(const std::vector<float>& x, std::int64_t m, const Quantized& w);

}  // namespace tilescope::awq

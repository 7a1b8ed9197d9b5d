// AWQ 4-bit weight layouts as index maths shared by the packers (CPU) and the kernels (GPU).
// Three packings: GEMV (AutoAWQ awq/modules/linear/gemv.py), gemv_fast (AutoAWQ
// awq/modules/linear/gemv_fast.py, pack_intweight) and GEMM (AutoAWQ / vLLM awq gemm).
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::awq {

inline constexpr int kNibblesPerWord = 8;  // int32 words hold 8 4-bit weights
inline constexpr int kNibbleBits = 4;
inline constexpr int kNibbleMask = 0xf;

TILESCOPE_HD int nibbleAt(unsigned word, int nibble) { return static_cast<int>((word >> (kNibbleBits * nibble)) & kNibbleMask); }

// Dequantisation of every AWQ format: w = (q - z) * s.
TILESCOPE_HD float dequantize(int q, int z, float s) { return static_cast<float>(q - z) * s; }

// ---- GEMM packing: nibble i of word c holds column c*8 + ORDER[i], ORDER = [0,2,4,6,1,3,5,7] ----
TILESCOPE_HD int gemmColumnOfNibble(int nibble) { return (nibble % 4) * 2 + nibble / 4; }
// The inverse (upstream's unpack order [0,4,1,5,2,6,3,7]).
TILESCOPE_HD int gemmNibbleOfColumn(int column) { return column / 2 + (column % 2) * 4; }

// ---- Register dequantisation (the fp16 "magic number" trick of upstream's lop3 dequantisers) ----
// fp16 0x6400 is 1024 and its mantissa step is 1: OR-ing a nibble q into the low mantissa bits gives
// exactly 1024 + q, so (1024 + q) - (1024 + z) = q - z is exact and one multiply by s rounds once.
inline constexpr unsigned kHalf2Magic = 0x64006400u;
// Two packed words of consecutive K rows as fp16x2 lanes (lane 0 from w0, lane 1 from w1): nibbles 0-3
// (low) or 4-7 (high) of each word, so the lanes of one nibble form a B-fragment register (k, k+1).
TILESCOPE_HD unsigned pairLowNibbles(unsigned w0, unsigned w1) { return (w0 & 0xffffu) | (w1 << 16); }
TILESCOPE_HD unsigned pairHighNibbles(unsigned w0, unsigned w1) { return (w0 >> 16) | (w1 & 0xffff0000u); }
// fp16x2 bits 1024 + (nibble `slot` (0..3) of each 16-bit lane): one shift and one lop3.
TILESCOPE_HD unsigned magicHalves(unsigned lanes, int slot) {
#if defined(__CUDA_ARCH__)
    unsigned out;  // lop3 immediate 0xea: (a & b) | c
    asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(out) : "r"(lanes >> (kNibbleBits * slot)), "n"(0x000f000f), "n"(kHalf2Magic));
    return out;
#else
    return ((lanes >> (kNibbleBits * slot)) & 0x000f000fu) | kHalf2Magic;
#endif
}
// fp16x2 bits of 1024 + z in both lanes.
TILESCOPE_HD unsigned magicZero(int z) { return kHalf2Magic | (static_cast<unsigned>(z) * 0x00010001u); }

// ---- GEMV packing: natural order along K (and along groups for qzeros) ----
// qzeros columns per output row: ceil(ceil(K/G)/8) padded to a multiple of 1 (G>=128), 2 (G=64), 4 (G=32).
TILESCOPE_HD long long gemvZerosWidth(long long k, long long groupSize) {
    const long long groups = (k + groupSize - 1) / groupSize;
    const long long words = (groups + kNibblesPerWord - 1) / kNibblesPerWord;
    const long long pad = groupSize >= 128 ? 1 : (groupSize == 64 ? 2 : 4);
    return (words + pad - 1) / pad * pad;
}

// GEMV kernel dequantisation, one packed word (8 consecutive k) at a time. Pair p (0..3) of a word is
// nibbles 2p, 2p+1 (k = 2p, 2p+1, the natural fp16x2 pair of activations): byte p copied into bytes 0
// and 2 (one prmt), then (bits & 0x00f0000f) | 0x64006400 (one lop3) reads as {1024 + n[2p], 1024 + 16 n[2p+1]}.
inline constexpr unsigned kGemvPairMask = 0x00f0000fu;
inline constexpr unsigned kHalf2Plus1024 = 0x64006400u;  // fp16x2 {1024, 1024}
// fp16x2 {1, 1/16}: the fma multiplier that brings both lanes of a pair to 1024 + q and 64 + q.
inline constexpr unsigned kGemvPairUnit = 0x2c003c00u;
TILESCOPE_HD unsigned replicateByte(unsigned word, int byte) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(word, 0u, 0x1111u * static_cast<unsigned>(byte));
#else
    return ((word >> (8 * byte)) & 0xffu) * 0x01010101u;
#endif
}
// (a & b) | c as one lop3 on the GPU.
TILESCOPE_HD unsigned andOr(unsigned a, unsigned b, unsigned c) {
#if defined(__CUDA_ARCH__)
    unsigned r;
    asm("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return (a & b) | c;
#endif
}
TILESCOPE_HD unsigned gemvPairMagic(unsigned word, int pair) { return andOr(replicateByte(word, pair), kGemvPairMask, kHalf2Plus1024); }
// fp16x2 {-(1024 + z), -(64 + z)} (bits 0xe400 | z and 0xd400 | z << 4): fma(gemvPairMagic, kGemvPairUnit,
// gemvZeroBias(z)) is exactly {n[2p] - z, n[2p+1] - z}, every operand and the result being small fp16 integers.
TILESCOPE_HD unsigned gemvZeroBias(unsigned z) { return 0xd400e400u + z * 0x00100001u; }

// ---- gemv_fast packing: int16 [N/4, K]; 4 output rows interleaved with k-stride 64 ----
inline constexpr int kFastInterleave = 4;
inline constexpr int kFastKStride = 64;
inline constexpr int kFastChunk = 32;  // the two reorderings act inside 32-weight chunks

// Inside a 32-chunk, packed position pp = i*8 + c*4 + b holds original offset b*8 + i*2 + c
// (first [4,4,2] -> transpose(1,0,2), then each 8 reordered [0,2,4,6,1,3,5,7]).
TILESCOPE_HD int fastOriginalOffset(int packed) {
    const int i = packed / 8, c = (packed % 8) / 4, b = packed % 4;
    return b * 8 + i * 2 + c;
}
TILESCOPE_HD int fastPackedOffset(int original) {
    const int b = original / 8, i = (original % 8) / 2, c = original % 2;
    return i * 8 + c * 4 + b;
}

struct FastLocation {
    long long element;  // int16 index into [N/4, K]
    int nibble;         // 0..3
};

// Where weight (n, k) lives in the gemv_fast layout.
TILESCOPE_HD FastLocation fastLocation(long long n, long long k, long long kTotal) {
    const long long rowGroup = n / kFastInterleave;
    const int row = static_cast<int>(n % kFastInterleave);
    const long long block = k / kFastKStride;
    const int within = static_cast<int>(k % kFastKStride);
    const int permuted = (within / kFastChunk) * kFastChunk + fastPackedOffset(within % kFastChunk);
    const int flat = row * kFastKStride + permuted;  // the 4 x 64 block, read back as 64 x 4
    return {rowGroup * kTotal + block * kFastKStride + flat / kFastInterleave, flat % kFastInterleave};
}

struct FastWeight {
    int row;      // 0..3 inside the row group
    long long k;  // original k
};

// The inverse: which weight nibble `nibble` of int16 `position` (0..K-1 inside a row group) holds.
TILESCOPE_HD FastWeight fastWeightAt(long long position, int nibble) {
    const long long block = position / kFastKStride;
    const int flat = static_cast<int>(position % kFastKStride) * kFastInterleave + nibble;
    const int row = flat / kFastKStride;
    const int permuted = flat % kFastKStride;
    const int original = (permuted / kFastChunk) * kFastChunk + fastOriginalOffset(permuted % kFastChunk);
    return {row, block * kFastKStride + original};
}

// gemv_fast kernel dequantisation. A thread's 16-byte load holds one row's 32-k chunk (int16 positions
// 16 row + 8 c of a 64-k block); in its 32-bit word j, nibbles b and b + 4 (b = 0..3) are k = 8b + 2j and
// 8b + 2j + 1 of the chunk: the pair (word >> 8 (b / 2)) & (b odd ? 0x00f000f0 : 0x000f000f) | 0x64006400
// is {1024 + q, 1024 + q'} (b even) or {1024 + 16 q, 1024 + 16 q'} (b odd) against activation half2 4b + j.
inline constexpr unsigned kFastLowMask = 0x000f000fu;
inline constexpr unsigned kFastHighMask = 0x00f000f0u;
TILESCOPE_HD unsigned fastPairMagic(unsigned word, int b) {
    return andOr(b >= 2 ? word >> 8 : word, (b % 2) != 0 ? kFastHighMask : kFastLowMask, kHalf2Plus1024);
}
TILESCOPE_HD int fastPairActivation(int word, int b) { return 4 * b + word; }  // half2 index inside the 32-k chunk
// fp16x2 {1, 1} / {1/16, 1/16} and {-1024, -1024} / {-64, -64}: fma to the integers q (exact).
inline constexpr unsigned kHalf2One = 0x3c003c00u;
inline constexpr unsigned kHalf2Sixteenth = 0x2c002c00u;
inline constexpr unsigned kHalf2Minus1024 = 0xe400e400u;
inline constexpr unsigned kHalf2Minus64 = 0xd400d400u;

}  // namespace tilescope::awq

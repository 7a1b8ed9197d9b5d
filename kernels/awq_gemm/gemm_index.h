// Block-index maths of the awq_gemm kernels, shared by the kernels and the CPU tests.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::awq {

struct GemmBlock {
    long long mTile;
    long long nTile;
    int split;
};

// One block per (M tile, N tile, split), in upstream's order: the split varies slowest, then the
// M tile, the N tile fastest (AutoAWQ_kernels gemm_cuda_gen.cu: blockIdx_z = blockIdx.x / (M tiles *
// N tiles); quantization_new/gemm/gemm_cuda.cu gemm_w4a16_T1 likewise).
TILESCOPE_HD GemmBlock decodeGemmBlock(long long linear, long long mTiles, long long nTiles) {
    const long long tiles = mTiles * nTiles;
    const long long tile = linear % tiles;
    return {tile / nTiles, tile % nTiles, static_cast<int>(linear / tiles)};
}

// ---- The gemm kernel's fragments (mma.m16n8k16; lane = 4g + t) ----
// A warp owns 64 output columns, 8 packed words per K row. Lane (g, t) reads word column g of the
// K rows kb + gemmBRowOfRegister(t, r), r = 0..3, so its 4 words hold its B fragment rows (2t, 2t+1,
// 2t+8, 2t+9) for all 8 columns of that word. n-fragment j gathers column j of every word: its mma
// column c is the warp's output column 8c + j, and so it needs no shuffle: nibble gemmNibbleOfColumn(j).
TILESCOPE_HD int gemmBRowOfRegister(int t, int reg) { return 2 * t + (reg & 1) + (reg >> 1) * 8; }
// The C fragment of lane (g, t), n-fragment j, element e (0..3: rows g, g, g+8, g+8; mma columns
// 2t, 2t+1, 2t, 2t+1) is the warp's output column 8 * (2t + e % 2) + j: 16 consecutive columns from 16t.
TILESCOPE_HD int gemmOutputColumn(int t, int j, int e) { return 8 * (2 * t + e % 2) + j; }
TILESCOPE_HD int gemmOutputRow(int g, int e) { return g + (e / 2) * 8; }

// ---- Shift-free dequantisation of one B register (two K rows, one packed word each) ----
// prmt (PTX semantics: selector nibble i picks byte i of the result from the 8 bytes {b, a} = bytes 4-7
// of b, 0-3 of a) putting byte `byte` of w0 in both bytes of the low 16-bit lane and byte `byte` of w1 in
// both bytes of the high lane. Only the low byte of each lane is read afterwards.
TILESCOPE_HD unsigned gemmPairSelector(int byte) { return static_cast<unsigned>(byte) * 0x11u + static_cast<unsigned>(4 + byte) * 0x1100u; }
TILESCOPE_HD unsigned bytePermute(unsigned a, unsigned b, unsigned selector) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, b, selector);
#else
    const unsigned long long bytes = (static_cast<unsigned long long>(b) << 32) | a;
    unsigned out = 0;
    for (int i = 0; i < 4; ++i) out |= static_cast<unsigned>((bytes >> (8 * ((selector >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return out;
#endif
}
// Nibble `nibble` (0..7) of a word is the low (even) or high (odd) nibble of byte nibble / 2. With that
// byte in the low byte of each fp16 lane, the even nibble sits in mantissa bits 0-3: OR-ed into 0x6400
// (1024, mantissa step 1) it reads 1024 + q; the odd one sits in bits 4-7: OR-ed into 0x5400 (64,
// mantissa step 1/16) it reads 64 + q. Both exact, no shift: one and-or (lop3) per register.
TILESCOPE_HD unsigned gemmNibbleMask(int nibble) { return nibble % 2 ? 0x00f000f0u : 0x000f000fu; }
TILESCOPE_HD unsigned gemmNibbleMagic(int nibble) { return nibble % 2 ? 0x54005400u : 0x64006400u; }
// fp16x2 (magic + nibble of w0, magic + nibble of w1), lanes low and high. With w0 = w1 = the zero word
// it is the matching (magic + z) pair, so one sub.f16x2 gives q - z exactly.
TILESCOPE_HD unsigned gemmMagicPair(unsigned w0, unsigned w1, int nibble) {
    const unsigned pair = bytePermute(w0, w1, gemmPairSelector(nibble / 2));
#if defined(__CUDA_ARCH__)
    // One lop3 (a & b) | c (immediate 0xea); written as C, ptxas emits an and and an or.
    unsigned out;
    if (nibble % 2) asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(out) : "r"(pair), "n"(0x00f000f0), "n"(0x54005400));
    else asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(out) : "r"(pair), "n"(0x000f000f), "n"(0x64006400));
    return out;
#else
    return (pair & gemmNibbleMask(nibble)) | gemmNibbleMagic(nibble);
#endif
}

// The load cursor of the gemm kernel's B stream: a split's chunks are split, split + splitK, ...; chunk c
// is in group c / chunksPerGroup. Stepping by splitK chunks moves the group by splitK / chunksPerGroup
// plus one when the remainder wraps; returns the new remainder and adds the group step to *group.
TILESCOPE_HD int gemmAdvanceGroup(int remainder, int splitK, int chunksPerGroup, long long* group) {
    remainder += splitK % chunksPerGroup;
    *group += splitK / chunksPerGroup;
    if (remainder >= chunksPerGroup) {
        remainder -= chunksPerGroup;
        *group += 1;
    }
    return remainder;
}

// 16-byte chunk swizzle of a row-major fp16 tile with chunksPerRow (2, 4, 8 or 16) chunks per row, so
// the 8 row addresses of one ldmatrix 8x8 matrix (8 consecutive rows, one logical chunk) fall in 8
// distinct 16-byte bank groups.
TILESCOPE_HD int swizzleChunk(int row, int chunk, int chunksPerRow) {
    if (chunksPerRow >= 8) return chunk ^ (row % 8);
    return chunk ^ ((row / (8 / chunksPerRow)) % chunksPerRow);
}

// ---- The prefill kernel (gemv_fast packing: int16 [N/4, K], 4 rows interleaved per 64-wide K block) ----
// Inside one 64-wide K block, row n's 64 nibbles are 16 int16 at (n % 4) * 16; the 32-bit word t of its
// 32-wide half c (elements c*8 + 2t, +1) holds exactly lane t's B fragment rows of both k16 steps of
// that half: nibble slot s and s + 4 are rows 8s + 2t and 8s + 2t + 1 (awq_format.h fastOriginalOffset).
// Returns the 32-bit word index of that word for K block start kBlock (a multiple of 64).
TILESCOPE_HD long long prefillWordOf(long long n, long long kBlock, int half, int t, long long k) {
    return ((n / 4) * k + kBlock + (n % 4) * 16 + half * 8 + 2 * t) / 2;
}
// The K row of lane t's nibble `slot` (0..3) in lane `lane` (0: low, 1: high) inside a 32-wide half.
TILESCOPE_HD int prefillRowOfSlot(int t, int slot, int lane) { return 8 * slot + 2 * t + lane; }

// The prefill kernel's shared stages: [A: CTA_M x CTA_K fp16, chunk-swizzled rows][B: the tile's 32 row
// groups x CTA_K int16, copied verbatim from [N/4, K] in 16-byte chunks][128 scales][128 scaled zeros].
inline constexpr int kPrefillRowGroups = 32;  // 128 columns / 4 interleaved rows
TILESCOPE_HD constexpr int prefillStageBytes(int ctaM, int ctaK) { return ctaM * ctaK * 2 + kPrefillRowGroups * ctaK * 2 + 2 * 128 * 2; }
// Stages the kernel keeps: the planner's, except the 64-deep buckets, whose smaller claim (50,176 B for
// M > 192) holds three 12,800-byte stages, not four.
TILESCOPE_HD constexpr int prefillRingStages(int ctaK, int stages) { return ctaK == 64 ? 3 : stages; }
// Chunk (16 B, 0..ctaK/8-1) of a row group's CTA_K span that holds column j's (0..3) half `half` of the
// span's K block `block`: the gemv_fast block is 4 columns x 2 halves x 16 B (see prefillWordOf).
TILESCOPE_HD constexpr int prefillBChunk(int block, int j, int half) { return block * 8 + j * 2 + half; }
// Byte offset of that chunk inside a stage's B: odd row groups swap the two halves, so the 8 columns an
// ldmatrix reads (two row groups, 4 columns each) land in 8 distinct 16-byte bank groups.
TILESCOPE_HD constexpr int prefillBOffset(int rowGroup, int chunk, int ctaK) { return rowGroup * ctaK * 2 + (chunk ^ (rowGroup & 1)) * 16; }
// Nibble slot s (0..3) of both 16-bit lanes of a word as fp16x2 with one shift per word: slots 2 and 3
// read the word shifted right by 8 (prefillSlotLanes). Even slots then sit in mantissa bits 0-3: OR-ed
// into 0x6400 (1024, mantissa step 1) they read 1024 + q; odd slots sit in bits 4-7: OR-ed into 0x5400
// (64, mantissa step 1/16) they read 64 + q. Subtracting the magic gives q exactly.
TILESCOPE_HD constexpr unsigned prefillSlotLanes(unsigned word, int slot) { return slot >= 2 ? word >> 8 : word; }
TILESCOPE_HD constexpr unsigned prefillSlotMask(int slot) { return slot % 2 != 0 ? 0x00f000f0u : 0x000f000fu; }
TILESCOPE_HD constexpr unsigned prefillSlotMagic(int slot) { return slot % 2 != 0 ? 0x54005400u : 0x64006400u; }

// Split-k of the prefill kernel: contiguous runs of K tiles per split (upstream: cta_offset_k =
// blockIdx_z * (K / SPLITK)); every tile is covered even when the split does not divide them.
TILESCOPE_HD long long prefillFirstTile(long long tiles, int split, int splitK) {
    const long long per = (tiles + splitK - 1) / splitK;
    const long long first = split * per;
    return first < tiles ? first : tiles;
}
TILESCOPE_HD long long prefillTilesOfSplit(long long tiles, int split, int splitK) {
    const long long per = (tiles + splitK - 1) / splitK;
    const long long first = prefillFirstTile(tiles, split, splitK);
    return (first + per < tiles ? first + per : tiles) - first;
}

// The K chunks a split owns: chunk = split, split + splitK, ... < chunks.
TILESCOPE_HD long long chunksOfSplit(long long chunks, int split, int splitK) {
    return split >= chunks ? 0 : (chunks - split + splitK - 1) / splitK;
}

}  // namespace tilescope::awq

// Index maths of the attention kernels, shared by the kernels, the reference and the CPU tests.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::attention {

// Causal masks align the last query with the last key (FlashAttention >= 2.1): query i sees
// keys 0 .. i + seqlen_k - seqlen_q. Returns the last visible key (may be < 0: none).
TILESCOPE_HD long long lastVisibleKey(long long query, long long seqlenQ, long long seqlenK, bool causal) {
    return causal ? query + seqlenK - seqlenQ : seqlenK - 1;
}

// K/V tiles a block of query rows [row0, row0 + blockM) must visit.
TILESCOPE_HD long long keyTilesForBlock(long long row0, long long blockM, long long blockN, long long seqlenQ, long long seqlenK,
                                        bool causal) {
    long long lastRow = row0 + blockM - 1;
    if (lastRow > seqlenQ - 1) lastRow = seqlenQ - 1;
    long long last = lastVisibleKey(lastRow, seqlenQ, seqlenK, causal);
    if (last > seqlenK - 1) last = seqlenK - 1;
    return last < 0 ? 0 : (last + blockN) / blockN;
}

// Shared-memory row stride (elements) of a head dimension: FA2 uses the head-dim bucket the
// planner chose; the SM120 tile search rounds up to 16 (sglang fa4_sm120 flash_fwd.py).
inline constexpr int kSm120HeadDimMultiple = 16;
TILESCOPE_HD int roundHeadDim(int headDim, int multiple) { return (headDim + multiple - 1) / multiple * multiple; }
// "Sheared" (256,256) tiles pad each Q row by 16 bytes: 8 fp16/bf16 elements.
inline constexpr int kShearElements = 8;

// Rows of Q a warp owns: at least one 16-row MMA tile, so small tiles leave warps without rows.
TILESCOPE_HD constexpr int rowsPerWarp(int blockM, int warps) { return blockM / warps >= 16 ? blockM / warps : 16; }

// ---- Swizzled shared-memory tiles (the FA2 kernels and the SM120 search) ------------------------
// A tile of `rows` rows x `chunks` 16-byte chunks (8 fp16/bf16 elements each) is stored as column
// atoms of 2^logAtom chunks (atom widths 16, 32 or 64 elements): atom a holds rows 0..rows-1 of
// chunks [a * 2^logAtom, (a + 1) * 2^logAtom), row after row. Inside an atom, 8 consecutive rows
// fill 8 x 16 B "bank groups" (one 128-byte line = all 32 banks): a row of 2^logAtom chunks takes
// 2^logAtom groups and 8 / 2^logAtom rows share a line. The chunk index inside the atom is XORed
// with (row / rowsPerLine) mod 2^logAtom, so the 8 rows one ldmatrix 8x8 matrix reads (same logical
// chunk, rows r0..r0+7 with r0 % 8 == 0) land in 8 different bank groups: no bank conflict.
// logAtom 3 is flash-attention's Swizzle<3,3,3> on 64-element rows; logAtom 2 is its
// Swizzle<2,3,3> on 32-element rows (kBlockKSmem 32, d % 64 != 0).
TILESCOPE_HD constexpr int swizzleXor(int row, int logAtom) { return (row >> (3 - logAtom)) & ((1 << logAtom) - 1); }
// Offset in 16-byte chunks of logical (row, chunk). `rows` must be a multiple of 8.
TILESCOPE_HD constexpr int swizzledChunk(int row, int chunk, int rows, int logAtom) {
    const int atomChunks = 1 << logAtom;
    const int atom = chunk >> logAtom, inAtom = chunk & (atomChunks - 1);
    return atom * rows * atomChunks + row * atomChunks + (inAtom ^ swizzleXor(row, logAtom));
}
// Copies: per 2^logAtom-chunk atom, thread `tid` of the block copies row tid >> logAtom (plus
// multiples of threads >> logAtom) and chunk tid % 2^logAtom of the atom; 8 consecutive threads
// (one 16-byte store phase) then fill exactly one 128-byte line of shared memory.
struct RowChunk {
    int row, chunk;
};
TILESCOPE_HD constexpr RowChunk copyLane(int tid, int logAtom) { return {tid >> logAtom, tid & ((1 << logAtom) - 1)}; }
// Generic order for the element-by-element fallback: linear i < rows * chunks -> (row, chunk),
// atom by atom and row by row inside an atom.
TILESCOPE_HD constexpr RowChunk copyCoordinates(int i, int rows, int logAtom) {
    const int atomChunks = 1 << logAtom;
    const int atom = i / (rows * atomChunks), inside = i % (rows * atomChunks);
    return {inside >> logAtom, atom * atomChunks + (inside & (atomChunks - 1))};
}
// The swizzle is additive over aligned blocks: for row0 % 8 == 0, chunk0 even and c in {0, 1},
//   swizzledChunk(row0 + r, chunk0 + c) == blockChunkOffset(row0, chunk0)
//                                         + swizzledChunk(r, chunk0 % 2^logAtom + c)
// so a lane keeps 2^logAtom / 2 base addresses per tile and every fragment address is one of
// them plus a compile-time offset (and the same holds for copies: r = tid >> logAtom, c = 0).
TILESCOPE_HD constexpr int blockChunkOffset(int row0, int chunk0, int rows, int logAtom) {
    return (chunk0 >> logAtom) * rows * (1 << logAtom) + row0 * (1 << logAtom);
}
// Atom width for a head dimension padded to `dimPad` elements (a multiple of 16): the widest of
// 64 / 32 / 16 elements that divides it.
TILESCOPE_HD constexpr int logAtomFor(int dimPad) { return dimPad % 64 == 0 ? 3 : (dimPad % 32 == 0 ? 2 : 1); }

// ldmatrix.x4 lane -> (row, chunk) of the four 8x8 matrices it addresses, relative to a 16-row /
// 2-chunk block (row r0, chunk c0). Matrix j = lane / 8, row inside it = lane % 8.
//  A (Q, m16 x k16): matrices (rows 0-7, c0) (rows 8-15, c0) (rows 0-7, c0+1) (rows 8-15, c0+1)
//    -> registers a0..a3 of mma.m16n8k16.
//  B from K rows (n16 x k16, non-transposed): (keys 0-7, c0) (keys 0-7, c0+1) (keys 8-15, c0)
//    (keys 8-15, c0+1) -> b0, b1 of key tile n0 and b0, b1 of key tile n0 + 8.
//  B from V rows (k16 x n16, .trans): (keys 0-7, c0) (keys 8-15, c0) (keys 0-7, c0+1)
//    (keys 8-15, c0+1) -> b0, b1 of value columns 8 c0.. and b0, b1 of 8 (c0 + 1)..
TILESCOPE_HD constexpr RowChunk ldmatrixA(int lane) { return {(lane & 7) + ((lane >> 3) & 1) * 8, lane >> 4}; }
TILESCOPE_HD constexpr RowChunk ldmatrixBFromRows(int lane) { return {(lane & 7) + (lane >> 4) * 8, (lane >> 3) & 1}; }
TILESCOPE_HD constexpr RowChunk ldmatrixBTrans(int lane) { return {(lane & 7) + ((lane >> 3) & 1) * 8, lane >> 4}; }

// Does K/V tile `key0` need the mask (causal diagonal or the ragged seqlen_k edge) for any row of
// the block starting at row0? Tiles left of the diagonal and inside seqlen_k do not.
TILESCOPE_HD bool tileNeedsMask(long long row0, long long key0, long long blockN, long long seqlenQ, long long seqlenK, bool causal) {
    if (key0 + blockN > seqlenK) return true;
    return causal && key0 + blockN - 1 > lastVisibleKey(row0, seqlenQ, seqlenK, causal);
}

}  // namespace tilescope::attention

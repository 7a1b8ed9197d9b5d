// Geometry of the gemm_bucket kernels (tiles, swap, column strips, swizzle, stages), shared by the
// planner, the device code and the CPU tests. Figures mirror sglang jit/csrc/kimi_k3/comm/gemm_ar.cuh.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::bucket {

inline constexpr int kBlockK = 64;       // k per chunk: one 128-byte bf16 row, the 128-byte swizzle span (kBK)
inline constexpr int kTileRows = 128;    // the stage's 16 KB part: 128 rows x 64 k (kD3BM)
inline constexpr int kGridCap = 152;     // grid = min(tiles, 152); the small cells' fixed grid (kM1Grid_)
inline constexpr int kRasterGroup = 16;  // tiles walk B-axis stripes this wide (kD3GroupN)
inline constexpr int kLargeWarps = 8;    // 256 threads (kD3Threads)

// Cells 8 and 16 (gemm_ar.cuh oproj_ar_kernel): M pads to one m16 tile; 6 consumer warps, each
// owning one 8-column tile of a strip, plus a producer warp; a stage is kSmallChunks k-chunks of
// 48 weight rows + 16 activation rows; 6 stages.
inline constexpr int kSmallRows = 16;                                 // Mp = (M + 15) & ~15
inline constexpr int kSmallConsumerWarps = 6;                         // kCWarps
inline constexpr int kSmallThreads = (kSmallConsumerWarps + 1) * 32;  // kThreads = 224
inline constexpr int kSmallStripRows = 8 * kSmallConsumerWarps;       // kBNRows = 48
inline constexpr int kSmallChunks = 2;                                // CH
inline constexpr int kSmallStages = 6;                                // S for Mp <= 16
inline constexpr int kColumnTile = 8;                                 // n8: the unit the strips are made of

// Bytes of one k-chunk holding `rowsA + rowsB` rows of 64 bf16 (planner: 16,384 + BN*128).
TILESCOPE_HD constexpr long long stageBytes(long long rowsA, long long rowsB) { return (rowsA + rowsB) * kBlockK * 2; }
TILESCOPE_HD int stagesThatFit(long long smemBytes, long long bytesPerStage) {
    return bytesPerStage > 0 ? static_cast<int>(smemBytes / bytesPerStage) : 0;
}

// 128-byte XOR swizzle: the 16-byte chunk c (8 bf16) of row r lives at chunk c ^ (r % 8), so the 8
// rows an ldmatrix phase reads at one logical chunk hit 8 different bank groups.
TILESCOPE_HD constexpr int swizzledChunk(int row, int chunk) { return chunk ^ (row & 7); }
TILESCOPE_HD constexpr int swizzledOffset(int row, int chunk) { return row * (kBlockK * 2) + (swizzledChunk(row, chunk) << 4); }

// Copy maps of the kernels: with `threads` threads, thread t copies the 16-byte column t % 8 of the
// stage rows t / 8 + pass * (threads / 8). With the large cells' 256 threads (32 rows a pass) a row
// keeps row % 8 from pass to pass, so its swizzled destination is pass 0's plus pass * 32 rows.
TILESCOPE_HD constexpr int copyColumn(int tid) { return tid % 8; }
TILESCOPE_HD constexpr int copyRow(int tid, int pass, int threads) { return tid / 8 + pass * (threads / 8); }
// Cells 8 and 16: stage row q in [0, 128) is k-chunk q / 64, row q % 64 of it (48 weight rows, then
// the 16 activation rows); each k-chunk is 64 rows of 128 bytes.
TILESCOPE_HD constexpr int smallStageOffset(int q, int column) { return (q / 64) * (64 * kBlockK * 2) + swizzledOffset(q % 64, column); }

// Cells 8 and 16: the N/8 column tiles spread over `ctas` CTAs, the first N/8 % ctas one tile more.
struct ColumnStrip {
    int first = 0;  // first n8 tile
    int count = 0;  // n8 tiles (0 when N/8 < ctas and this CTA is past them)
};
TILESCOPE_HD ColumnStrip columnStrip(int cta, int ctas, int columnTiles) {
    const int base = columnTiles / ctas, extra = columnTiles % ctas;
    ColumnStrip s;
    if (cta < extra) {
        s.count = base + 1;
        s.first = cta * (base + 1);
    } else {
        s.count = base;
        s.first = extra * (base + 1) + (cta - extra) * base;
    }
    return s;
}

// Cells >= 32 (gemm_ar.cuh Launcher3): swap for cells <= 64, so the 128-row A part of a stage holds
// weight rows and the BN-row B part tokens; otherwise A holds 128 token rows and B BN weight rows.
TILESCOPE_HD constexpr bool swapsOperands(int cell) { return cell <= 64; }
TILESCOPE_HD constexpr int paddedRows(int cell) {  // Mp
    return swapsOperands(cell) ? (cell < 16 ? 16 : (cell + 15) / 16 * 16) : (cell + kTileRows - 1) / kTileRows * kTileRows;
}
TILESCOPE_HD constexpr int blockN(int cell) {  // kBN: swap 16 / 32, else d3_bn(Mp)
    const int mp = paddedRows(cell);
    if (swapsOperands(cell)) return mp <= 32 ? 16 : 32;
    return mp <= 128 ? 64 : (mp == 256 ? 128 : 256);
}
TILESCOPE_HD constexpr long long tilesAlongA(long long n, int cell) {
    return swapsOperands(cell) ? n / kTileRows : paddedRows(cell) / kTileRows;
}
TILESCOPE_HD constexpr long long tilesAlongB(long long n, int cell) {
    return swapsOperands(cell) ? paddedRows(cell) / blockN(cell) : n / blockN(cell);
}
TILESCOPE_HD constexpr long long tileCount(long long n, int cell) { return tilesAlongA(n, cell) * tilesAlongB(n, cell); }
TILESCOPE_HD constexpr long long gridFor(long long tiles) { return tiles < kGridCap ? tiles : kGridCap; }

// d3_ns: the deepest ring of (16,384 + BN * 128)-byte stages 220 KB holds, at most 12 (mbarrier arrays).
inline constexpr long long kStageBudget = 225280;
inline constexpr int kMaxStages = 12;
TILESCOPE_HD constexpr int largeStages(int blockN) {
    const long long fit = kStageBudget / stageBytes(kTileRows, blockN);
    return fit < kMaxStages ? static_cast<int>(fit) : kMaxStages;
}

// Linear tile index -> (A tile, B tile): stripes of kRasterGroup B tiles (the last may be narrower);
// inside a stripe B varies fastest, so CTAs running together share A rows and the stripe's B rows in L2.
struct TileCoord {
    long long a = 0, b = 0;
};
TILESCOPE_HD TileCoord tileCoordinates(long long linear, long long tilesA, long long tilesB) {
    const long long perGroup = tilesA * kRasterGroup;
    const long long group = linear / perGroup;
    const long long firstB = group * kRasterGroup;
    const long long width = tilesB - firstB < kRasterGroup ? tilesB - firstB : kRasterGroup;
    const long long inGroup = linear - group * perGroup;
    return {inGroup / width, firstB + inGroup % width};
}

}  // namespace tilescope::bucket

// Host checks of the attention kernels' shared-memory maths (kernels/attention/attention_index.h):
// the swizzle is a bijection, ldmatrix rows and copy store phases are bank-conflict free, the
// per-lane offsets plus compile-time offsets equal the swizzle, and an emulation of ldmatrix(.trans)
// on a swizzled tile gives exactly the mma.m16n8k16 fragments the kernel assumes.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "kernels/attention/attention_index.h"

namespace tilescope {
namespace {

using attention::blockChunkOffset;
using attention::RowChunk;
using attention::swizzledChunk;

struct Geometry {
    int rows, chunks, logAtom;
};

// Every tile the kernels build: FA2 Q/K/V tiles per bucket (rows 32..128, atoms 32/64 elements)
// and SM120 tiles (rows 32..128, 16-element atoms, any even chunk count up to 1024 / 8).
std::vector<Geometry> geometries() {
    std::vector<Geometry> list;
    for (int rows : {32, 48, 64, 128}) {
        for (int bucket : {32, 64, 96, 128, 192, 256}) list.push_back({rows, bucket / 8, attention::logAtomFor(bucket)});
        for (int dim = 16; dim <= 1024; dim += 16) list.push_back({rows, dim / 8, 1});
    }
    return list;
}

int atomChunks(int logAtom) { return 1 << logAtom; }

TEST(AttentionSwizzle, AtomWidthPerBucket) {
    EXPECT_EQ(attention::logAtomFor(32), 2);
    EXPECT_EQ(attention::logAtomFor(64), 3);
    EXPECT_EQ(attention::logAtomFor(96), 2);
    EXPECT_EQ(attention::logAtomFor(128), 3);
    EXPECT_EQ(attention::logAtomFor(192), 3);
    EXPECT_EQ(attention::logAtomFor(256), 3);
    EXPECT_EQ(attention::logAtomFor(80), 1);
}

TEST(AttentionSwizzle, IsABijectionOntoTheTile) {
    for (const Geometry& g : geometries()) {
        ASSERT_EQ(g.chunks % atomChunks(g.logAtom), 0);
        std::vector<int> seen(static_cast<std::size_t>(g.rows * g.chunks), 0);
        for (int r = 0; r < g.rows; ++r)
            for (int c = 0; c < g.chunks; ++c) {
                const int o = swizzledChunk(r, c, g.rows, g.logAtom);
                ASSERT_GE(o, 0);
                ASSERT_LT(o, g.rows * g.chunks);
                ++seen[static_cast<std::size_t>(o)];
            }
        for (int n : seen) ASSERT_EQ(n, 1) << g.rows << "x" << g.chunks << " log " << g.logAtom;
    }
}

// ldmatrix reads 8 rows (r0 % 8 == 0) at one logical chunk per 8x8 matrix: 8 bank groups.
TEST(AttentionSwizzle, LdmatrixRowsHitEightBankGroups) {
    for (const Geometry& g : geometries())
        for (int r0 = 0; r0 < g.rows; r0 += 8)
            for (int c = 0; c < g.chunks; ++c) {
                std::set<int> groups;
                for (int i = 0; i < 8; ++i) groups.insert(swizzledChunk(r0 + i, c, g.rows, g.logAtom) % 8);
                ASSERT_EQ(groups.size(), 8u) << g.rows << "x" << g.chunks << " r0 " << r0 << " c " << c;
            }
}

// The vector copy: thread tid copies (rowStep + copyLane.row, atomChunk + copyLane.chunk); every
// element once, its shared offset is the per-thread base plus a compile-time offset, and the 8
// threads of each store phase fill one 128-byte line.
TEST(AttentionSwizzle, CopiesCoverTheTileOnceInWholeLines) {
    for (const Geometry& g : geometries())
        for (int threads : {128, 256}) {
            const int rowsPerStep = threads >> g.logAtom;
            std::vector<int> seen(static_cast<std::size_t>(g.rows * g.chunks), 0);
            for (int rowStep = 0; rowStep < g.rows; rowStep += rowsPerStep)
                for (int atomChunk = 0; atomChunk < g.chunks; atomChunk += atomChunks(g.logAtom)) {
                    std::vector<int> phase;
                    for (int tid = 0; tid < threads; ++tid) {
                        const RowChunk me = attention::copyLane(tid, g.logAtom);
                        const int row = rowStep + me.row, chunk = atomChunk + me.chunk;
                        if (row >= g.rows) {  // the kernel stops there (48-row tiles)
                            phase.clear();
                            continue;
                        }
                        const int o = swizzledChunk(row, chunk, g.rows, g.logAtom);
                        ASSERT_EQ(o, blockChunkOffset(rowStep, atomChunk, g.rows, g.logAtom) +
                                         swizzledChunk(me.row, me.chunk, g.rows, g.logAtom));
                        ++seen[static_cast<std::size_t>(o)];
                        phase.push_back(o);
                        if (tid % 8 == 7) {
                            ASSERT_EQ(phase.size(), 8u);
                            std::set<int> groups, lines;
                            for (int x : phase) {
                                groups.insert(x % 8);
                                lines.insert(x / 8);
                            }
                            ASSERT_EQ(groups.size(), 8u);
                            ASSERT_EQ(lines.size(), 1u);
                            phase.clear();
                        }
                    }
                }
            for (int n : seen) ASSERT_EQ(n, 1) << g.rows << "x" << g.chunks << " threads " << threads;
        }
}

// LaneOffsets (flash_forward.cuh): offset(lane, even in-atom chunk a) + blockChunkOffset(row0,
// chunk0) == swizzledChunk(row0 + lane row, chunk0 + lane chunk), for blocks at row0 % 16 == 0,
// even chunk0; and the QK^T loop's split chunk0 = atomChunk + a0 adds atomChunk * rows.
TEST(AttentionSwizzle, LaneOffsetsPlusBlockOffsetsEqualTheSwizzle) {
    for (const Geometry& g : geometries())
        for (int lane = 0; lane < 32; ++lane)
            for (RowChunk l : {attention::ldmatrixA(lane), attention::ldmatrixBFromRows(lane), attention::ldmatrixBTrans(lane)})
                for (int row0 = 0; row0 + 16 <= g.rows; row0 += 16)
                    for (int chunk0 = 0; chunk0 < g.chunks; chunk0 += 2) {
                        const int inAtom = chunk0 & (atomChunks(g.logAtom) - 1);
                        const int laneOffset = swizzledChunk(l.row, inAtom + l.chunk, 8, g.logAtom);
                        const int expect = swizzledChunk(row0 + l.row, chunk0 + l.chunk, g.rows, g.logAtom);
                        ASSERT_EQ(laneOffset + blockChunkOffset(row0, chunk0, g.rows, g.logAtom), expect);
                        const int atomChunk = chunk0 - inAtom;
                        ASSERT_EQ(laneOffset + blockChunkOffset(row0, inAtom, g.rows, g.logAtom) +
                                      blockChunkOffset(0, atomChunk, 1, g.logAtom) * g.rows,
                                  expect);
                    }
}

// Emulates ldmatrix.x4 (and .trans) on a swizzled tile whose logical element (row, col) holds
// row * 4096 + col, and checks each lane's registers against the mma.m16n8k16 fragment layout
// (g = lane / 4, t = lane % 4; a register holds two 16-bit elements, the first in the low half).
struct Pair {
    int lo, hi;
    bool operator==(const Pair& o) const { return lo == o.lo && hi == o.hi; }
};
int id(int row, int col) { return row * 4096 + col; }

class SwizzledTile {
public:
    SwizzledTile(int rows, int chunks, int logAtom) : m_rows(rows), m_log(logAtom), m_data(static_cast<std::size_t>(rows * chunks * 8)) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < chunks * 8; ++c)
                m_data[static_cast<std::size_t>(swizzledChunk(r, c / 8, rows, logAtom) * 8 + c % 8)] = id(r, c);
    }
    // The 8 elements of the 16-byte row at shared chunk offset `chunkOffset`.
    const int* chunk(int chunkOffset) const { return &m_data[static_cast<std::size_t>(chunkOffset * 8)]; }
    // ldmatrix.x4: lane L supplies the address of row L % 8 of matrix L / 8 (via the lane map and
    // the block at row0/chunk0); returns each lane's 4 registers.
    std::vector<std::vector<Pair>> load(RowChunk (*laneMap)(int), int row0, int chunk0, bool trans) const {
        int rowChunk[4][8];
        for (int lane = 0; lane < 32; ++lane) {
            const RowChunk l = laneMap(lane);
            rowChunk[lane / 8][lane % 8] = swizzledChunk(row0 + l.row, chunk0 + l.chunk, m_rows, m_log);
        }
        std::vector<std::vector<Pair>> regs(32, std::vector<Pair>(4));
        for (int lane = 0; lane < 32; ++lane)
            for (int j = 0; j < 4; ++j) {
                if (!trans) {
                    const int* row = chunk(rowChunk[j][lane / 4]);
                    regs[lane][j] = {row[2 * (lane % 4)], row[2 * (lane % 4) + 1]};
                } else {
                    regs[lane][j] = {chunk(rowChunk[j][2 * (lane % 4)])[lane / 4], chunk(rowChunk[j][2 * (lane % 4) + 1])[lane / 4]};
                }
            }
        return regs;
    }

private:
    int m_rows, m_log;
    std::vector<int> m_data;
};

TEST(AttentionSwizzle, LdmatrixGivesTheMmaFragments) {
    for (const Geometry& g : geometries()) {
        if (g.chunks > 32) continue;  // the maths repeat per atom; keep the run short
        const SwizzledTile tile(g.rows, g.chunks, g.logAtom);
        for (int row0 = 0; row0 + 16 <= g.rows; row0 += 16)
            for (int chunk0 = 0; chunk0 < g.chunks; chunk0 += 2) {
                const int col0 = chunk0 * 8;
                const auto a = tile.load(attention::ldmatrixA, row0, chunk0, false);
                const auto k = tile.load(attention::ldmatrixBFromRows, row0, chunk0, false);
                const auto v = tile.load(attention::ldmatrixBTrans, row0, chunk0, true);
                for (int lane = 0; lane < 32; ++lane) {
                    const int gr = lane / 4, t = lane % 4;
                    // A (m16 x k16): a0 (g, 2t) a1 (g + 8, 2t) a2 (g, 2t + 8) a3 (g + 8, 2t + 8).
                    for (int j = 0; j < 4; ++j) {
                        const int r = row0 + gr + 8 * (j & 1), c = col0 + 2 * t + 8 * (j >> 1);
                        ASSERT_EQ(a[lane][j], (Pair{id(r, c), id(r, c + 1)})) << "A lane " << lane << " reg " << j;
                    }
                    // B from K rows (n = key, k = dim): b0 (k 2t, n g), b1 (k 2t + 8, n g) of key
                    // tile row0, then the same for key tile row0 + 8.
                    for (int j = 0; j < 4; ++j) {
                        const int key = row0 + gr + 8 * (j >> 1), dim = col0 + 2 * t + 8 * (j & 1);
                        ASSERT_EQ(k[lane][j], (Pair{id(key, dim), id(key, dim + 1)})) << "K lane " << lane << " reg " << j;
                    }
                    // B from V rows, transposed (k = key, n = value column): b0 (keys 2t, 2t + 1;
                    // column g), b1 (keys 2t + 8, +9), for columns col0.. then col0 + 8..
                    for (int j = 0; j < 4; ++j) {
                        const int key = row0 + 2 * t + 8 * (j & 1), col = col0 + gr + 8 * (j >> 1);
                        ASSERT_EQ(v[lane][j], (Pair{id(key, col), id(key + 1, col)})) << "V lane " << lane << " reg " << j;
                    }
                }
            }
    }
}

// Unmasked tiles need no mask for any row of the block; the diagonal and ragged tiles are masked.
TEST(AttentionSwizzle, OnlyDiagonalAndRaggedTilesAreMasked) {
    for (int seqlenQ : {1, 7, 33, 129, 256, 1000})
        for (int seqlenK : {1, 16, 64, 65, 256, 1000})
            for (bool causal : {false, true})
                for (int blockM : {64, 128})
                    for (int blockN : {32, 64, 128})
                        for (int row0 = 0; row0 < seqlenQ; row0 += blockM) {
                            const long long tiles = attention::keyTilesForBlock(row0, blockM, blockN, seqlenQ, seqlenK, causal);
                            for (long long tile = 0; tile < tiles; ++tile) {
                                const long long key0 = tile * blockN;
                                bool anyHidden = false;
                                for (int row = row0; row < row0 + blockM && row < seqlenQ; ++row)
                                    for (long long key = key0; key < key0 + blockN; ++key)
                                        if (key >= seqlenK || key > attention::lastVisibleKey(row, seqlenQ, seqlenK, causal))
                                            anyHidden = true;
                                const bool masked = attention::tileNeedsMask(row0, key0, blockN, seqlenQ, seqlenK, causal);
                                if (anyHidden) {
                                    ASSERT_TRUE(masked) << seqlenQ << " " << seqlenK << " " << row0 << " " << key0;
                                }
                            }
                        }
    // Causal 256 x 256, 128 x 64 tiles: block 1 masks only its two diagonal tiles.
    EXPECT_FALSE(attention::tileNeedsMask(128, 0, 64, 256, 256, true));
    EXPECT_FALSE(attention::tileNeedsMask(128, 64, 64, 256, 256, true));
    EXPECT_TRUE(attention::tileNeedsMask(128, 128, 64, 256, 256, true));
    EXPECT_TRUE(attention::tileNeedsMask(128, 192, 64, 256, 256, true));
    EXPECT_FALSE(attention::tileNeedsMask(0, 0, 64, 256, 256, false));
    EXPECT_TRUE(attention::tileNeedsMask(0, 960, 64, 1000, 1000, false));  // ragged seqlen_k edge
}

}  // namespace
}  // namespace tilescope

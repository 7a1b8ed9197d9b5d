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
TILESCOPE_HD long long keyTilesForBlock(long long row0, long long blockM, long long blockN, long long seqlenQ,
                                        long long seqlenK, bool causal) {
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

}  // namespace tilescope::attention

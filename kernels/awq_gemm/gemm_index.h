// Block-index maths of the awq_gemm kernels, shared by the kernels and the CPU tests.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::awq {

struct GemmBlock {
    long long mTile;
    long long nTile;
    int split;
};

// One block per (M tile, N tile, split): split varies fastest, then the N tile.
TILESCOPE_HD GemmBlock decodeGemmBlock(long long linear, long long nTiles, int splitK) {
    const long long tile = linear / splitK;
    return {tile / nTiles, tile % nTiles, static_cast<int>(linear % splitK)};
}

// The K chunks a split owns: chunk = split, split + splitK, ... < chunks.
TILESCOPE_HD long long chunksOfSplit(long long chunks, int split, int splitK) {
    return split >= chunks ? 0 : (chunks - split + splitK - 1) / splitK;
}

// Pipeline stages of the prefill kernel: the planner's (upstream) stage count, less when the
// dynamic shared memory it grants (upstream's formula) cannot also hold the 16-row dequantised
// slice our kernel feeds to the tensor cores. Never below 1 while one stage and the slice fit.
TILESCOPE_HD int prefillStagesThatFit(long long smemBytes, long long stageBytes, long long sliceBytes, int maxStages) {
    if (stageBytes <= 0) return 0;
    const long long fit = (smemBytes - sliceBytes) / stageBytes;
    return static_cast<int>(fit < maxStages ? (fit < 0 ? 0 : fit) : maxStages);
}

}  // namespace tilescope::awq

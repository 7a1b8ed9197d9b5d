// Index maths of the split-KV attention kernels (split_kv.cuh), shared with the CPU tests: the
// shared-memory swizzle, each split's share of K/V blocks and the fp32 accumulator's layout.
// The partition and layout follow flash-attention v2.8.3 flash_fwd_kernel.h
// (compute_attn_1rowblock_splitkv, combine_attn_seqk_parallel); the code is ours.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::attention {

inline constexpr int kSplitKvBlockM = 64;    // query rows per split-KV CTA (all head dims)
inline constexpr int kSplitKvThreads = 128;  // 4 warps, one 16-row MMA strip each
inline constexpr int kChunkElements = 8;     // fp16/bf16 elements per 16-byte chunk

// Physical 16-byte chunk of logical chunk `chunk` in row `row` of a row-major tile with
// `chunksPerRow` chunks per row. Rows that are a multiple of 128 B XOR the chunk's low 3 bits
// with row % 8; 64 B / 192 B rows (head dims 32, 96) XOR the low 2 bits with (row / 2) % 4. Either
// way the eight rows an ldmatrix reads at one logical chunk land in eight different bank groups,
// and the chunk stays inside its row.
TILESCOPE_HD int splitKvSwizzledChunk(int row, int chunk, int chunksPerRow) {
    return chunksPerRow % 8 == 0 ? (chunk ^ (row & 7)) : ((chunk & ~3) | ((chunk ^ (row >> 1)) & 3));
}

// Element offset of (row, col) in a swizzled [rows][dim] tile (col may be any element).
TILESCOPE_HD int splitKvSwizzledOffset(int row, int col, int dim) {
    const int chunksPerRow = dim / kChunkElements;
    return row * dim + splitKvSwizzledChunk(row, col / kChunkElements, chunksPerRow) * kChunkElements + col % kChunkElements;
}

// K/V blocks [begin, end) of one split: ceil(blocks / splits) blocks each, the last splits may
// get fewer or none (begin >= end: the split writes zeros and an LSE of -inf).
struct KeyBlockRange {
    long long begin, end;
};
TILESCOPE_HD KeyBlockRange splitKeyBlocks(long long seqlenK, int blockN, int split, int numSplits) {
    const long long blocks = (seqlenK + blockN - 1) / blockN;
    const long long perSplit = (blocks + numSplits - 1) / numSplits;
    const long long begin = split * perSplit;
    const long long end = (split + 1) * perSplit < blocks ? (split + 1) * perSplit : blocks;
    return {begin, end};
}

// Row of softmax_lse_accum [splits, batch, heads, seqlen_q]; out_accum rows have headDimRounded floats.
TILESCOPE_HD long long accumRow(int split, long long batch, long long head, long long query, long long batches, long long heads,
                                long long seqlenQ) {
    return ((split * batches + batch) * heads + head) * seqlenQ + query;
}

// The combine kernel works on flat rows (batch, head, query); the output O is [batch, seqlen_q, heads, d_v].
TILESCOPE_HD long long outputRowOfFlatRow(long long flat, long long heads, long long seqlenQ) {
    const long long batch = flat / (heads * seqlenQ);
    const long long head = flat / seqlenQ % heads;
    const long long query = flat % seqlenQ;
    return (batch * seqlenQ + query) * heads + head;
}

// Power-of-two split capacity of the combine's LSE table (upstream's kMaxSplits, at least 2).
TILESCOPE_HD int combineMaxSplits(int splits) {
    int capacity = 2;
    while (capacity < splits) capacity *= 2;
    return capacity;
}

}  // namespace tilescope::attention

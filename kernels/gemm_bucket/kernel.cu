// gemm_bucket device code: out[M, N] = x[M, K] @ W[N, K]^T in bf16 at the launch geometry of sglang's
// o_proj gemm_ar (single-GPU form; KERNELS.md section 4, bucket_index.h). The code is ours. Upstream's
// cells >= 32 use sm_100 tcgen05 + TMA; here every cell runs mma.sync m16n8k16 (sm_80+) at the same
// tiles, fed by a cp.async ring of 128-byte-XOR-swizzled rows read back with ldmatrix.
// Contract (the planner checks it): K % 128 == 0, N % 256 == 0, 1 <= M <= cell. Rows of x at or past
// M read as zero; output rows at or past M are not stored (upstream slices out[:M]).
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/mma.cuh"
#include "kernels/device_kernels.h"
#include "kernels/gemm_bucket/bucket_index.h"
#include "kernels/gemm_bucket/params.h"

namespace tilescope {
namespace {

using bf16 = __nv_bfloat16;
namespace dev = device;

[[maybe_unused]] constexpr int kWarpSize = 32;
[[maybe_unused]] constexpr int kRowBytes = bucket::kBlockK * 2;  // one k-chunk row: 128 B = 8 16-byte chunks
[[maybe_unused]] constexpr int kChunksPerRow = kRowBytes / 16;

[[maybe_unused]] __device__ __forceinline__ std::uint32_t packBf16(float lo, float hi) { return dev::packPair<bf16>(lo, hi); }

// Predicated 16-byte cp.async through L2 (.cg), sm_80+: nothing is issued when `issue` is 0; with
// `srcBytes` 0 nothing is read and the 16 bytes are zero-filled. Being predicated rather than behind a
// branch, the copies stay in the same basic block as the MMAs and ptxas can interleave them.
[[maybe_unused]] __device__ __forceinline__ void copy16If(std::uint32_t dst, const void* src, std::uint32_t srcBytes, std::uint32_t issue) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %3, 0;\n\t@p cp.async.cg.shared.global [%0], [%1], 16, %2;\n\t}\n" ::"r"(dst),
                 "l"(src), "r"(srcBytes), "r"(issue)
                 : "memory");
#else
    (void)dst;
    (void)src;
    (void)srcBytes;
    (void)issue;
    __trap();
#endif
}

// ---- cells >= 32 -----------------------------------------------------------------------------
// One CTA tile = 128 A rows x BN B rows; A is x (W when swapped), B is W (x when swapped). Warps form
// a WarpsM x WarpsN grid; each holds MI m16 x NJ n8 accumulators and, per k16 step, loads MI A and NJ
// B fragments once (ldmatrix x4) and reuses them across its MI * NJ MMAs.
// Pipelining: fragments are double-buffered, so the ldmatrix of k16 step s + 1 is issued before the
// MMAs of step s (across the k-chunk boundary too: the ring barrier sits before the last k16 step's
// MMAs, after which the next slot's first fragments load). A thread's cp.async copies for the slot
// freed by the previous barrier are predicated (no branch) and spread over the first three k16 steps,
// so one k-chunk is a single basic block of 128 MMAs, 32 ldmatrix and the copies.
template <int Cell, int WarpsM, int WarpsN>
__device__ __forceinline__ void largeCellGemm(const GemmBucketParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr bool kSwap = bucket::swapsOperands(Cell);
    constexpr int kBN = bucket::blockN(Cell);
    constexpr int kRowsA = bucket::kTileRows;
    constexpr int kStages = bucket::largeStages(kBN);
    constexpr int kThreads = bucket::kLargeWarps * kWarpSize;
    constexpr int kMI = kRowsA / (WarpsM * 16), kNJ = kBN / (WarpsN * 8);
    constexpr int kStageBytes = static_cast<int>(bucket::stageBytes(kRowsA, kBN));
    constexpr int kKSteps = bucket::kBlockK / 16;                      // k16 steps per k-chunk: 4
    constexpr int kRowsPerPass = kThreads / kChunksPerRow;             // 32 rows per pass of the block
    constexpr int kCopiesA = kRowsA / kRowsPerPass;                    // 4 rows of A per thread
    constexpr int kCopiesB = (kBN + kRowsPerPass - 1) / kRowsPerPass;  // 1 (BN 16: threads of rows < 16 only) .. 8
    constexpr int kCopies = kCopiesA + kCopiesB;
    constexpr int kCopySteps = kKSteps - 1;  // copies go out during k16 steps 0..2; step 3 holds the barrier
    static_assert(WarpsM * WarpsN == bucket::kLargeWarps && kMI >= 1 && kNJ % 2 == 0, "warp grid must tile 128 x BN");
    static_assert(kThreads % kChunksPerRow == 0 && kRowsA % kRowsPerPass == 0, "a thread copies one chunk column of rows r, r + 32, ...");
    static_assert(kBN % kRowsPerPass == 0 || kBN < kRowsPerPass, "BN rows split into whole passes or one partial pass");
    if (p.dynamicSmemBytes < kStages * kStageBytes) __trap();  // the planner's claim must hold the ring

    extern __shared__ __align__(128) unsigned char smem[];
    const std::uint32_t ring = dev::sharedAddress(smem);
    const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarpSize, warp = tid / kWarpSize;
    const int warpM = warp / WarpsN, warpN = warp % WarpsN;
    auto* out = static_cast<bf16*>(p.out);
    const long long k = p.k, n = p.n;

    const long long tilesA = bucket::tilesAlongA(n, Cell), tilesB = bucket::tilesAlongB(n, Cell);
    const long long tiles = tilesA * tilesB;
    const int chunks = p.k / bucket::kBlockK;
    const int myTiles = tiles > blockIdx.x ? static_cast<int>((tiles - blockIdx.x + gridDim.x - 1) / gridDim.x) : 0;
    // (tile, k-chunk) steps run flattened, so the ring streams the next tile while this one is stored.
    const int steps = myTiles * chunks;

    // Loads: this thread copies 16-byte chunk column `copyChunk` of stage rows copyRow + 32 i: i < 4 in the
    // A part, then i - 4 in the B part. Every such row has row % 8 == copyRow % 8, so the swizzled
    // destination is copyDst + 4,096 i, and the global source of copy i is the part's row pointer plus
    // (i mod part) * 32 rows of K.
    const int copyChunk = bucket::copyColumn(tid), copyRow = bucket::copyRow(tid, 0, kThreads);
    const std::uint32_t copyDst = static_cast<std::uint32_t>(bucket::swizzledOffset(copyRow, copyChunk));
    const long long passBytes = k * 2 * kRowsPerPass;
    const auto* xBytes = static_cast<const unsigned char*>(p.x);
    const auto* wBytes = static_cast<const unsigned char*>(p.w);
    const std::uint32_t ownsB = (kBN >= kRowsPerPass || copyRow < kBN) ? 1u : 0u;  // BN 16: rows 16..31 have no B row
    const unsigned char* srcA = xBytes;
    const unsigned char* srcB = xBytes;
    std::uint32_t validMask = 0;  // bit i: copy i reads (a weight row, or a token row below M); else zero-fill
    auto startTile = [&](long long linear) {
        const bucket::TileCoord c = bucket::tileCoordinates(linear, tilesA, tilesB);
        const long long rowA = c.a * kRowsA + copyRow, rowB = c.b * kBN + copyRow;
        srcA = (kSwap ? wBytes : xBytes) + (rowA * k + copyChunk * 8) * 2;
        srcB = (kSwap ? xBytes : wBytes) + (rowB * k + copyChunk * 8) * 2;
        std::uint32_t mask = 0;
#pragma unroll
        for (int i = 0; i < kCopiesA; ++i)
            if (kSwap || rowA + i * kRowsPerPass < p.m) mask |= 1u << i;
#pragma unroll
        for (int i = 0; i < kCopiesB; ++i)
            if (!kSwap || rowB + i * kRowsPerPass < p.m) mask |= 1u << (kCopiesA + i);
        validMask = mask;
    };
    int loadsLeft = steps, loadSlot = 0, loadChunk = 0;
    long long loadTile = blockIdx.x;
    if (steps > 0) startTile(loadTile);
    // The copies i with i % 3 == part of the slot `loadSlot` (for loadChunk of loadTile); `more` is 0 past the last step.
    auto issueCopies = [&](int part, std::uint32_t more) {
        const std::uint32_t stage = ring + static_cast<std::uint32_t>(loadSlot * kStageBytes) + copyDst;
        const long long chunkBytes = static_cast<long long>(loadChunk) * (bucket::kBlockK * 2);
#pragma unroll
        for (int i = 0; i < kCopies; ++i) {
            if (i % kCopySteps != part) continue;
            const bool inA = i < kCopiesA;
            const int pass = inA ? i : i - kCopiesA;
            const bool valid = inA == kSwap || ((validMask >> i) & 1u);  // weight rows always read
            const unsigned char* src = (inA ? srcA : srcB) + chunkBytes + pass * passBytes;
            copy16If(stage + static_cast<std::uint32_t>(i * kRowsPerPass * kRowBytes), valid ? src : xBytes, valid ? 16u : 0u,
                     inA ? more : (more & ownsB));
        }
    };
    auto advanceLoad = [&]() {
        if (loadsLeft > 0) {
            --loadsLeft;
            if (++loadSlot == kStages) loadSlot = 0;
            if (++loadChunk == chunks) {
                loadChunk = 0;
                loadTile += gridDim.x;
                if (loadsLeft > 0) startTile(loadTile);  // past the last tile it is unused
            }
        }
    };

    float acc[kMI][kNJ][4];
#pragma unroll
    for (int i = 0; i < kMI; ++i)
#pragma unroll
        for (int j = 0; j < kNJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

    // ldmatrix rows of this lane: A x4 = rows 0-15 at the low (lanes 0-15) or high (16-31) k half;
    // B x4 = two n8 tiles (lanes 16-31 the second) at the low (lanes 0-7, 16-23) or high k half.
    // Rows aRow + 16 i and bRow + 8 j keep row % 8, so their offsets are the base plus 2,048 i / 1,024 j.
    const int aRow = warpM * kMI * 16 + (lane % 16), aHalf = lane / 16;
    const int bRow = kRowsA + warpN * kNJ * 8 + (lane % 8) + (lane / 16) * 8, bHalf = (lane / 8) % 2;
    std::uint32_t aOff[kKSteps], bOff[kKSteps];
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks) {
        aOff[ks] = static_cast<std::uint32_t>(bucket::swizzledOffset(aRow, 2 * ks + aHalf));
        bOff[ks] = static_cast<std::uint32_t>(bucket::swizzledOffset(bRow, 2 * ks + bHalf));
    }
    std::uint32_t a[2][kMI][4], b[2][kNJ][2];
    auto loadFragments = [&](int buf, std::uint32_t stage, int ks) {
#pragma unroll
        for (int i = 0; i < kMI; ++i) dev::ldmatrixX4Shared(a[buf][i], stage + aOff[ks] + static_cast<std::uint32_t>(i * 16 * kRowBytes));
#pragma unroll
        for (int j = 0; j < kNJ; j += 2) {
            std::uint32_t r[4];
            dev::ldmatrixX4Shared(r, stage + bOff[ks] + static_cast<std::uint32_t>(j * 8 * kRowBytes));
            b[buf][j][0] = r[0];
            b[buf][j][1] = r[1];
            b[buf][j + 1][0] = r[2];
            b[buf][j + 1][1] = r[3];
        }
    };

#pragma unroll 1
    for (int s = 0; s < kStages - 1; ++s) {
        const std::uint32_t more = loadsLeft > 0 ? 1u : 0u;
#pragma unroll
        for (int part = 0; part < kCopySteps; ++part) issueCopies(part, more);
        dev::cpAsyncCommit();
        advanceLoad();
    }
    // Step t's group is committed during step t - kStages + 1 (or the prologue); before step t's
    // fragments are read, kStages - 1 + t groups are committed and waiting down to kStages - 2
    // pending lands groups 0..t. The barrier also tells every thread that step t - 1's slot, which
    // step t's copies refill, has been read by all (its last fragments load before this barrier).
    dev::cpAsyncWait<kStages - 2>();
    __syncthreads();
    loadFragments(0, ring, 0);
    int readSlot = 0, readChunk = 0;
    long long tile = blockIdx.x;
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
        const std::uint32_t stage = ring + static_cast<std::uint32_t>(readSlot * kStageBytes);
        if (++readSlot == kStages) readSlot = 0;
        const std::uint32_t nextStage = ring + static_cast<std::uint32_t>(readSlot * kStageBytes);  // step + 1 (unused past the end)
        const std::uint32_t more = loadsLeft > 0 ? 1u : 0u;
#pragma unroll
        for (int ks = 0; ks < kKSteps; ++ks) {
            if (ks < kCopySteps) {
                issueCopies(ks, more);  // step + kStages - 1 into step - 1's slot
            } else {
                dev::cpAsyncCommit();
                dev::cpAsyncWait<kStages - 2>();  // step + 1 has landed for this thread
                __syncthreads();                  // for everyone; everyone has read this slot's fragments
            }
            if (ks + 1 < kKSteps) loadFragments((ks + 1) % 2, stage, ks + 1);
            else loadFragments((ks + 1) % 2, nextStage, 0);
            const int cur = ks % 2;
#pragma unroll
            for (int i = 0; i < kMI; ++i)
#pragma unroll
                for (int j = 0; j < kNJ; ++j) dev::mmaBf16(acc[i][j], a[cur][i], b[cur][j]);
        }
        advanceLoad();

        if (++readChunk == chunks) {  // the tile is complete: store it, start the next from zero
            readChunk = 0;
            const bucket::TileCoord tc = bucket::tileCoordinates(tile, tilesA, tilesB);
            tile += gridDim.x;
            const int g = lane / 4, t = lane % 4;
#pragma unroll
            for (int i = 0; i < kMI; ++i)
#pragma unroll
                for (int j = 0; j < kNJ; ++j) {
                    const long long rowA = tc.a * kRowsA + warpM * kMI * 16 + i * 16 + g;  // + 8 for c[2], c[3]
                    const long long colB = tc.b * kBN + warpN * kNJ * 8 + j * 8 + 2 * t;   // + 1 for c[1], c[3]
                    if constexpr (kSwap) {  // A rows are output columns, B columns are tokens
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            const long long token = colB + (e % 2), column = rowA + (e / 2) * 8;
                            if (token < p.m) out[token * n + column] = __float2bfloat16_rn(acc[i][j][e]);
                        }
                    } else {
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            const long long token = rowA + h * 8;
                            if (token < p.m)
                                *reinterpret_cast<std::uint32_t*>(out + token * n + colB) =
                                    packBf16(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                        }
                    }
                    acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
                }
        }
    }
    dev::cpAsyncWait<0>();  // no copy may outlive the block
#else
    (void)p;
    __trap();  // no bf16 mma.sync or cp.async below sm_80; the planner's smem claims exceed sm_75's limit first
#endif
}

// ---- cells 8 and 16 --------------------------------------------------------------------------
// 152 CTAs share the N/8 column tiles evenly (bucket::columnStrip); a strip is covered in groups of
// 6 tiles, one per consumer warp (warps 0-5; warp 6 only copies). A stage holds 2 k-chunks, each 48
// weight rows (the group's tiles; rows past the strip read as zero) and the 16 activation rows.
// The kernel is issue-bound (two CTAs share an SM on 20 of the SMs), so the copy side is precomputed:
// thread t copies 16-byte column t % 8 of the stage rows q = t / 8 + 28 i (i < 5, q < 128); its
// destinations and source pointers are fixed per group, a step only adds the k offset, and rows that
// must read as zero keep a harmless source with a zero source size. Copies are predicated, not
// branched around. The consumer's MMAs alternate between two accumulators to halve the dependent chain.
__device__ __forceinline__ void smallCellGemm(const GemmBucketParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int kStages = bucket::kSmallStages;
    constexpr int kRowsPerChunk = bucket::kSmallStripRows + bucket::kSmallRows;  // 64
    constexpr int kChunkBytes = kRowsPerChunk * kRowBytes;                       // 8 KB
    constexpr int kStageBytes = bucket::kSmallChunks * kChunkBytes;              // 16 KB
    constexpr int kStageRows = bucket::kSmallChunks * kRowsPerChunk;             // 128 (chunk, row) pairs
    constexpr int kThreads = bucket::kSmallThreads;
    constexpr int kRowsPerPass = kThreads / kChunksPerRow;                   // 28
    constexpr int kCopies = (kStageRows + kRowsPerPass - 1) / kRowsPerPass;  // 5 (the 5th: threads of rows < 16)
    constexpr int kKPerStage = bucket::kSmallChunks * bucket::kBlockK;       // 128
    static_assert(kThreads % kChunksPerRow == 0, "a thread copies one chunk column");
    if (p.dynamicSmemBytes < kStages * kStageBytes) __trap();

    extern __shared__ __align__(128) unsigned char smem[];
    const std::uint32_t ring = dev::sharedAddress(smem);
    const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarpSize, warp = tid / kWarpSize;
    const auto* xBytes = static_cast<const unsigned char*>(p.x);
    const auto* wBytes = static_cast<const unsigned char*>(p.w);
    auto* out = static_cast<bf16*>(p.out);
    const long long k = p.k, n = p.n;

    const bucket::ColumnStrip strip =
        bucket::columnStrip(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), static_cast<int>(n / bucket::kColumnTile));
    const int stripEnd = strip.first + strip.count;
    const int groups = (strip.count + bucket::kSmallConsumerWarps - 1) / bucket::kSmallConsumerWarps;
    const int kSteps = p.k / kKPerStage;
    const int steps = groups * kSteps;
    // Upstream's k-phase rotation: CTAs start at different k so their weight reads spread over DRAM pages.
    const int phase = static_cast<int>((static_cast<long long>(blockIdx.x) * kSteps) / gridDim.x);

    const int copyChunk = bucket::copyColumn(tid), copyRow = bucket::copyRow(tid, 0, kThreads);
    std::uint32_t copyDst[kCopies], copyBytes[kCopies], copyOwn[kCopies];
    const unsigned char* copySrc[kCopies];
#pragma unroll
    for (int i = 0; i < kCopies; ++i) {
        const int q = bucket::copyRow(tid, i, kThreads);                                  // (chunk, row) pair: chunk q / 64, row q % 64
        copyOwn[i] = ((i + 1) * kRowsPerPass <= kStageRows || q < kStageRows) ? 1u : 0u;  // copyRow < 28
        copyDst[i] = static_cast<std::uint32_t>(bucket::smallStageOffset(q, copyChunk));
        copyBytes[i] = 0;
        copySrc[i] = wBytes;
    }
    auto startGroup = [&](int groupTile) {
#pragma unroll
        for (int i = 0; i < kCopies; ++i) {
            const int q = bucket::copyRow(tid, i, kThreads);
            const int r = q % kRowsPerChunk;
            const long long kElem = (q / kRowsPerChunk) * bucket::kBlockK + copyChunk * 8;
            bool valid;
            const unsigned char* src;
            if (r < bucket::kSmallStripRows) {
                valid = groupTile + r / bucket::kColumnTile < stripEnd;
                src = wBytes + ((static_cast<long long>(groupTile) * bucket::kColumnTile + r) * k + kElem) * 2;
            } else {
                valid = r - bucket::kSmallStripRows < p.m;
                src = xBytes + (static_cast<long long>(r - bucket::kSmallStripRows) * k + kElem) * 2;
            }
            copySrc[i] = valid ? src : wBytes;  // a zero-size copy reads nothing; w + k offset is in bounds anyway
            copyBytes[i] = valid ? 16u : 0u;
        }
    };

    // loadK = (loadStep + phase) % kSteps, kept as a running index (no division per step).
    int loadsLeft = steps, loadSlot = 0, loadStep = 0, loadK = kSteps > 0 ? phase % kSteps : 0, loadGroupTile = strip.first;
    if (steps > 0) startGroup(loadGroupTile);
    auto issueNext = [&]() {
        const std::uint32_t more = loadsLeft > 0 ? 1u : 0u;
        const long long kBytes = static_cast<long long>(loadK) * (kKPerStage * 2);
        const std::uint32_t stage = ring + static_cast<std::uint32_t>(loadSlot * kStageBytes);
#pragma unroll
        for (int i = 0; i < kCopies; ++i) copy16If(stage + copyDst[i], copySrc[i] + kBytes, copyBytes[i], more & copyOwn[i]);
        dev::cpAsyncCommit();
        if (loadsLeft > 0) {
            --loadsLeft;
            if (++loadSlot == kStages) loadSlot = 0;
            if (++loadK == kSteps) loadK = 0;
            if (++loadStep == kSteps) {
                loadStep = 0;
                loadGroupTile += bucket::kSmallConsumerWarps;
                if (loadsLeft > 0) startGroup(loadGroupTile);
            }
        }
    };

    float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    const bool consumer = warp < bucket::kSmallConsumerWarps;
    // A x4: the 16 activation rows at the low / high k half; B x4: this warp's 8 weight rows at the
    // four k quarters of two k16 steps (lanes 0-7, 8-15, 16-23, 24-31).
    const int aRow = bucket::kSmallStripRows + lane % 16, aHalf = lane / 16;
    const int bRow = warp * bucket::kColumnTile + lane % 8, bQuarter = lane / 8;
    constexpr int kPairs = bucket::kBlockK / 32;  // k32 pairs of k16 steps per chunk: 2
    std::uint32_t aOff[kPairs][2], bOff[kPairs];
#pragma unroll
    for (int kp = 0; kp < kPairs; ++kp) {
        bOff[kp] = static_cast<std::uint32_t>(bucket::swizzledOffset(bRow, 4 * kp + bQuarter));
#pragma unroll
        for (int h = 0; h < 2; ++h) aOff[kp][h] = static_cast<std::uint32_t>(bucket::swizzledOffset(aRow, 4 * kp + 2 * h + aHalf));
    }

#pragma unroll 1
    for (int s = 0; s < kStages - 1; ++s) issueNext();
    int readSlot = 0, readStep = 0, groupTile = strip.first;
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
        dev::cpAsyncWait<kStages - 2>();
        __syncthreads();
        issueNext();
        const std::uint32_t stage = ring + static_cast<std::uint32_t>(readSlot * kStageBytes);
        if (++readSlot == kStages) readSlot = 0;
        if (consumer) {
#pragma unroll
            for (int chunk = 0; chunk < bucket::kSmallChunks; ++chunk) {
                const std::uint32_t base = stage + static_cast<std::uint32_t>(chunk * kChunkBytes);
#pragma unroll
                for (int kp = 0; kp < kPairs; ++kp) {
                    std::uint32_t b[4];
                    dev::ldmatrixX4Shared(b, base + bOff[kp]);
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        std::uint32_t a[4];
                        dev::ldmatrixX4Shared(a, base + aOff[kp][h]);
                        const std::uint32_t bf[2] = {b[2 * h], b[2 * h + 1]};
                        dev::mmaBf16(acc[h], a, bf);
                    }
                }
            }
        }
        if (++readStep == kSteps) {  // the group is complete: each warp stores its 16 x 8 tile
            readStep = 0;
            const int tileOfWarp = groupTile + warp;
            groupTile += bucket::kSmallConsumerWarps;
            if (consumer && tileOfWarp < stripEnd) {
                const int g = lane / 4, t = lane % 4;
                const long long column = static_cast<long long>(tileOfWarp) * bucket::kColumnTile + 2 * t;
                if (g < p.m)
                    *reinterpret_cast<std::uint32_t*>(out + g * n + column) = packBf16(acc[0][0] + acc[1][0], acc[0][1] + acc[1][1]);
                if (g + 8 < p.m)
                    *reinterpret_cast<std::uint32_t*>(out + (g + 8) * n + column) = packBf16(acc[0][2] + acc[1][2], acc[0][3] + acc[1][3]);
            }
#pragma unroll
            for (int h = 0; h < 2; ++h) acc[h][0] = acc[h][1] = acc[h][2] = acc[h][3] = 0.f;
        }
    }
    dev::cpAsyncWait<0>();
#else
    (void)p;
    __trap();
#endif
}

}  // namespace
}  // namespace tilescope

using tilescope::GemmBucketParams;

// Cells 8 and 16: grid 152 x 224 threads (6 consumer warps + 1), 6 stages of 2 x (48 + 16) rows.
// Min 2 blocks: <= 128 registers keeps 2 CTAs per SM (4 warps of 4,096 registers per SM sub-partition),
// which 20 SMs need for the 152 CTAs on 132 SMs.
extern "C" __global__ void __launch_bounds__(224, 2) gemm_bucket_small(GemmBucketParams p) { tilescope::smallCellGemm(p); }
// Cells 32 and 64: operands swapped (128 weight rows x 16 / 32 tokens), 8 warps along the weight rows.
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn16(GemmBucketParams p) { tilescope::largeCellGemm<32, 8, 1>(p); }
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn32(GemmBucketParams p) { tilescope::largeCellGemm<64, 8, 1>(p); }
// Cells 128..512: 128 tokens x BN weight rows, 2 x 4 warps of 64 x BN/4.
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn64(GemmBucketParams p) { tilescope::largeCellGemm<128, 2, 4>(p); }
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn128(GemmBucketParams p) { tilescope::largeCellGemm<256, 2, 4>(p); }
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn256(GemmBucketParams p) { tilescope::largeCellGemm<512, 2, 4>(p); }

namespace tilescope {

DeviceKernelList gemmBucketDeviceKernels() {
    static const DeviceKernel list[] = {
        {"gemm_bucket_small", reinterpret_cast<const void*>(&gemm_bucket_small)},
        {"gemm_bucket_bn16", reinterpret_cast<const void*>(&gemm_bucket_bn16)},
        {"gemm_bucket_bn32", reinterpret_cast<const void*>(&gemm_bucket_bn32)},
        {"gemm_bucket_bn64", reinterpret_cast<const void*>(&gemm_bucket_bn64)},
        {"gemm_bucket_bn128", reinterpret_cast<const void*>(&gemm_bucket_bn128)},
        {"gemm_bucket_bn256", reinterpret_cast<const void*>(&gemm_bucket_bn256)},
    };
    return {list, sizeof list / sizeof list[0]};
}

}  // namespace tilescope

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

// ---- cells >= 32 -----------------------------------------------------------------------------
// One CTA tile = 128 A rows x BN B rows; A is x (W when swapped), B is W (x when swapped). Warps form
// a WarpsM x WarpsN grid; each holds MI m16 x NJ n8 accumulators and, per k16 step, loads MI A and NJ
// B fragments once (ldmatrix x4) and reuses them across its MI * NJ MMAs.
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
    constexpr int kCopies = (kRowsA + kBN) * kChunksPerRow;  // 16-byte copies per stage
    static_assert(WarpsM * WarpsN == bucket::kLargeWarps && kMI >= 1 && kNJ % 2 == 0, "warp grid must tile 128 x BN");
    static_assert(kThreads % kChunksPerRow == 0, "a thread copies one chunk column of every row it touches");
    if (p.dynamicSmemBytes < kStages * kStageBytes) __trap();  // the planner's claim must hold the ring

    extern __shared__ __align__(128) unsigned char smem[];
    const std::uint32_t ring = dev::sharedAddress(smem);
    const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarpSize, warp = tid / kWarpSize;
    const int warpM = warp / WarpsN, warpN = warp % WarpsN;
    const auto* x = static_cast<const bf16*>(p.x);
    const auto* w = static_cast<const bf16*>(p.w);
    auto* out = static_cast<bf16*>(p.out);
    const long long k = p.k, n = p.n;

    const long long tilesA = bucket::tilesAlongA(n, Cell), tilesB = bucket::tilesAlongB(n, Cell);
    const long long tiles = tilesA * tilesB;
    const int chunks = p.k / bucket::kBlockK;
    const int myTiles = tiles > blockIdx.x ? static_cast<int>((tiles - blockIdx.x + gridDim.x - 1) / gridDim.x) : 0;
    // (tile, k-chunk) steps run flattened, so the ring streams the next tile while this one is stored.
    const int steps = myTiles * chunks;

    // Loads: this thread copies chunk column `copyChunk` of rows copyRow, copyRow + 32, ...
    const int copyChunk = tid % kChunksPerRow, copyRow = tid / kChunksPerRow;
    int loadsLeft = steps, loadSlot = 0, loadChunk = 0;
    long long loadTile = blockIdx.x;
    bucket::TileCoord loadCoord = steps > 0 ? bucket::tileCoordinates(loadTile, tilesA, tilesB) : bucket::TileCoord{};
    auto issueNext = [&]() {
        if (loadsLeft > 0) {
            const long long k0 = static_cast<long long>(loadChunk) * bucket::kBlockK + copyChunk * 8;
            const std::uint32_t stage = ring + static_cast<std::uint32_t>(loadSlot * kStageBytes);
#pragma unroll
            for (int i = 0; i < (kCopies + kThreads - 1) / kThreads; ++i) {
                const int r = copyRow + i * (kThreads / kChunksPerRow);
                if (kCopies % kThreads != 0 && r >= kRowsA + kBN) break;
                const bool partA = r < kRowsA;
                const long long row = partA ? loadCoord.a * kRowsA + r : loadCoord.b * kBN + (r - kRowsA);
                const bool rowIsX = partA != kSwap;
                const bf16* base = rowIsX ? x : w;
                const bool valid = !rowIsX || row < p.m;
                dev::copy16AsyncOrZero(stage + static_cast<std::uint32_t>(bucket::swizzledOffset(r, copyChunk)),
                                       valid ? base + row * k + k0 : base, valid);
            }
            --loadsLeft;
            if (++loadSlot == kStages) loadSlot = 0;
            if (++loadChunk == chunks) {
                loadChunk = 0;
                loadTile += gridDim.x;
                if (loadsLeft > 0) loadCoord = bucket::tileCoordinates(loadTile, tilesA, tilesB);  // past the last tile it is unused
            }
        }
        dev::cpAsyncCommit();
    };

    float acc[kMI][kNJ][4];
#pragma unroll
    for (int i = 0; i < kMI; ++i)
#pragma unroll
        for (int j = 0; j < kNJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

    // ldmatrix rows of this lane: A x4 = rows 0-15 at the low (lanes 0-15) or high (16-31) k half;
    // B x4 = two n8 tiles (lanes 16-31 the second) at the low (lanes 0-7, 16-23) or high k half.
    const int aRow = warpM * kMI * 16 + (lane % 16), aHalf = lane / 16;
    const int bRow = kRowsA + warpN * kNJ * 8 + (lane % 8) + (lane / 16) * 8, bHalf = (lane / 8) % 2;

#pragma unroll 1
    for (int s = 0; s < kStages - 1; ++s) issueNext();
    int readSlot = 0, readChunk = 0;
    long long tile = blockIdx.x;
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
        dev::cpAsyncWait<kStages - 2>();  // this thread's copies of `step` have landed
        __syncthreads();                   // everyone's have; everyone is done with step - 1's slot
        issueNext();                       // step + kStages - 1 refills step - 1's slot
        const std::uint32_t stage = ring + static_cast<std::uint32_t>(readSlot * kStageBytes);
        if (++readSlot == kStages) readSlot = 0;
#pragma unroll
        for (int ks = 0; ks < bucket::kBlockK / 16; ++ks) {
            std::uint32_t a[kMI][4], b[kNJ][2];
#pragma unroll
            for (int i = 0; i < kMI; ++i)
                dev::ldmatrixX4Shared(a[i], stage + static_cast<std::uint32_t>(bucket::swizzledOffset(aRow + i * 16, 2 * ks + aHalf)));
#pragma unroll
            for (int j = 0; j < kNJ; j += 2) {
                std::uint32_t r[4];
                dev::ldmatrixX4Shared(r, stage + static_cast<std::uint32_t>(bucket::swizzledOffset(bRow + j * 8, 2 * ks + bHalf)));
                b[j][0] = r[0];
                b[j][1] = r[1];
                b[j + 1][0] = r[2];
                b[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < kMI; ++i)
#pragma unroll
                for (int j = 0; j < kNJ; ++j) dev::mmaBf16(acc[i][j], a[i], b[j]);
        }

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
                    const long long colB = tc.b * kBN + warpN * kNJ * 8 + j * 8 + 2 * t;  // + 1 for c[1], c[3]
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
__device__ __forceinline__ void smallCellGemm(const GemmBucketParams& p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int kStages = bucket::kSmallStages;
    constexpr int kRowsPerChunk = bucket::kSmallStripRows + bucket::kSmallRows;  // 64
    constexpr int kChunkBytes = kRowsPerChunk * kRowBytes;                        // 8 KB
    constexpr int kStageBytes = bucket::kSmallChunks * kChunkBytes;               // 16 KB
    constexpr int kCopies = bucket::kSmallChunks * kRowsPerChunk * kChunksPerRow;  // 1,024 per stage
    constexpr int kThreads = bucket::kSmallThreads;
    constexpr int kKPerStage = bucket::kSmallChunks * bucket::kBlockK;  // 128
    if (p.dynamicSmemBytes < kStages * kStageBytes) __trap();

    extern __shared__ __align__(128) unsigned char smem[];
    const std::uint32_t ring = dev::sharedAddress(smem);
    const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarpSize, warp = tid / kWarpSize;
    const auto* x = static_cast<const bf16*>(p.x);
    const auto* w = static_cast<const bf16*>(p.w);
    auto* out = static_cast<bf16*>(p.out);
    const long long k = p.k, n = p.n;

    const bucket::ColumnStrip strip = bucket::columnStrip(static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                                                          static_cast<int>(n / bucket::kColumnTile));
    const int stripEnd = strip.first + strip.count;
    const int groups = (strip.count + bucket::kSmallConsumerWarps - 1) / bucket::kSmallConsumerWarps;
    const int kSteps = p.k / kKPerStage;
    const int steps = groups * kSteps;
    // Upstream's k-phase rotation: CTAs start at different k so their weight reads spread over DRAM pages.
    const int phase = static_cast<int>((static_cast<long long>(blockIdx.x) * kSteps) / gridDim.x);

    int loadsLeft = steps, loadSlot = 0, loadStep = 0, loadGroupTile = strip.first;
    auto issueNext = [&]() {
        if (loadsLeft > 0) {
            const long long k0 = static_cast<long long>((loadStep + phase) % kSteps) * kKPerStage;
            const std::uint32_t stage = ring + static_cast<std::uint32_t>(loadSlot * kStageBytes);
#pragma unroll
            for (int i = 0; i < (kCopies + kThreads - 1) / kThreads; ++i) {
                const int v = tid + i * kThreads;
                if (v >= kCopies) break;
                const int chunk = v / (kRowsPerChunk * kChunksPerRow);
                const int r = (v / kChunksPerRow) % kRowsPerChunk, c = v % kChunksPerRow;
                const long long kk = k0 + chunk * bucket::kBlockK + c * 8;
                bool valid;
                const bf16* src;
                if (r < bucket::kSmallStripRows) {
                    valid = loadGroupTile + r / bucket::kColumnTile < stripEnd;
                    src = w + (static_cast<long long>(loadGroupTile) * bucket::kColumnTile + r) * k + kk;
                } else {
                    valid = r - bucket::kSmallStripRows < p.m;
                    src = x + static_cast<long long>(r - bucket::kSmallStripRows) * k + kk;
                }
                dev::copy16AsyncOrZero(stage + static_cast<std::uint32_t>(chunk * kChunkBytes + bucket::swizzledOffset(r, c)),
                                       valid ? src : w, valid);
            }
            --loadsLeft;
            if (++loadSlot == kStages) loadSlot = 0;
            if (++loadStep == kSteps) {
                loadStep = 0;
                loadGroupTile += bucket::kSmallConsumerWarps;
            }
        }
        dev::cpAsyncCommit();
    };

    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    const bool consumer = warp < bucket::kSmallConsumerWarps;
    // A x4: the 16 activation rows at the low / high k half; B x4: this warp's 8 weight rows at the
    // four k quarters of two k16 steps (lanes 0-7, 8-15, 16-23, 24-31).
    const int aRow = bucket::kSmallStripRows + lane % 16, aHalf = lane / 16;
    const int bRow = warp * bucket::kColumnTile + lane % 8, bQuarter = lane / 8;

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
                for (int kp = 0; kp < bucket::kBlockK / 32; ++kp) {
                    std::uint32_t b[4];
                    dev::ldmatrixX4Shared(b, base + static_cast<std::uint32_t>(bucket::swizzledOffset(bRow, 4 * kp + bQuarter)));
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        std::uint32_t a[4];
                        dev::ldmatrixX4Shared(a, base + static_cast<std::uint32_t>(bucket::swizzledOffset(aRow, 4 * kp + 2 * h + aHalf)));
                        const std::uint32_t bf[2] = {b[2 * h], b[2 * h + 1]};
                        dev::mmaBf16(acc, a, bf);
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
                if (g < p.m) *reinterpret_cast<std::uint32_t*>(out + g * n + column) = packBf16(acc[0], acc[1]);
                if (g + 8 < p.m) *reinterpret_cast<std::uint32_t*>(out + (g + 8) * n + column) = packBf16(acc[2], acc[3]);
            }
            acc[0] = acc[1] = acc[2] = acc[3] = 0.f;
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
extern "C" __global__ void __launch_bounds__(224, 1) gemm_bucket_small(GemmBucketParams p) { tilescope::smallCellGemm(p); }
// Cells 32 and 64: operands swapped (128 weight rows x 16 / 32 tokens), 8 warps along the weight rows.
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn16(GemmBucketParams p) {
    tilescope::largeCellGemm<32, 8, 1>(p);
}
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn32(GemmBucketParams p) {
    tilescope::largeCellGemm<64, 8, 1>(p);
}
// Cells 128..512: 128 tokens x BN weight rows, 2 x 4 warps of 64 x BN/4.
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn64(GemmBucketParams p) {
    tilescope::largeCellGemm<128, 2, 4>(p);
}
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn128(GemmBucketParams p) {
    tilescope::largeCellGemm<256, 2, 4>(p);
}
extern "C" __global__ void __launch_bounds__(256, 1) gemm_bucket_bn256(GemmBucketParams p) {
    tilescope::largeCellGemm<512, 2, 4>(p);
}

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

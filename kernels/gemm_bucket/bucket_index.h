// Tile and stage maths of the gemm_bucket kernels, shared with the CPU tests.
#pragma once

#include "kernels/common/host_device.h"

namespace tilescope::bucket {

inline constexpr int kBlockK = 64;          // K step of one stage (bf16: 128 B per row)
inline constexpr int kRowsPerPass = 128;    // activation rows one stage holds: 128 x 64 bf16 = 16,384 B
inline constexpr int kSmallCellRows = 16;   // cells 8 and 16 use one 16-row MMA tile
inline constexpr int kSmallCellWarps = 7;   // 224 threads
inline constexpr int kSmallCellBlockN = 8 * kSmallCellWarps;  // one n8 MMA tile per warp

// Bytes of one stage: the activation tile plus a BN x 64 weight tile (planner: 16,384 + BN*128).
TILESCOPE_HD long long stageBytes(long long activationRows, long long blockN) {
    return (activationRows + blockN) * kBlockK * 2;
}
TILESCOPE_HD int stagesThatFit(long long smemBytes, long long bytesPerStage) {
    return bytesPerStage > 0 ? static_cast<int>(smemBytes / bytesPerStage) : 0;
}
// Activation rows held per pass: the whole cell up to 128, then 128-row passes.
TILESCOPE_HD int rowsPerPass(int cell) { return cell < kRowsPerPass ? cell : kRowsPerPass; }
TILESCOPE_HD long long tilesAlongN(long long n, long long blockN) { return (n + blockN - 1) / blockN; }

}  // namespace tilescope::bucket

// xformers against v0.0.28's cutlass operator checks (cutlass.py, common.py) and grid (kernel_forward.h).
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// cutlass.py:49-64 _minimum_gemm_alignment and common.py:481-486: fp16 needs head dims % 8 on sm75+.
TEST(Xformers, V0028_CutlassPy49_Fp16AlignmentIs8) {
    const LaunchPlan p = plan("xformers", "memory_efficient", "head_dim=100,head_dim_v=100", "t4");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "`cutlassF` is not supported because:\n    query.shape[-1] % 8 != 0");
    // fp32 on sm80: alignment 4 (100 % 4 == 0 passes); on sm75 fp32 has no tensor cores: alignment 1.
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=100,head_dim_v=100,dtype=2", "a100-80gb-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=102,head_dim_v=102,dtype=2", "a100-80gb-sxm").verdict,
              Verdict::UnsupportedShape);
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=102,head_dim_v=102,dtype=2", "t4").verdict, Verdict::Ok);
    // Any aligned head_dim passes, 512 and beyond included.
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=512,head_dim_v=512", "rtx-4090").verdict, Verdict::Ok);
}

// common.py:394-398: bf16 needs capability major >= 8.
TEST(Xformers, V0028_CommonPy394_Bf16NeedsA100Plus) {
    const LaunchPlan p = plan("xformers", "memory_efficient_bwd", "dtype=1", "t4");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(p.message, "`cutlassB` is not supported because:\n    bf16 is only supported on A100+ GPUs");
}

// common.py:338-341: max(K, Kv) > 65536.
TEST(Xformers, V0028_CommonPy338_MaxK) {
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=65544,head_dim_v=64", "h100-sxm").message,
              "`cutlassF` is not supported because:\n    max(query.shape[-1], value.shape[-1]) > 65536");
}

// kernel_forward.h:364-369 getBlocksGrid: (ceil(M / kQueriesPerBlock), num_heads, num_batches): batch over 65,535 in grid.z.
TEST(Xformers, V0028_KernelForwardH364_GridZIsBatch) {
    const LaunchPlan p = plan("xformers", "memory_efficient", "batch=70000,seqlen_q=16,seqlen_k=16", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->name, "max_grid_dim_z");
    EXPECT_EQ(plan("xformers", "memory_efficient", "batch=65535,seqlen_q=16,seqlen_k=16", "h100-sxm").verdict, Verdict::Ok);
}

}  // namespace
}  // namespace tilescope

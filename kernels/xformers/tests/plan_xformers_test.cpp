// xformers against v0.0.28's cutlass operator checks (cutlass.py, common.py), the kernel its launchers pick
// (generate_kernels.py, autogen/cutlassF.h, cutlassB.h) and that kernel's launch (kernel_forward.h, kernel_backward.h).
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

// generate_kernels.py:125-129: 64x64 up to head_dim 64; 64x128 up to 128 on sm80+ (kernel_forward.h:139-144:
// 64 x 128 / 1024 = 8 warps); 32x128 above. getThreadsGrid (kernel_forward.h:371-373) is (32, warps, 1).
TEST(Xformers, V0028_GenerateKernelsPy125_ForwardTilePerHeadDimOnSm80) {
    const std::string seq = ",seqlen_q=1000,seqlen_k=1000";
    const LaunchPlan d64 = plan("xformers", "memory_efficient", "head_dim=64,head_dim_v=64" + seq, "h100-sxm");
    ASSERT_EQ(d64.verdict, Verdict::Ok) << d64.message;
    EXPECT_EQ(d64.kernelSymbol, "fmha_cutlassF_f16_aligned_64x64_rf_sm80");
    EXPECT_EQ(d64.block, (Dim3{32, 4, 1}));
    EXPECT_EQ(d64.grid.x, 16);  // ceil(1000 / 64)
    EXPECT_EQ(d64.dynamicSmem, 18944);
    EXPECT_FALSE(d64.optsIntoLargeSmem);
    const LaunchPlan d128 = plan("xformers", "memory_efficient", "head_dim=128,head_dim_v=128" + seq, "a100-80gb-sxm");
    EXPECT_EQ(d128.kernelSymbol, "fmha_cutlassF_f16_aligned_64x128_rf_sm80");
    EXPECT_EQ(d128.block, (Dim3{32, 8, 1}));
    EXPECT_EQ(d128.grid.x, 16);
    EXPECT_EQ(d128.dynamicSmem, 52224);
    EXPECT_TRUE(d128.optsIntoLargeSmem);  // attention_forward_generic.cu:309: smem_bytes > 0xc000
    // head_dim_v decides too: max(K, Kv) against kMaxK (attention_forward_generic.cu:182).
    const LaunchPlan d256 = plan("xformers", "memory_efficient", "head_dim=64,head_dim_v=256" + seq, "rtx-4090");
    EXPECT_EQ(d256.kernelSymbol, "fmha_cutlassF_f16_aligned_32x128_gmem_sm80");
    EXPECT_EQ(d256.block, (Dim3{32, 4, 1}));
    EXPECT_EQ(d256.grid.x, 32);  // ceil(1000 / 32)
    EXPECT_EQ(d256.dynamicSmem, 51200);
}

// generate_kernels.py:128: below sm80 the middle tile is 32x128 (4 warps); the sm75 group serves cc 75-79.
TEST(Xformers, V0028_GenerateKernelsPy128_ForwardMiddleTileIs32x128BelowSm80) {
    const LaunchPlan t4 = plan("xformers", "memory_efficient", "head_dim=128,head_dim_v=128,seqlen_q=1000", "t4");
    ASSERT_EQ(t4.verdict, Verdict::Ok) << t4.message;
    EXPECT_EQ(t4.kernelSymbol, "fmha_cutlassF_f16_aligned_32x128_rf_sm75");
    EXPECT_EQ(t4.block, (Dim3{32, 4, 1}));
    EXPECT_EQ(t4.grid.x, 32);
    EXPECT_EQ(t4.dynamicSmem, 26112);
    const LaunchPlan fp32 = plan("xformers", "memory_efficient", "head_dim=128,head_dim_v=128,dtype=2", "t4");
    EXPECT_EQ(fp32.kernelSymbol, "fmha_cutlassF_f32_aligned_32x128_rf_sm75");
    EXPECT_EQ(fp32.dynamicSmem, 25600);
}

// autogen/cutlassF.h:284-313 / cutlassB.h:869-898: no group for cc >= 100, so attention_forward_generic.cu:332
// and attention_backward_generic.cu:448 raise "no kernel found to launch!".
TEST(Xformers, V0028_CutlassFH284_NoKernelFromSm100) {
    for (const char* gpu : {"b200", "rtx-5090"}) {
        const LaunchPlan fwd = plan("xformers", "memory_efficient", "head_dim=128,head_dim_v=128", gpu);
        EXPECT_EQ(fwd.verdict, Verdict::UnsupportedDevice) << gpu;
        EXPECT_EQ(fwd.message, "cutlassF: no kernel found to launch!") << gpu;
        EXPECT_EQ(plan("xformers", "memory_efficient_bwd", "head_dim=64,head_dim_v=64", gpu).message,
                  "cutlassB: no kernel found to launch!")
            << gpu;
    }
    EXPECT_EQ(plan("xformers", "memory_efficient", "head_dim=128,head_dim_v=128", "h200").verdict, Verdict::Ok);
}

// generate_kernels.py:224-298 and autogen/cutlassB.h dispatch_cutlassB_f16_sm80: the first dropout-free kernel
// whose kMaxK holds the head dim, whose seqaligned condition holds and whose sizeof(SharedStorage) fits the
// opt-in limit (attention_backward_generic.cu:196-229); block 32 x block_i x block_j / 1024 threads
// (kernel_backward.h:264-278, 855-857), grid (1, heads, batch) (852-854; num_splits_key -1 -> 1 at 353-374).
TEST(Xformers, V0028_GenerateKernelsPy224_BackwardKernelPerHeadDimAndSmem) {
    const LaunchPlan a100 = plan("xformers", "memory_efficient_bwd", "head_dim=128,head_dim_v=128,heads=16,batch=2", "a100-80gb-sxm");
    ASSERT_EQ(a100.verdict, Verdict::Ok) << a100.message;
    EXPECT_EQ(a100.kernelSymbol, "fmha_cutlassB_f16_aligned_128x128_k128_seqaligned_sm80");
    EXPECT_EQ(a100.block, (Dim3{512, 1, 1}));
    EXPECT_EQ(a100.grid, (Dim3{1, 16, 2}));
    EXPECT_EQ(a100.dynamicSmem, 154112);
    // seqlen_q not a multiple of 128: the bounds-checked twin.
    EXPECT_EQ(plan("xformers", "memory_efficient_bwd", "head_dim=128,head_dim_v=128,seqlen_q=2047", "a100-80gb-sxm").kernelSymbol,
              "fmha_cutlassB_f16_aligned_128x128_k128_sm80");
    // sm89 (99 KB opt-in): 128x128 does not fit, the 64x64 kernel runs head_dim 128 ...
    const LaunchPlan sm89 = plan("xformers", "memory_efficient_bwd", "head_dim=128,head_dim_v=128", "rtx-4090");
    EXPECT_EQ(sm89.kernelSymbol, "fmha_cutlassB_f16_aligned_64x64_k128_seqaligned_sm80");
    EXPECT_EQ(sm89.block, (Dim3{128, 1, 1}));
    EXPECT_EQ(sm89.dynamicSmem, 34048);
    // ... and up to 96 the 128x64 kernel kept for cc 86 / 89 only (generate_kernels.py:283-297).
    const LaunchPlan k80 = plan("xformers", "memory_efficient_bwd", "head_dim=80,head_dim_v=80", "rtx-4090");
    EXPECT_EQ(k80.kernelSymbol, "fmha_cutlassB_f16_aligned_128x64_k96_sm80");
    EXPECT_EQ(k80.block, (Dim3{256, 1, 1}));
    EXPECT_EQ(k80.dynamicSmem, 91648);
    EXPECT_EQ(plan("xformers", "memory_efficient_bwd", "head_dim=80,head_dim_v=80", "a100-80gb-sxm").kernelSymbol,
              "fmha_cutlassB_f16_aligned_128x128_k128_seqaligned_sm80");
    // sm75 16-bit: 128x64 up to 128 (block_j 64 without preloaded MMAs).
    EXPECT_EQ(plan("xformers", "memory_efficient_bwd", "head_dim=128,head_dim_v=128", "t4").kernelSymbol,
              "fmha_cutlassB_f16_aligned_128x64_k128_sm75");
}

}  // namespace
}  // namespace tilescope

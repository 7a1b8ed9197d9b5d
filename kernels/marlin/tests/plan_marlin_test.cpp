// marlin against vllm vllm/model_executor/layers/quantization/utils/marlin_utils.py @007d5005 (007d50058a06),
// verify_marlin_supports_shape (161-192) and _check_marlin_supported (107-138).
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// marlin_utils.py:168-175: output_size_per_partition % 64 (the double space is vLLM's f-string join).
TEST(Marlin, Vllm007d5005_MarlinUtilsPy168_VerifySupportsShapeN) {
    const LaunchPlan p = plan("marlin", "gemm", "N=64,tp=2", "a100-80gb-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message,
              "Weight output_size_per_partition = 32 is not divisible by  min_thread_n = 64. Consider reducing tensor_parallel_size or "
              "running with --quantization gptq.");
    EXPECT_EQ(plan("marlin", "gemm", "N=128,tp=2", "a100-80gb-sxm").verdict, Verdict::Ok);
}

// marlin_utils.py:178-185 K % 128, and 187-192 K % group_size (-1: per channel, never refused).
TEST(Marlin, Vllm007d5005_MarlinUtilsPy178_VerifySupportsShapeK) {
    EXPECT_EQ(plan("marlin", "gemm", "K=4160", "l4").message,
              "Weight input_size_per_partition = 4160 is not divisible by min_thread_k = 128. Consider reducing tensor_parallel_size or "
              "running with --quantization gptq.");
    EXPECT_EQ(plan("marlin", "gemm", "K=4224,group_size=128", "l4").verdict, Verdict::Ok);
    EXPECT_EQ(plan("marlin", "gemm", "K=4224,group_size=-1", "l4").verdict, Verdict::Ok);
}

// marlin_utils.py:29, 131-137: group sizes [-1, 32, 64, 128].
TEST(Marlin, Vllm007d5005_MarlinUtilsPy131_GroupSizes) {
    EXPECT_EQ(plan("marlin", "gemm", "group_size=256", "h100-sxm").message,
              "Marlin does not support group_size = 256. Only group_sizes = [-1, 32, 64, 128] are supported.");
    EXPECT_EQ(plan("marlin", "gemm", "group_size=32", "t4").verdict, Verdict::Ok);  // sm75 is enough in this vLLM
}

// marlin_utils.py:54-55: no quant types below capability 75, so 123-130 refuses the type first (AWQ: uint4, zp).
TEST(Marlin, Vllm007d5005_MarlinUtilsPy54_NoTypesBelowSm75) {
    const LaunchPlan p = plan("marlin", "gemm", "group_size=128", "gtx-1080");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(p.message,
              "Marlin does not support weight_bits = uint4. Only types = [] are supported (for group_size = 128, device_capability = 61, "
              "zp = True).");
    EXPECT_EQ(plan("marlin", "gemm", "group_size=128", "t4").verdict, Verdict::Ok);
}

}  // namespace
}  // namespace tilescope

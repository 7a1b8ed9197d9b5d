// marlin against vllm marlin_utils.py @007d5005 (verify_marlin_supports_shape, _check_marlin_supported).
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// verify_marlin_supports_shape: output_size_per_partition % 64 (the double space is vLLM's f-string join).
TEST(Marlin, Vllm007d5005_MarlinUtilsPy_VerifySupportsShapeN) {
    const LaunchPlan p = plan("marlin", "gemm", "N=64,tp=2", "a100-80gb-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message,
              "Weight output_size_per_partition = 32 is not divisible by  min_thread_n = 64. Consider reducing tensor_parallel_size or "
              "running with --quantization gptq.");
    EXPECT_EQ(plan("marlin", "gemm", "N=128,tp=2", "a100-80gb-sxm").verdict, Verdict::Ok);
}

// verify_marlin_supports_shape: K % 128 and K % group_size.
TEST(Marlin, Vllm007d5005_MarlinUtilsPy_VerifySupportsShapeK) {
    EXPECT_EQ(plan("marlin", "gemm", "K=4160", "l4").message,
              "Weight input_size_per_partition = 4160 is not divisible by min_thread_k = 128. Consider reducing tensor_parallel_size or "
              "running with --quantization gptq.");
    EXPECT_EQ(plan("marlin", "gemm", "K=4224,group_size=128", "l4").verdict, Verdict::Ok);
    EXPECT_EQ(plan("marlin", "gemm", "K=4224,group_size=-1", "l4").verdict, Verdict::Ok);
}

// _check_marlin_supported: group sizes [-1, 32, 64, 128].
TEST(Marlin, Vllm007d5005_MarlinUtilsPy_GroupSizes) {
    EXPECT_EQ(plan("marlin", "gemm", "group_size=256", "h100-sxm").message,
              "Marlin does not support group_size = 256. Only group_sizes = [-1, 32, 64, 128] are supported.");
    EXPECT_EQ(plan("marlin", "gemm", "group_size=32", "t4").verdict, Verdict::Ok);  // sm75 is enough in this vLLM
}

}  // namespace
}  // namespace tilescope

// diagnose on a real vLLM Marlin log: K per partition against min_thread_k.
#include <gtest/gtest.h>

#include "tests/core/log_diagnosis.h"

namespace tilescope {
namespace {

// vllm-project/vllm#13640: Qwen2.5-VL-72B-AWQ at tensor_parallel_size 2: K per partition 14,784.
TEST(DiagnosisMarlin, Vllm13640_InputSizePerPartitionMinThreadK) {
    const Diagnosis d = test::diagnoseLog("marlin_min_thread_k.log");
    ASSERT_EQ(d.findings.size(), 1u);
    const DiagnosisFinding& f = d.findings.front();
    EXPECT_EQ(f.signature, "marlin.min_thread");
    EXPECT_EQ(f.family, "marlin");
    EXPECT_EQ(test::findingValue(f, "K"), 14784);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->message,
              "Weight input_size_per_partition = 14784 is not divisible by min_thread_k = 128. Consider reducing tensor_parallel_size or "
              "running with --quantization gptq.");
}

}  // namespace
}  // namespace tilescope

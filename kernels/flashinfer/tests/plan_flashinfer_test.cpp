// flashinfer against FlashInfer v0.1.6's dispatch (head dims, decode group sizes) and its texts.
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// v0.1.6 python/setup.py:64 compiles head dims 64, 128, 256 into the wheels; any other fails
// python/csrc/pytorch_extension_utils.h:181-200 DISPATCH_head_dim ("<function> failed to dispatch head_dim <d>").
TEST(FlashInfer, V016_PytorchExtensionUtilsH181_HeadDimDispatch) {
    for (const char* variant : {"prefill", "decode"}) {
        for (int d : {64, 128, 256})
            EXPECT_EQ(plan("flashinfer", variant, "head_dim=" + std::to_string(d), "a10").verdict, Verdict::Ok) << d;
        for (int d : {96, 224, 512}) {
            const LaunchPlan p = plan("flashinfer", variant, "head_dim=" + std::to_string(d), "h100-sxm");
            EXPECT_EQ(p.verdict, Verdict::UnsupportedShape) << d;
            EXPECT_EQ(p.message, "failed to dispatch head_dim " + std::to_string(d));
        }
    }
    EXPECT_NE(plan("flashinfer", "prefill", "head_dim=224", "h100-sxm").alternative.find("pad to 256"), std::string::npos);
    EXPECT_NE(plan("flashinfer", "prefill", "head_dim=96", "h100-sxm").alternative.find("pad to 128"), std::string::npos);
}

// v0.1.6 python/flashinfer/decode.py:57-60 and 514-521: decode groups 1, 2, 4, 8 unless use_tensor_cores.
TEST(FlashInfer, V016_DecodePy514_GroupSizeNeedsTensorCores) {
    const LaunchPlan p = plan("flashinfer", "decode", "heads=24,kv_heads=8", "a100-80gb-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message, "Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size 3.");
    EXPECT_EQ(plan("flashinfer", "decode", "heads=24,kv_heads=8,use_tensor_cores=1", "a100-80gb-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("flashinfer", "prefill", "heads=24,kv_heads=8", "a100-80gb-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("flashinfer", "decode", "heads=32,kv_heads=4", "a100-80gb-sxm").verdict, Verdict::Ok);
}

}  // namespace
}  // namespace tilescope

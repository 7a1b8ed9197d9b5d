// sdpa against pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp @001f694a (line numbers are that
// file's): each backend's filters and TORCH_WARN texts.
#include <gtest/gtest.h>

#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

// check_head_dim_size_flash, 195-254: same last dimension and <= 256 (TORCH_WARN 214-223).
TEST(Sdpa, SdpUtilsCpp001f694a_L195_CheckHeadDimSizeFlash) {
    const LaunchPlan p = plan("sdpa", "flash", "head_dim=512,head_dim_v=512", "h100-sxm");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(p.message,
              "Flash attention requires q,k,v to have the same last dimension and to be less than or equal to 256. Got Query.size(-1): "
              "512, Key.size(-1): 512, Value.size(-1): 512 instead.");
    EXPECT_NE(p.alternative.find("efficient"), std::string::npos);
    EXPECT_EQ(plan("sdpa", "efficient", "head_dim=512,head_dim_v=512", "h100-sxm").verdict, Verdict::Ok);
}

// check_flash_attention_hardware_support 426-481 (468-477) and check_cudnn_hardware_support 869-891: [sm80, sm121].
TEST(Sdpa, SdpUtilsCpp001f694a_L468_FlashHardwareRange) {
    const LaunchPlan p = plan("sdpa", "flash", "", "t4");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(p.message, "Flash attention only supports gpu architectures in the range [sm80, sm121]. Attempting to run on a sm 7.5 gpu.");
    EXPECT_EQ(plan("sdpa", "cudnn", "", "t4").message,
              "cuDNN MHA only supports gpu architectures in the range [sm80, sm121]. Attempting to run on a sm 7.5 gpu.");
    EXPECT_EQ(plan("sdpa", "efficient", "", "t4").verdict, Verdict::Ok);
}

// check_requires_grad_and_head_dim_gt192_constraints_on_sm86_89_or_120, 543-577 (559-561): training only,
// (192, 224] or (224, 256] with dropout.
TEST(Sdpa, SdpUtilsCpp001f694a_L543_TrainingHeadDimGt192OnSm86To89And120) {
    EXPECT_EQ(plan("sdpa", "flash", "head_dim=224,head_dim_v=224", "a10").verdict, Verdict::Ok);  // inference
    const LaunchPlan p = plan("sdpa", "flash", "head_dim=224,head_dim_v=224,train=1", "a10");
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(p.message.rfind("Flash attention currently doesn't support training with head_dim", 0), 0u);
    EXPECT_EQ(plan("sdpa", "flash", "head_dim=256,head_dim_v=256,train=1", "rtx-5090").verdict, Verdict::Ok);
    EXPECT_EQ(plan("sdpa", "flash", "head_dim=256,head_dim_v=256,train=1,dropout=1", "rtx-5090").verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(plan("sdpa", "flash", "head_dim=224,head_dim_v=224,train=1", "a100-80gb-sxm").verdict, Verdict::Ok);
}

// minimum_gemm_alignment 146-160 + check_head_dim_size_mem_efficient 287-348 (TORCH_WARN 311-321): fp16 head dims % 8.
TEST(Sdpa, SdpUtilsCpp001f694a_L287_MemEfficientAlignment) {
    EXPECT_EQ(plan("sdpa", "efficient", "head_dim=100,head_dim_v=100", "a10").message,
              "Mem efficient attention requires last dimension of inputs to be divisible by 8. Got Query.size(-1): 100, Key.size(-1): 100, "
              "Value.size(-1): 100 instead.");
}

// check_cudnn_tensor_shapes, 631-729: head_dim <= 128, 256 on sm90 / sm10x (new cuDNN, 662-684); batch and
// heads <= 65,535 (632-644).
TEST(Sdpa, SdpUtilsCpp001f694a_L631_CudnnTensorShapes) {
    EXPECT_EQ(plan("sdpa", "cudnn", "head_dim=256,head_dim_v=256", "a100-80gb-sxm").message, "head_dim should be no more than 128");
    EXPECT_EQ(plan("sdpa", "cudnn", "head_dim=256,head_dim_v=256", "h100-sxm").verdict, Verdict::Ok);
    EXPECT_EQ(plan("sdpa", "cudnn", "batch=70000,seqlen_q=16,seqlen_k=16", "h100-sxm").message,
              "cuDNN SDPA does not support batch size or num_heads greater than 65535. Got batch size: 70000, num_heads: 32");
    EXPECT_EQ(plan("sdpa", "math", "head_dim=1000,head_dim_v=3", "t4").verdict, Verdict::Ok);
    // The math backend's bound is memory: 32 heads x 2,048 x 2^20 fp16 scores (128 GiB) exceed an 80 GB H100.
    EXPECT_EQ(plan("sdpa", "math", "seqlen_k=1048576", "h100-sxm").verdict, Verdict::OutOfMemory);
}

// The dtype filters print check_tensor_dtype's text (sdp_utils_cpp.h 82-108 @0119c205): flash's
// check_dtypes_flash_attention 924-933 -> check_dtypes_low_precision 912-922 (Half, BFloat16 from sm80);
// cuDNN runs that filter before its hardware one (985-995), so bf16 below sm80 is refused by dtype;
// mem_efficient's is its last filter, {Half, Float} below sm80 (1098-1099, 1171-1175).
TEST(Sdpa, SdpUtilsCpp001f694a_L912_DtypeFiltersPrintCheckTensorDtype) {
    const LaunchPlan flash = plan("sdpa", "flash", "dtype=2", "a100-80gb-sxm");
    EXPECT_EQ(flash.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(flash.message,
              "Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, Key dtype: float, and Value "
              "dtype: float instead.");
    EXPECT_EQ(plan("sdpa", "cudnn", "dtype=1", "t4").message,
              "Expected query, key and value to all be of dtype: {Half}. Got Query dtype: c10::BFloat16, Key dtype: c10::BFloat16, and "
              "Value dtype: c10::BFloat16 instead.");
    EXPECT_EQ(plan("sdpa", "cudnn", "dtype=0", "t4").message.rfind("cuDNN MHA only supports", 0), 0u);
    const LaunchPlan efficient = plan("sdpa", "efficient", "dtype=1", "t4");
    EXPECT_EQ(efficient.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(efficient.message,
              "Expected query, key and value to all be of dtype: {Half, Float}. Got Query dtype: c10::BFloat16, Key dtype: c10::BFloat16, "
              "and Value dtype: c10::BFloat16 instead.");
    EXPECT_EQ(plan("sdpa", "efficient", "dtype=1", "a10").verdict, Verdict::Ok);
}

}  // namespace
}  // namespace tilescope

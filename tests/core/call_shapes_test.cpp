// The tensor shapes of named attention calls (core/diagnosis/call_shapes) and the kernel a log
// names at its error (core/diagnosis/failing_kernel), read from public reports in
// tests/data/diagnose_corpus (sources in its manifest.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>

#include "core/diagnosis/call_shapes.h"
#include "core/diagnosis/failing_kernel.h"

namespace tilescope {
namespace {

LogText dataLog(const std::string& path) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/" + path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto log = LogText::parse(text.str());
    EXPECT_TRUE(log.ok()) << path;
    return *log;
}

LogText corpusLog(const std::string& file) { return dataLog("diagnose_corpus/" + file); }

// The 0-based line holding `text`.
int lineWith(const LogText& log, const std::string& text) {
    for (int i = 0; i < log.lineCount(); ++i)
        if (log.line(i).find(text) != std::string::npos) return i;
    ADD_FAILURE() << text;
    return 0;
}

const DiagnosisValue* valueNamed(const CallShape& shape, const std::string& name) {
    auto v = std::find_if(shape.values.begin(), shape.values.end(), [&](const DiagnosisValue& d) { return d.name == name; });
    return v == shape.values.end() ? nullptr : &*v;
}

// flash-attention #1812: torch.rand([1, 3, 71280, 128]) passed to flash_attn_func, whose q is
// (batch_size, seqlen, nheads, headdim).
TEST(CallShapes, FlashAttnFuncReadsItsArgumentsLiteralShape) {
    const LogText log = corpusLog("fa1812_flash_attn_func_heads.log");
    const auto shape = findCallShape(log, lineWith(log, "invalid configuration argument"));
    ASSERT_TRUE(shape);
    EXPECT_EQ(shape->call, "flash_attn_func");
    EXPECT_EQ(shape->callLine, 6);  // the call nearest the error, not the import on line 2
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::int64_t>>{{"batch", 1}, {"seqlen_q", 3}, {"heads", 71280}, {"head_dim", 128}}) {
        const DiagnosisValue* v = valueNamed(*shape, name);
        ASSERT_NE(v, nullptr) << name;
        EXPECT_EQ(v->value, value) << name;
        EXPECT_EQ(v->line, 3) << name;
        EXPECT_NE(v->source.find("torch.rand([1, 3, 71280, 128]"), std::string::npos) << v->source;
    }
    EXPECT_TRUE(shape->ambiguity.empty());
    // The key (flash_attn_func's second argument) gives seqlen_k.
    ASSERT_NE(valueNamed(*shape, "seqlen_k"), nullptr);
    EXPECT_EQ(valueNamed(*shape, "seqlen_k")->value, 3);
    EXPECT_EQ(valueNamed(*shape, "seqlen_k")->line, 4);
}

// A 3-dimension xformers input is [B, M, K] with H=1: the reproducer of xformers #845 (after the
// error), and the query shape xformers prints when it refuses one (in-context-matting #5).
TEST(CallShapes, MemoryEfficientAttentionThreeDimensionsIsBatchSeqHeadDim) {
    struct Row {
        std::string path;  // under tests/data
        std::string errorText;
        std::int64_t batch;
        int batchLine;
        std::int64_t seqlenQ;
        std::int64_t headDim;
        std::optional<std::int64_t> heads;
    };
    for (const Row& row : std::vector<Row>{
             {"diagnose_corpus/xformers845_batch_65536.log", "invalid configuration argument", 65536, 17, 16, 80, 1},
             {"logs/xformers_incompatible_shapes_matting5.log", "ValueError", 20, 3, 9216, 64, std::nullopt},
         }) {
        SCOPED_TRACE(row.path);
        const LogText log = dataLog(row.path);
        const auto shape = findCallShape(log, lineWith(log, row.errorText));
        ASSERT_TRUE(shape);
        EXPECT_EQ(shape->call, "memory_efficient_attention");
        ASSERT_NE(valueNamed(*shape, "batch"), nullptr);
        EXPECT_EQ(valueNamed(*shape, "batch")->value, row.batch);
        EXPECT_EQ(valueNamed(*shape, "batch")->line, row.batchLine);
        EXPECT_EQ(valueNamed(*shape, "seqlen_q")->value, row.seqlenQ);
        EXPECT_EQ(valueNamed(*shape, "head_dim")->value, row.headDim);
        if (row.heads) {
            ASSERT_NE(valueNamed(*shape, "heads"), nullptr);
            EXPECT_EQ(valueNamed(*shape, "heads")->value, *row.heads);
        }
    }
}

// PyTorch's SDPA takes (N, ..., Hq, L, E) (pytorch #142228): the second of four dimensions is the heads.
TEST(CallShapes, SdpaFourDimensionsAreBatchHeadsSeqHeadDim) {
    const LogText log = dataLog("logs/sdpa_heads_65536_pytorch142228.log");
    const auto shape = findCallShape(log, lineWith(log, "scaled_dot_product_attention"));
    ASSERT_TRUE(shape);
    EXPECT_EQ(shape->call, "scaled_dot_product_attention");
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::int64_t>>{{"batch", 1}, {"heads", 65536}, {"seqlen_q", 10}, {"head_dim", 16}}) {
        const DiagnosisValue* v = valueNamed(*shape, name);
        ASSERT_NE(v, nullptr) << name;
        EXPECT_EQ(v->value, value) << name;
        EXPECT_EQ(v->line, 3) << name;
    }
}

// Sizes written as variables stay unread (flashinfer #915): the call is named, no shape is invented.
TEST(CallShapes, VariableSizesStayUnread) {
    const LogText log = dataLog("logs/flashinfer915_single_prefill_variable_sizes.log");
    EXPECT_FALSE(findCallShape(log, lineWith(log, "single_prefill_with_kv_cache")));
}

// No attention call named: no shape, whatever tensors the log shows.
TEST(CallShapes, NothingWithoutANamedCall) {
    const LogText log = corpusLog("causal_conv1d48_invalid_config.log");
    EXPECT_FALSE(findCallShape(log, lineWith(log, "invalid configuration argument")));
    const LogText model = corpusLog("flashinfer528_head_dim_224_frags.log");
    EXPECT_FALSE(findCallShape(model, lineWith(model, "Invalid configuration")));
}

TEST(FailingKernel, ExtensionOpOfTheInnermostFrame) {
    const LogText log = corpusLog("causal_conv1d48_invalid_config.log");
    const auto kernel = findFailingKernel(log, lineWith(log, "RuntimeError: CUDA error"));
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->name, "causal_conv1d_cuda.causal_conv1d_fwd");
    EXPECT_EQ(kernel->how, "extension op");
    EXPECT_EQ(kernel->line, 11);
}

TEST(FailingKernel, CudaSourceLocationOnTheErrorLine) {
    const LogText log = corpusLog("flashinfer402_sampling_cuh_too_many_resources.log");
    const auto kernel = findFailingKernel(log, lineWith(log, "too many resources"));
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->name, "/sgl-workspace/flashinfer/python/include/flashinfer/sampling.cuh:547");
    EXPECT_EQ(kernel->line, 3);
    const LogText ggml = corpusLog("llamacpp3855_ggml_invalid_config.log");
    const auto at = findFailingKernel(ggml, lineWith(ggml, "invalid configuration argument"));
    ASSERT_TRUE(at);
    EXPECT_EQ(at->name, "ggml-cuda.cu:6863");
}

// PyTorch's op under xformers' flash path (ComfyUI-NormalCrafterWrapper #2): the innermost frame.
TEST(FailingKernel, TorchOpUnderAComfyTraceback) {
    const LogText log = corpusLog("normalcrafter2_xformers_flash_invalid_config.log");
    const auto kernel = findFailingKernel(log, lineWith(log, "RuntimeError: CUDA error"));
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->name, "torch.ops.aten._flash_attention_forward");
}

// Every way the corpus's logs name their op: an extension module in capitals (AQLM #25), c10's
// C++ backtrace (FBGEMM #2639), a slice assignment in the innermost frame (AutoAWQ #174), a host
// file's check on the error line (Lidar_AI_Solution #23).
TEST(FailingKernel, ExtensionModuleFrameCopyAndHostCheck) {
    const std::vector<std::tuple<std::string, std::string, std::string, int>> cases{
        {"aqlm25_jupyter_invalid_argument.log", "RuntimeError: CUDA error", "CUDA_KERNEL.code2x8_matmat", 25},
        {"fbgemm2639_terminate_invalid_config.log", "what():", "fbgemm_gpu::reorder_batched_ad_lengths_gpu", 10},
        {"autoawq174_fused_invalid_argument.log", "RuntimeError: CUDA error", "fused/cache.py:40 update_kv", 24},
        {"lidar23_cuda_failure_invalid_config.log", "Cuda failure", "Lidar_AI_Solution/CUDA-CenterPoint/src/preprocess.cpp:106", 28},
    };
    for (const auto& [file, error, name, line] : cases) {
        const LogText log = corpusLog(file);
        const auto kernel = findFailingKernel(log, lineWith(log, error));
        ASSERT_TRUE(kernel) << file;
        EXPECT_EQ(kernel->name, name) << file;
        EXPECT_EQ(kernel->line, line) << file;
    }
}

// A report whose reproducer follows the error: the call it makes.
TEST(FailingKernel, TheCallOfAReproducerBelowTheError) {
    const LogText log = corpusLog("xformers845_batch_65536.log");
    const auto kernel = findFailingKernel(log, lineWith(log, "invalid configuration argument"));
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->name, "xformers.ops.memory_efficient_attention");
    EXPECT_EQ(kernel->line, 20);
}

// A log whose traceback ends in the model's own forward names no kernel (vLLM #16566).
TEST(FailingKernel, NoneWhenTheTracebackNamesNoKernel) {
    const LogText log = corpusLog("vllm16566_v0_worker_invalid_config.log");
    EXPECT_FALSE(findFailingKernel(log, lineWith(log, "invalid configuration argument")));
}

}  // namespace
}  // namespace tilescope

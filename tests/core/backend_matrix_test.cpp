// The backend matrix (core/series/backend_matrix.h) over the bundled registry.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/series/backend_matrix.h"
#include "kernels/builtin_kernels.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

// Gemma-2-9B's attention (heads 16, kv 8, head_dim 256) and two of its AWQ linear layers.
BackendModel gemma2() {
    BackendModel m;
    m.name = "gemma-2-9b";
    m.heads = 16;
    m.kvHeads = 8;
    m.headDim = 256;
    m.headDimV = 256;
    m.groupSize = 128;
    m.linears = {{"q_proj", 4096, 3584}, {"down_proj", 3584, 14336}};
    m.ownGemm = {{"awq_gemm", "gemm"}};
    return m;
}

const BackendRow* row(const BackendMatrix& m, std::string_view family, std::string_view variant) {
    auto it = std::find_if(m.rows.begin(), m.rows.end(), [&](const BackendRow& r) { return r.family == family && r.variant == variant; });
    return it == m.rows.end() ? nullptr : &*it;
}

TEST(BackendMatrix, RowsAreTheRegistrysBackendVariantsWithTheOwnGemmFirst) {
    auto m = backendMatrix(gemma2(), {test::device("a10"), test::device("h100-sxm")}, {}, builtinKernels());
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_TRUE(row(*m, "flashinfer", "decode"));
    EXPECT_TRUE(row(*m, "sdpa", "math"));
    EXPECT_FALSE(row(*m, "attention", "fa2_bwd"));  // inference: no backward rows
    EXPECT_FALSE(row(*m, "attention", "sm120_tile_search"));
    const auto gemm =
        std::find_if(m->rows.begin(), m->rows.end(), [](const BackendRow& r) { return r.role == BackendRole::QuantizedGemm; });
    ASSERT_NE(gemm, m->rows.end());
    EXPECT_EQ(gemm->family, "awq_gemm");
    EXPECT_TRUE(row(*m, "marlin", "gemm"));
}

// Issue 31: the Backends page's shape planned causal=1 whatever the Shape panel said; its mask,
// dropout and (for its own family) other values are the ones planned now.
TEST(BackendMatrix, AShapesMaskDropoutAndOwnValuesArePlanned) {
    const KernelRegistry& kernels = builtinKernels();
    auto fa2 = resolveKernel(kernels, "attention", "fa2");
    ASSERT_TRUE(fa2.ok()) << fa2.error();
    const ParameterList& p = fa2->family->parameters();
    auto shapeModel = [&](std::string_view text) {
        auto shape = parseShape(text, p);
        EXPECT_TRUE(shape.ok()) << shape.error();
        auto model = backendModelFromShape(*fa2->family, *shape);
        EXPECT_TRUE(model.has_value());
        return *model;
    };
    BackendMatrixOptions o;
    o.batches = {1};
    o.seqs = {2048};
    o.train = true;
    const BackendModel open = shapeModel("head_dim=256,head_dim_v=256,causal=0,dropout=0,fa2_version=243");
    EXPECT_EQ(open.causal, 0);
    EXPECT_EQ(open.heads, 32);
    auto m = backendMatrix(open, {test::device("a10")}, o, kernels);
    ASSERT_TRUE(m.ok()) << m.error();
    const BackendRow* forward = row(*m, "attention", "fa2");
    ASSERT_TRUE(forward);
    EXPECT_NE(forward->cells[0].shape.find("causal=0"), std::string::npos) << forward->cells[0].shape;
    EXPECT_NE(forward->cells[0].command.find(forward->cells[0].shape), std::string::npos);
    const BackendRow* backward = row(*m, "attention", "fa2_bwd");
    ASSERT_TRUE(backward);
    EXPECT_NE(backward->cells[0].shape.find("fa2_version=243"), std::string::npos) << backward->cells[0].shape;
    const BackendRow* sdpaFlash = row(*m, "sdpa", "flash");
    ASSERT_TRUE(sdpaFlash);
    EXPECT_EQ(sdpaFlash->cells[0].verdict, Verdict::Ok);  // (224, 256] without dropout trains on sm86
    EXPECT_NE(sdpaFlash->cells[0].shape.find("causal=0"), std::string::npos) << sdpaFlash->cells[0].shape;

    // With dropout: sdpa's flash filter refuses head_dim 256 training on sm86 (the same rule as above).
    auto withDropout = backendMatrix(shapeModel("head_dim=256,head_dim_v=256,causal=1,dropout=1"), {test::device("a10")}, o, kernels);
    ASSERT_TRUE(withDropout.ok()) << withDropout.error();
    EXPECT_NE(row(*withDropout, "sdpa", "flash")->cells[0].verdict, Verdict::Ok);

    // A family without heads or head_dim is no attention shape.
    auto gemm = resolveKernel(kernels, "awq_gemm", "gemm");
    ASSERT_TRUE(gemm.ok());
    EXPECT_FALSE(backendModelFromShape(*gemm->family, Shape::defaults(gemm->family->parameters())));
}

TEST(BackendMatrix, CellsCarryTheStacksRuleAndTheFirstFailure) {
    BackendMatrixOptions o;
    o.batches = {1, 8};
    o.train = true;
    auto m = backendMatrix(gemma2(), {test::device("a10"), test::device("a100-80gb-sxm")}, o, builtinKernels());
    ASSERT_TRUE(m.ok()) << m.error();
    // head_dim 256 training on sm86: the sdpa flash filter and the FA2 backward with the release's default (2.8.3) passes.
    const BackendRow* flash = row(*m, "sdpa", "flash");
    ASSERT_TRUE(flash);
    EXPECT_EQ(flash->cells[0].verdict, Verdict::Ok);  // (224, 256] without dropout trains on sm86
    const BackendRow* cudnn = row(*m, "sdpa", "cudnn");
    ASSERT_TRUE(cudnn);
    EXPECT_EQ(cudnn->cells[1].rule, "head_dim should be no more than 128");
    EXPECT_EQ(cudnn->cells[1].failBatch, 1);
    EXPECT_TRUE(row(*m, "attention", "fa2_bwd"));
    EXPECT_TRUE(row(*m, "xformers", "memory_efficient_bwd"));
    EXPECT_TRUE(m->everyDeviceServed());
}

TEST(BackendMatrix, ADeviceWithoutAWorkingGemmIsMissingIt) {
    BackendModel m = gemma2();
    m.groupSize = 256;  // Marlin refuses groups of 256; whether AWQ's GEMM runs them decides whether t4 is served
    auto matrix = backendMatrix(m, {test::device("t4")}, {}, builtinKernels());
    ASSERT_TRUE(matrix.ok()) << matrix.error();
    const BackendRow* marlin = row(*matrix, "marlin", "gemm");
    ASSERT_TRUE(marlin);
    EXPECT_EQ(marlin->cells[0].rule, "Marlin does not support group_size = 256. Only group_sizes = [-1, 32, 64, 128] are supported.");
    EXPECT_EQ(marlin->cells[0].layer, "q_proj");
    const bool awqRuns = row(*matrix, "awq_gemm", "gemm")->cells[0].ok();
    EXPECT_EQ(matrix->everyDeviceServed(), awqRuns);
}

TEST(BackendMatrix, NoDevicesIsAnError) { EXPECT_FALSE(backendMatrix(gemma2(), {}, {}, builtinKernels()).ok()); }

}  // namespace
}  // namespace tilescope

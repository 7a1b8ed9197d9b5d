// awq_gemm variants autoawq and vllm: the stacks' dispatch by M, each test named after the upstream
// lines it follows (kernels/awq_gemm/plan.cpp cites them in full):
//   AutoAWQ v0.2.9 awq/modules/linear/gemm.py lines 48-56: batch x seq >= 1024 -> dequantize_weights_cuda + torch.matmul;
//   vLLM v0.4.0 vllm/model_executor/layers/quantization/awq.py lines 157-161: tokens >= 256 -> awq_dequantize + torch.matmul;
//   AutoAWQ_kernels v0.0.9 awq_ext/quantization/gemm_cuda_gen.cu lines 1135-1162: dequantize grid (N/64, K/8), block (8, 8);
//   vLLM v0.4.0 csrc/quantization/awq/gemm_kernels.cu lines 356-378: the same geometry.
#include <gtest/gtest.h>

#include "core/series/boundary_colours.h"
#include "core/series/cliffs.h"
#include "core/series/tile_series.h"
#include "core/model/sweep.h"
#include "core/trace/json_io.h"
#include "core/trace/trace.h"
#include "kernels/awq_gemm/plan.h"
#include "tests/core/test_support.h"

namespace tilescope {
namespace {

using test::plan;

constexpr const char* kShape4096 = "N=14336,K=4096,group_size=128";

std::string at(std::int64_t m, const char* rest = kShape4096) { return "M=" + std::to_string(m) + "," + rest; }

void expectGemmKernel(const LaunchPlan& p, std::int64_t m) {
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.kernelSymbol, "awq_gemm_m16n128k32");
    EXPECT_EQ(p.tile, "m16n128k32");
    EXPECT_EQ(p.grid, (Dim3{(m + 15) / 16 * (14336 / 128) * 8, 1, 1}));
    EXPECT_EQ(p.block, (Dim3{32, 2, 1}));
    EXPECT_TRUE(p.extraLaunches.empty());
    EXPECT_EQ(p.splitK, 8);
}

void expectDequantizeThenCublas(const LaunchPlan& p, std::int64_t m) {
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.kernelSymbol, AwqGemmFamily::kDequantizeSymbol);
    EXPECT_EQ(p.grid, (Dim3{14336 / 64, 4096 / 8, 1}));  // (qout_c / 8, in_c / 8)
    EXPECT_EQ(p.block, (Dim3{8, 8, 1}));
    EXPECT_EQ(p.totalSmem(), 0);
    EXPECT_EQ(p.splitK, 1);
    ASSERT_EQ(p.extraLaunches.size(), 1u);
    const ExtraLaunch& gemm = p.extraLaunches[0];
    EXPECT_TRUE(gemm.chosenByLibrary());
    EXPECT_EQ(gemm.library, "cuBLAS");
    EXPECT_TRUE(gemm.kernelSymbol.empty());
    EXPECT_FALSE(gemm.registers.has_value());
    EXPECT_NE(gemm.unknown.find("grid"), std::string_view::npos);
    const double M = static_cast<double>(m), N = 14336, K = 4096;
    EXPECT_DOUBLE_EQ(gemm.flops, 2 * M * N * K);
    EXPECT_DOUBLE_EQ(gemm.bytesMoved, M * K * 2 + K * N * 2 + M * N * 2);  // x, W fp16, out: once each
    EXPECT_DOUBLE_EQ(p.flops, 2 * M * N * K);
    // qweight + qzeros + scales + the fp16 W written, then the GEMM's bytes.
    const double groups = K / 128;
    EXPECT_DOUBLE_EQ(p.bytesMoved, K * N / 2 + groups * N / 2 + groups * N * 2 + K * N * 2 + gemm.bytesMoved);
    // The dequantized weight is extra device memory: K x N fp16 beside the packed one.
    EXPECT_EQ(p.deviceMemoryBytes,
              static_cast<std::int64_t>(M * K * 2 + K * N / 2 + groups * N / 2 + groups * N * 2 + K * N * 2 + M * N * 2));
    EXPECT_NE(p.note.find("dequantizes"), std::string::npos) << p.note;
}

TEST(AwqGemmDispatch, AutoAwq_v0_2_9_gemm_py_line48_GemmKernelAtM1023) {
    const LaunchPlan p = plan("awq_gemm", "autoawq", at(1023), "h200");
    expectGemmKernel(p, 1023);
    EXPECT_NE(p.note.find("below M = 1024"), std::string::npos) << p.note;
}

TEST(AwqGemmDispatch, AutoAwq_v0_2_9_gemm_py_lines48to54_DequantizeThenMatmulFromM1024) {
    const LaunchPlan p = plan("awq_gemm", "autoawq", at(1024), "h200");
    expectDequantizeThenCublas(p, 1024);
    EXPECT_EQ(p.tile, "dequantize + GEMM from M = 1024");
}

TEST(AwqGemmDispatch, Vllm_v0_4_0_awq_py_line157_GemmKernelAt255) { expectGemmKernel(plan("awq_gemm", "vllm", at(255), "h200"), 255); }

TEST(AwqGemmDispatch, Vllm_v0_4_0_awq_py_lines157to161_DequantizeThenMatmulFrom256) {
    const LaunchPlan p = plan("awq_gemm", "vllm", at(256), "h200");
    expectDequantizeThenCublas(p, 256);
    EXPECT_EQ(p.tile, "dequantize + GEMM from M = 256");
    // At 1023 vLLM has dispatched long since; AutoAWQ has not.
    EXPECT_FALSE(plan("awq_gemm", "vllm", at(1023), "h200").extraLaunches.empty());
    EXPECT_TRUE(plan("awq_gemm", "autoawq", at(1023), "h200").extraLaunches.empty());
}

// vllm-project/vllm #4202 (v0.4.0.post1 on a V100): vLLM refuses AWQ below sm_75 before any kernel,
// with its own text; the other variants meet the build's missing sm_70 code instead.
TEST(AwqGemmDispatch, Vllm_v0_4_0_MinCapability75_Issue4202) {
    const LaunchPlan v100 = plan("awq_gemm", "vllm", at(16), "v100-sxm2-16gb");
    EXPECT_EQ(v100.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(v100.message,
              "The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.");
    EXPECT_EQ(plan("awq_gemm", "vllm", at(4096), "p100-sxm2-16gb").message.find("Current capability: 60."), 90u);
    EXPECT_TRUE(plan("awq_gemm", "vllm", at(16), "t4").ok());
    const LaunchPlan gemm = plan("awq_gemm", "gemm", at(16), "v100-sxm2-16gb");
    EXPECT_EQ(gemm.verdict, Verdict::UnsupportedDevice);
    EXPECT_EQ(gemm.message, "CUDA error: no kernel image is available for execution on the device");
}

TEST(AwqGemmDispatch, AutoAwqKernels_v0_0_9_gemm_cuda_gen_cu_lines1135to1162_DequantizeGridRoundsDown) {
    // qout_c / 8 and in_c / 8 are integer divisions: N = 4104 gives 64 blocks of 64 columns and leaves
    // the last 8 columns of W unwritten (torch.empty); the plan says so.
    const LaunchPlan p = plan("awq_gemm", "autoawq", at(4096, "N=4104,K=4096,group_size=128"), "h200");
    EXPECT_EQ(p.verdict, Verdict::Ok) << p.message;
    EXPECT_EQ(p.grid.x, 4104 / 64);
    EXPECT_NE(p.note.find("last 8 columns"), std::string::npos) << p.note;
    // Below the threshold the GEMM kernel's own check refuses N % 64 != 0; from it nothing checks.
    EXPECT_EQ(plan("awq_gemm", "autoawq", at(1023, "N=4104,K=4096,group_size=128"), "h200").verdict, Verdict::UnsupportedShape);
}

TEST(AwqGemmDispatch, Vllm_v0_4_0_gemm_kernels_cu_lines356to378_SameGeometryAsAutoAwq) {
    const LaunchPlan a = plan("awq_gemm", "autoawq", at(4096), "h200");
    const LaunchPlan v = plan("awq_gemm", "vllm", at(4096), "h200");
    EXPECT_EQ(a.grid, v.grid);
    EXPECT_EQ(a.block, v.block);
    EXPECT_EQ(a.kernelSymbol, v.kernelSymbol);
}

TEST(AwqGemmDispatch, StackAssertsRefuseBeforeAnyLaunch) {
    // AutoAWQ v0.2.9 gemm.py lines 132-133; vLLM v0.4.0 awq.py create_weights.
    const LaunchPlan a = plan("awq_gemm", "autoawq", at(2048, "N=4096,K=4000,group_size=128"), "h200");
    EXPECT_EQ(a.verdict, Verdict::UnsupportedShape);
    EXPECT_NE(a.message.find("in_features % self.group_size"), std::string::npos) << a.message;
    const LaunchPlan v = plan("awq_gemm", "vllm", at(2048, "N=4100,K=4096,group_size=128"), "h200");
    EXPECT_EQ(v.verdict, Verdict::UnsupportedShape);
    EXPECT_EQ(v.message,
              "The output size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size.");
}

TEST(AwqGemmDispatch, DequantizeGridYOverflowsLikeAnyLaunch) {
    // grid.y = K/8 > 65,535 at K = 524,288: the runtime rejects it (finishLaunch), as upstream's launch would be.
    const LaunchPlan p = plan("awq_gemm", "autoawq", at(4096, "N=64,K=524288,group_size=128"), "h200");
    EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
}

TEST(AwqGemmDispatch, CliffFinderExplainsTheSwitch) {
    const LaunchPlan below = plan("awq_gemm", "autoawq", at(1023), "h200"), from = plan("awq_gemm", "autoawq", at(1024), "h200");
    EXPECT_EQ(planDifference(below, from, nullptr), "dispatch: dequantize + GEMM from M = 1024");
    EXPECT_EQ(planDifference(from, below, nullptr), "dispatch: dequantize + GEMM from M = 1024 ends (m16n128k32)");
    EXPECT_EQ(planDifference(plan("awq_gemm", "vllm", at(255), "h200"), plan("awq_gemm", "vllm", at(256), "h200"), nullptr),
              "dispatch: dequantize + GEMM from M = 256");
    // A measured step at the switch is explained by it.
    std::vector<SweepPoint> points(2);
    points[0].plan = below;
    points[0].timeUs = 900;
    points[1].plan = from;
    points[1].timeUs = 300;
    const auto cliffs = findCliffs(points, nullptr);
    ASSERT_EQ(cliffs.size(), 1u);
    EXPECT_TRUE(cliffs[0].explained);
    EXPECT_EQ(cliffs[0].explanation, "dispatch: dequantize + GEMM from M = 1024");
}

TEST(AwqGemmDispatch, TheCublasLaunchRoundTripsInPlanJson) {
    const LaunchPlan p = plan("awq_gemm", "autoawq", at(4096), "h200");
    const auto& parameters = test::kernel("awq_gemm", "autoawq").family->parameters();
    nlohmann::ordered_json j = planToJson(p, parameters);
    addPlanDetailJson(j, p, parameters);
    const auto& gemm = j["extra_launches"][0];
    EXPECT_EQ(gemm["role"], "gemm");
    EXPECT_EQ(gemm["library"], "cuBLAS");
    EXPECT_TRUE(gemm["grid"].is_null());  // cuBLAS's choice: unknown, never a made-up (1, 1, 1)
    EXPECT_TRUE(gemm["block"].is_null());
    EXPECT_FALSE(gemm["unknown"].get<std::string>().empty());
    StringPool strings;
    auto read = planFromJson(j, parameters, strings, "/plan");
    ASSERT_TRUE(read.ok()) << read.error();
    ASSERT_EQ(read->extraLaunches.size(), 1u);
    EXPECT_TRUE(read->extraLaunches[0].chosenByLibrary());
    EXPECT_DOUBLE_EQ(read->extraLaunches[0].flops, p.extraLaunches[0].flops);
    EXPECT_DOUBLE_EQ(read->extraLaunches[0].bytesMoved, p.extraLaunches[0].bytesMoved);
    nlohmann::ordered_json again = planToJson(*read, parameters);
    addPlanDetailJson(again, *read, parameters);
    EXPECT_EQ(again.dump(), j.dump());
}

TEST(AwqGemmDispatch, BoundaryMapOutlinesTheSwitch) {
    // M = 64, 128, ..., 2048 on x: AutoAWQ dispatches from the cell M = 1024 (index 15); one N row.
    const KernelChoice k = test::kernel("awq_gemm", "autoawq");
    const Shape base = *parseShape("M=1024,N=4096,K=4096,group_size=128", k.family->parameters());
    SweepAxis x;
    x.parameter = AwqGemmFamily::M;
    for (std::int64_t m = 64; m <= 2048; m += 64) x.values.push_back(m);
    BoundaryMap map(k, test::device("h200"), base, x, std::nullopt);
    evaluateBoundaryMap(map, SweepOptions{1, nullptr, {}});
    EXPECT_FALSE(map.cell(14, 0).callsLibrary);
    EXPECT_TRUE(map.cell(15, 0).callsLibrary);
    EXPECT_EQ(dispatchBoundaryOutline(map), (std::vector<OutlineSegment>{{14.5, -0.5, 14.5, 0.5}}));
    // The split count changes there too (8 -> the dequantize kernel's 1), but that edge is the dispatch's.
    EXPECT_TRUE(splitBoundaryOutline(map).empty());
}

TEST(AwqGemmDispatch, TilesPageSeriesStepsToTheDispatchAt1024) {
    const KernelChoice k = test::kernel("awq_gemm", "autoawq");
    const Shape base = *parseShape("M=16,N=14336,K=4096,group_size=128", k.family->parameters());
    SweepAxis axis;
    axis.parameter = AwqGemmFamily::M;
    axis.values = {1000, 1023, 1024, 2048};
    const TileSeries series = tileSeries(k, test::device("h200"), base, axis);
    ASSERT_EQ(series.tileNames, (std::vector<std::string>{"m16n128k32", "dequantize + GEMM from M = 1024"}));
    ASSERT_EQ(series.points.size(), 4u);
    EXPECT_EQ(series.points[1].tileId, 0);
    EXPECT_EQ(series.points[2].tileId, 1);
}

}  // namespace
}  // namespace tilescope

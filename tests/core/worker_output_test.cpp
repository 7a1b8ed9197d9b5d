#include <gtest/gtest.h>

#include <fstream>

#include "core/trace/json_io.h"
#include "core/trace/worker_output.h"
#include "kernels/builtin_kernels.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

// The shape of one object `tilescope-cli run --json` / `sweep --run` prints (app/cli/commands_run.cpp).
nlohmann::ordered_json workerObject(const LaunchPlan& plan, const ParameterList& parameters) {
    nlohmann::ordered_json j{{"kernel", plan.family},
                             {"variant", plan.variant},
                             {"device", "NVIDIA H100 80GB HBM3"},
                             {"shape", shapeToJson(plan.shape, parameters)}};
    j["plan"] = planToJson(plan, parameters);
    j["launched"] = true;
    j["launch"] = {{"name", "cudaSuccess"}, {"text", "no error"}, {"code", 0}};
    j["synchronize"] = {{"name", "cudaErrorIllegalAddress"}, {"text", "an illegal memory access was encountered"}, {"code", 700}};
    j["records"] = nlohmann::ordered_json::array();
    j["records"].push_back({{"name", "awq_gemm_kernel"},
                            {"start_ns", 10},
                            {"end_ns", 30},
                            {"device", 0},
                            {"stream", 7},
                            {"correlation_id", 5},
                            {"grid", {1, 2, 3}},
                            {"block", {128, 1, 1}},
                            {"external_id", 1},
                            {"registers_per_thread", 96},
                            {"static_smem", 10496},
                            {"dynamic_smem", 0},
                            {"local_memory_per_thread", 0},
                            {"shmem_limit_config", 0}});
    j["check"] = {{"max_relative_error", 0.5}, {"bound", 0.01}, {"passed", false}, {"rows", 16}};
    j["timing_us"] = {{"repeats", 3}, {"min", 1.0}, {"median", 2.0}, {"mean", 2.5}};
    return j;
}

TEST(WorkerOutput, ReadsTheWorkersRunObject) {
    const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
    const LaunchPlan plan = test::planFor("awq_gemm", "", "M=16,N=4096,K=4096", h100);
    const auto& parameters = builtinKernels().find("awq_gemm")->parameters();
    auto run = runFromWorkerJson(workerObject(plan, parameters), builtinKernels());
    ASSERT_TRUE(run) << run.error();
    EXPECT_EQ(run->kind, RunKind::Measured);
    EXPECT_EQ(run->plan.family, "awq_gemm");
    EXPECT_EQ(run->plan.shape, plan.shape);
    EXPECT_EQ(run->plan.grid, plan.grid);
    ASSERT_TRUE(run->gpu);
    EXPECT_TRUE(run->gpu->launch.ok());
    EXPECT_EQ(run->gpu->synchronize.errorName, "cudaErrorIllegalAddress");
    EXPECT_EQ(run->gpu->synchronize.code, 700);
    ASSERT_EQ(run->gpu->records.size(), 1U);
    const KernelRecord& r = run->gpu->records.front();
    EXPECT_EQ(r.grid, (Dim3{1, 2, 3}));
    EXPECT_EQ(r.registersPerThread, 96);
    EXPECT_EQ(r.staticSmem, 10496);
    EXPECT_EQ(r.durationNs(), 20);
    ASSERT_TRUE(run->gpu->check);
    EXPECT_FALSE(run->gpu->check->passed);
    ASSERT_TRUE(run->gpu->timing);
    EXPECT_DOUBLE_EQ(run->gpu->timing->medianUs, 2.0);
    EXPECT_EQ(run->gpu->deviceName, "NVIDIA H100 80GB HBM3");
}

// A line `tilescope-cli run --json --flush-l2` printed on an H200 in the GPU check of 2026-11-30
// (tests/data/gpu_check): the GUI's worker path must read what the CLI really writes.
TEST(WorkerOutput, ReadsARunTheCliPrintedOnAnH200) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/gpu_check/h200_run_awq_gemv.json");
    ASSERT_TRUE(in);
    const auto j = nlohmann::ordered_json::parse(in);
    auto run = runFromWorkerJson(j, builtinKernels());
    ASSERT_TRUE(run) << run.error();
    ASSERT_TRUE(run->gpu);
    EXPECT_EQ(run->gpu->deviceName, "NVIDIA H200");
    ASSERT_EQ(run->gpu->records.size(), 21U);  // the checked launch and 20 timed repeats
    EXPECT_EQ(run->gpu->records.front().registersPerThread, 40);
    EXPECT_EQ(run->gpu->records.front().grid, (Dim3{1, 1024, 1}));
    ASSERT_TRUE(run->gpu->timing);
    EXPECT_EQ(run->gpu->timing->source, "cupti");
    EXPECT_TRUE(run->gpu->timing->l2Flushed);
    EXPECT_EQ(run->gpu->timing->repeats, 20);
    EXPECT_NEAR(run->gpu->timing->medianUs, 36.096, 1e-9);
    ASSERT_TRUE(run->gpu->check);
    EXPECT_TRUE(run->gpu->check->passed);
}

TEST(WorkerOutput, RejectsWhatIsNotARun) {
    EXPECT_FALSE(runFromWorkerJson(nlohmann::ordered_json::parse("{\"cell\": 1}"), builtinKernels()));
    EXPECT_FALSE(runFromWorkerJson(nlohmann::ordered_json::parse("[1, 2]"), builtinKernels()));
    EXPECT_FALSE(runFromWorkerJson(nlohmann::ordered_json::parse("{\"kernel\": \"nope\", \"plan\": {}}"), builtinKernels()));
}

TEST(WorkerOutput, AFailedWorkerRunCarriesTheReason) {
    const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
    const LaunchPlan plan = test::planFor("awq_gemm", "", "M=16,N=4096,K=4096", h100);
    const tilescope::Run run =
        failedWorkerRun(plan, builtinKernels().find("awq_gemm")->parameters(), "the worker crashed after 1 of 4 runs");
    ASSERT_TRUE(run.gpu);
    EXPECT_FALSE(run.gpu->launch.ok());
    EXPECT_EQ(run.gpu->launch.errorName, kWorkerFailedName);
    EXPECT_EQ(run.gpu->launch.errorText, "the worker crashed after 1 of 4 runs");
    EXPECT_TRUE(run.gpu->records.empty());
}

}  // namespace
}  // namespace tilescope

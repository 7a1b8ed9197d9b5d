// Launch errors per CUDA runtime (issue 12): a grid or block over its limit is
// cudaErrorInvalidConfiguration on CUDA 12 and cudaErrorInvalidValue on CUDA 13; shared memory
// over the opt-in limit is cudaErrorInvalidValue on both.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_text.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "core/model/sweep.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::device;

DeviceSpec withRuntime(std::string_view id, int runtime) {
    DeviceSpec spec = device(id);
    spec.cudaRuntime = runtime;
    return spec;
}

struct RuntimeRow {
    int runtime;
    std::string_view message;
    std::string_view name;
    int code;
};
constexpr RuntimeRow kRows[] = {
    {12, "CUDA error: invalid configuration argument", "cudaErrorInvalidConfiguration", 9},
    {13, "CUDA error: invalid argument", "cudaErrorInvalidValue", 1},
};

TEST(CudaRuntime, DatabaseDevicesDefaultToTheToolkit) {
    EXPECT_EQ(device("h100-sxm").cudaRuntime, toolkitCudaRuntime());
    EXPECT_EQ(DeviceSpec{}.cudaRuntime, toolkitCudaRuntime());
}

TEST(CudaRuntime, GridYOverflowOfTheSeedShape) {
    // legacy_grid_y at M=32768, N=5376: grid.y = 86,016 > 65,535.
    for (const auto& row : kRows) {
        SCOPED_TRACE(row.runtime);
        const LaunchPlan p = test::planOn("awq_gemm", "legacy_grid_y", "M=32768,N=5376", withRuntime("h100-sxm", row.runtime));
        EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
        EXPECT_EQ(p.message, row.message);
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->name, row.name);
        EXPECT_EQ(p.cudaError->code, row.code);
        ASSERT_TRUE(p.limit);
        EXPECT_EQ(p.limit->name, "max_grid_dim_y");
        EXPECT_TRUE(errorDependsOnCudaRuntime(p));
    }
}

TEST(CudaRuntime, BlockOverTheThreadLimit) {
    for (const auto& row : kRows) {
        SCOPED_TRACE(row.runtime);
        LaunchPlan p;
        p.block = {2048, 1, 1};  // the block the H200 check launched
        finishLaunch(p, withRuntime("h100-sxm", row.runtime), KernelResourceTable{}, PlanDetail::Full);
        EXPECT_EQ(p.verdict, Verdict::InvalidLaunch);
        EXPECT_EQ(p.message, row.message);
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->code, row.code);
    }
}

TEST(CudaRuntime, SharedMemoryOverTheOptInLimitIsInvalidValueOnBoth) {
    for (const auto& row : kRows) {
        SCOPED_TRACE(row.runtime);
        const DeviceSpec spec = withRuntime("h100-sxm", row.runtime);
        LaunchPlan p;
        p.block = {128, 1, 1};
        p.optsIntoLargeSmem = true;
        p.dynamicSmem = spec.smemPerBlockOptin + 1;
        finishLaunch(p, spec, KernelResourceTable{}, PlanDetail::Full);
        EXPECT_EQ(p.message, "CUDA error: invalid argument");
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->name, "cudaErrorInvalidValue");
        EXPECT_FALSE(errorDependsOnCudaRuntime(p));
        EXPECT_EQ(describeCudaError(p, row.runtime), "cudaErrorInvalidValue (1)");
    }
}

// The bundled kernels are compiled for TILESCOPE_CUDA_ARCHS (sm_75 and newer; CUDA 13 compiles nothing
// older): on a P100 or V100 the driver finds no code to load, whatever the shape or runtime. Both were
// planned as launching. A GPU newer than the newest arch JITs its PTX; one between (cc 11.0: no SASS of
// major 11, and sm_120 PTX does not run below 12.0) has none either.
TEST(CudaRuntime, NoKernelImageBelowTheCompiledArchs) {
    const std::vector<int> compiled = compiledKernelResources().compiledSmVersions("awq_gemv_kernel");
    ASSERT_FALSE(compiled.empty());
    ASSERT_EQ(compiled.front(), 75);
    for (const char* id : {"p100-sxm2-16gb", "v100-sxm2-16gb", "gtx-1080-ti"}) {
        for (const RuntimeRow& row : kRows) {
            const LaunchPlan p = test::planOn("awq_gemv", "gemv", "", withRuntime(id, row.runtime));
            EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice) << id;
            EXPECT_EQ(p.message, kNoKernelImageText) << id;
            ASSERT_TRUE(p.cudaError) << id;
            EXPECT_EQ(p.cudaError->code, 209);
            ASSERT_TRUE(p.limit);
            EXPECT_EQ(p.limit->name, "compute_capability");
            EXPECT_EQ(p.limit->limit, 75);
            EXPECT_NE(p.alternative.find("sm_75, sm_80"), std::string::npos) << p.alternative;
        }
    }
    EXPECT_TRUE(test::plan("awq_gemv", "gemv", "", "t4").ok());
    DeviceSpec future = device("rtx-5090");
    future.computeCapability = {13, 0};
    EXPECT_TRUE(test::planOn("awq_gemv", "gemv", "", future).ok()) << "PTX of the newest arch JITs";
    DeviceSpec between = device("b200");
    between.computeCapability = {11, 0};
    const LaunchPlan p = test::planOn("awq_gemv", "gemv", "", between);
    EXPECT_EQ(p.verdict, Verdict::UnsupportedDevice);
    ASSERT_TRUE(p.limit);
    EXPECT_EQ(p.limit->limit, compiled.back());
    // A model-only family's symbol is not in the table: not judged by this rule.
    EXPECT_NE(test::plan("custom", "launch", "", "v100-sxm2-16gb").verdict, Verdict::UnsupportedDevice);
}

TEST(CudaRuntime, DescriptionNamesTheOtherRuntime) {
    const LaunchPlan on12 = test::planOn("awq_gemm", "legacy_grid_y", "M=32768,N=5376", withRuntime("h100-sxm", 12));
    EXPECT_EQ(describeCudaError(on12, 12), "cudaErrorInvalidConfiguration (9) on the CUDA 12 runtime; CUDA 13: cudaErrorInvalidValue (1)");
    const LaunchPlan on13 = test::planOn("awq_gemm", "legacy_grid_y", "M=32768,N=5376", withRuntime("h100-sxm", 13));
    EXPECT_EQ(describeCudaError(on13, 13), "cudaErrorInvalidValue (1) on the CUDA 13 runtime; CUDA 12: cudaErrorInvalidConfiguration (9)");
}

TEST(CudaRuntime, ParsesTheChoices) {
    EXPECT_EQ(parseCudaRuntime("12").value(), 12);
    EXPECT_EQ(parseCudaRuntime("13").value(), 13);
    for (const char* bad : {"11", "12.4", "", "cuda13"}) {
        const auto parsed = parseCudaRuntime(bad);
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_NE(parsed.error().find("choices: 12, 13"), std::string::npos) << parsed.error();
    }
}

TEST(CudaRuntime, SweepCellsCarryTheRuntimesText) {
    const KernelChoice k = test::kernel("awq_gemm", "legacy_grid_y");
    auto x = parseSweepAxis("M=65536", k.family->parameters());
    ASSERT_TRUE(x.ok());
    for (const auto& row : kRows) {
        BoundaryMap map(k, withRuntime("h100-sxm", row.runtime), test::shape(k, "N=5376"), *x, std::nullopt);
        ASSERT_TRUE(evaluateBoundaryMap(map));
        EXPECT_EQ(map.cell(0, 0).verdict, Verdict::InvalidLaunch);
        EXPECT_EQ(map.planAt(0, 0, nullptr).message, row.message);
    }
}

// ---- diagnose: each runtime's text and the driver API's, as the stacks print them ----------------

DiagnosisFinding onlyFinding(const std::string& text) {
    auto d = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(d.ok());
    if (!d.ok() || d->findings.size() != 1) {
        ADD_FAILURE() << "expected one finding in: " << text;
        return {};
    }
    return d->findings.front();
}

struct DiagnoseRow {
    const char* source;
    const char* text;
    const char* signature;
};

TEST(CudaRuntimeDiagnose, RecognisesEveryForm) {
    // Each line as published in the named report (the cause there: a grid or block over a limit,
    // except ComfyUI's, whose cause the report does not say).
    const DiagnoseRow rows[] = {
        {"ml-explore/mlx #2267 (CUDA 12 runtime)", "RuntimeError: kernel launch failed: invalid configuration argument\n",
         "cuda.invalid_configuration"},
        {"pytorch/FBGEMM #2639 (CUDA 12 runtime)", "c10::Error: CUDA error: invalid configuration argument\n",
         "cuda.invalid_configuration"},
        {"Comfy-Org/ComfyUI #10862 (runtime text)",
         "RuntimeError: CUDA error: invalid argument\n"
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n",
         "cuda.invalid_value"},
        {"triton-lang/triton #3299 (driver API)", "RuntimeError: Triton Error [CUDA]: invalid argument\n", "cuda.invalid_value"},
        {"tinygrad/tinygrad #625 (pycuda, driver API)", "pycuda._driver.LogicError: cuLaunchKernel failed: invalid argument\n",
         "cuda.invalid_value"},
        {"numba/numba #1055 (driver API)",
         "numba.cuda.cudadrv.driver.CudaAPIError: Call to cuLaunchKernel results in CUDA_ERROR_INVALID_VALUE\n", "cuda.invalid_value"},
        {"TUE-EE-ES/HalideAutoGPU #5 (driver API)", "Error: CUDA: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE\n", "cuda.invalid_value"},
    };
    for (const auto& row : rows) {
        SCOPED_TRACE(row.source);
        const DiagnosisFinding f = onlyFinding(row.text);
        EXPECT_EQ(f.signature, row.signature);
        EXPECT_EQ(f.kind, Verdict::InvalidLaunch);
        if (std::string_view(row.signature) == "cuda.invalid_value") {
            EXPECT_NE(f.explanation.find("grid dimension"), std::string::npos) << f.explanation;
        }
    }
}

TEST(CudaRuntimeDiagnose, EachRuntimesTextPlansWithThatRuntime) {
    // The shared awq_legacy_grid.log as the CUDA 12 runtime prints it, and the same launch as the
    // CUDA 13 runtime prints it: "invalid argument" (measured on the H200, issue 12).
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/logs/awq_legacy_grid.log", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string cuda12 = text.str();
    const std::string from = "CUDA error: invalid configuration argument";
    const auto at = cuda12.find(from);
    ASSERT_NE(at, std::string::npos);
    std::string cuda13 = cuda12;
    cuda13.replace(at, from.size(), "CUDA error: invalid argument");
    for (const auto& [log, runtime] : {std::pair{cuda12, 12}, std::pair{cuda13, 13}}) {
        SCOPED_TRACE(runtime);
        const DiagnosisFinding f = onlyFinding(log);
        EXPECT_EQ(f.family, "awq_gemm");
        EXPECT_EQ(f.variant, "legacy_grid_y");
        ASSERT_TRUE(f.plan);
        EXPECT_EQ(f.plan->verdict, Verdict::InvalidLaunch);
        EXPECT_EQ(f.plan->message, launchConfigurationRejection(runtime).message);
        ASSERT_TRUE(f.limit);
        EXPECT_EQ(f.limit->actual, 86016);
    }
}

// The runtime a finding's map opens on is the one its log's launch error names (issue 31 item 3),
// read in core (it was re-derived from the text in the Diagnose dock). Logs as the stacks printed them.
TEST(CudaRuntimeDiagnose, RuntimeOfTheLaunchErrorALogQuotes) {
    auto lineOf = [](const std::string& file, std::string_view needle) {
        std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/" + file, std::ios::binary);
        for (std::string line; std::getline(in, line);)
            if (line.find(needle) != std::string::npos) return line;
        return std::string();
    };
    // AutoAWQ's legacy grid on CUDA 12: "RuntimeError: CUDA error: invalid configuration argument".
    const std::string cuda12 = lineOf("tests/data/logs/awq_legacy_grid.log", "CUDA error:");
    ASSERT_FALSE(cuda12.empty());
    EXPECT_EQ(cudaRuntimeOfLaunchError(cuda12), 12);
    // aqlm#25: "RuntimeError: CUDA error: invalid argument" (13's text for a grid or block over its limit).
    const std::string cuda13 = lineOf("tests/data/diagnose_corpus/aqlm25_jupyter_invalid_argument.log", "CUDA error:");
    ASSERT_FALSE(cuda13.empty());
    EXPECT_EQ(cudaRuntimeOfLaunchError(cuda13), 13);
    EXPECT_EQ(cudaRuntimeOfLaunchError(std::string(launchConfigurationRejection(12).error.name)), 12);
    // The log's other lines quote no launch error.
    EXPECT_EQ(cudaRuntimeOfLaunchError(lineOf("tests/data/logs/awq_legacy_grid.log", "CUDA_LAUNCH_BLOCKING")), 0);
}

}  // namespace
}  // namespace tilescope

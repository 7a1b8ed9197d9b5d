// Readers of other tools' launch reports (issue 16), on real output: ptxas -v of this project's
// build and of a small nvcc compile (tests/data/ptxas), Nsight Compute details CSV from the H200
// GPU check (tests/data/ncu), PyTorch profiler traces (tests/data/*.json.gz).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/diagnosis/launch_report.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

std::string readData(const std::string& relative) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/" + relative, std::ios::binary);
    EXPECT_TRUE(in) << relative;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

const ReportedLaunch* find(const LaunchReport& report, std::string_view name) {
    for (const ReportedLaunch& l : report.launches)
        if (l.name == name) return &l;
    return nullptr;
}

TEST(PtxasReport, EveryEntryFunctionOfThisProjectsBuild) {
    const std::string text = readData("ptxas/awq_gemv_sm90.log");
    EXPECT_EQ(detectLaunchReportKind(text), LaunchReportKind::Ptxas);
    auto report = readPtxasReport(text);
    ASSERT_TRUE(report) << report.error();
    ASSERT_EQ(report->launches.size(), 8u);
    const ReportedLaunch& first = report->launches.front();
    EXPECT_EQ(first.name, "awq_gemv_fast_b7");
    EXPECT_EQ(first.displayName, "awq_gemv_fast_b7");  // extern "C": nothing to demangle
    EXPECT_EQ(first.arch, "sm_90");
    EXPECT_EQ(first.line, 2);
    EXPECT_EQ(first.registers, 104);
    EXPECT_EQ(first.staticSmem, 3584);
    EXPECT_EQ(first.stackBytes, 0);
    EXPECT_EQ(first.spillStoreBytes, 0);
    EXPECT_EQ(first.spillLoadBytes, 0);
    EXPECT_FALSE(first.grid);
    EXPECT_FALSE(first.block);
    const ReportedLaunch* gemv = find(*report, "awq_gemv_kernel");
    ASSERT_NE(gemv, nullptr);
    EXPECT_EQ(gemv->registers, 48);
    EXPECT_EQ(gemv->staticSmem, 0);  // "Used 48 registers, used 0 barriers" has no smem figure
}

TEST(PtxasReport, AttentionKernelsAndTheirSharedMemory) {
    auto report = readPtxasReport(readData("ptxas/attention_sm90.log"));
    ASSERT_TRUE(report) << report.error();
    EXPECT_GE(report->launches.size(), 10u);
    for (const ReportedLaunch& l : report->launches) {
        SCOPED_TRACE(l.name);
        EXPECT_TRUE(l.name.starts_with("flash_fwd_")) << l.name;
        ASSERT_TRUE(l.registers);
        EXPECT_GT(*l.registers, 0);
        EXPECT_LE(*l.registers, 255);
        EXPECT_TRUE(l.staticSmem);
    }
}

TEST(PtxasReport, MangledTemplatesAndPtxasRefusal) {
    auto report = readPtxasReport(readData("ptxas/scale_templates_sm90.log"));
    ASSERT_TRUE(report) << report.error();
    ASSERT_EQ(report->launches.size(), 2u);
    const ReportedLaunch& big = report->launches[0];
    EXPECT_EQ(big.name, "_Z5scaleIdLi8192EEvPT_PKS0_S0_");
    EXPECT_EQ(big.displayName, "void scale<double, 8192>(double*, double const*, double)");
    EXPECT_EQ(big.registers, 14);
    EXPECT_EQ(big.staticSmem, 65536);
    EXPECT_EQ(big.line, 3);
    EXPECT_EQ(big.toolError,
              "ptxas error   : Entry function '_Z5scaleIdLi8192EEvPT_PKS0_S0_' uses too much shared data (0x10000 bytes, 0xc000 max)");
    const ReportedLaunch& small = report->launches[1];
    EXPECT_EQ(small.displayName, "void scale<float, 256>(float*, float const*, float)");
    EXPECT_EQ(small.registers, 12);
    EXPECT_EQ(small.staticSmem, 1024);
    EXPECT_TRUE(small.toolError.empty());
}

TEST(PtxasReport, TextWithoutAReportIsAnError) {
    EXPECT_FALSE(readPtxasReport(readData("ptxas/README.md")));
    EXPECT_FALSE(readPtxasReport(""));
    EXPECT_FALSE(detectLaunchReportKind(readData("ptxas/README.md")));
}

TEST(NcuCsv, DetailsPageLaunchStatistics) {
    const std::string text = readData("ncu/h200_gemm_bucket_bn256_details.csv");
    EXPECT_EQ(detectLaunchReportKind(text), LaunchReportKind::NcuCsv);
    auto report = readNcuCsv(text);
    ASSERT_TRUE(report) << report.error();
    ASSERT_EQ(report->launches.size(), 1u);
    const ReportedLaunch& l = report->launches.front();
    EXPECT_EQ(l.name, "gemm_bucket_bn256");
    EXPECT_EQ(l.arch, "9.0");
    EXPECT_EQ(l.grid, (Dim3{64, 1, 1}));
    EXPECT_EQ(l.block, (Dim3{256, 1, 1}));
    EXPECT_EQ(l.registers, 245);
    EXPECT_EQ(l.staticSmem, 0);
    EXPECT_EQ(l.dynamicSmem, 196608);  // "196,608" byte/block
    EXPECT_EQ(l.line, 7);              // after ncu's ==PROF== lines and the header
    EXPECT_TRUE(report->notes.empty());
}

TEST(NcuCsv, ThreeDimensionalGridFromTheSizeColumns) {
    auto report = readNcuCsv(readData("ncu/h200_awq_gemv_details.csv"));
    ASSERT_TRUE(report) << report.error();
    ASSERT_EQ(report->launches.size(), 1u);
    const ReportedLaunch& l = report->launches.front();
    EXPECT_EQ(l.name, "awq_gemv_kernel");
    EXPECT_EQ(l.grid, (Dim3{1, 2752, 1}));  // the Launch Statistics row says only "2,752"
    EXPECT_EQ(l.block, (Dim3{32, 4, 1}));
    EXPECT_EQ(l.registers, 48);
    EXPECT_EQ(l.dynamicSmem, 0);
}

TEST(NcuCsv, NotACsvIsAnError) { EXPECT_FALSE(readNcuCsv(readData("ptxas/awq_gemv_sm90.log"))); }

TEST(KinetoLaunches, DistinctConfigurationsOfAProfilerTrace) {
    auto report = readKinetoLaunches(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/tracelens_bert-small_h100.json.gz");
    ASSERT_TRUE(report) << report.error();
    EXPECT_EQ(report->kind, LaunchReportKind::Kineto);
    ASSERT_EQ(report->launches.size(), 12u);
    bool sawLarge = false;
    for (const ReportedLaunch& l : report->launches) {
        EXPECT_TRUE(l.grid);
        EXPECT_TRUE(l.block);
        EXPECT_TRUE(l.registers);
        EXPECT_GE(l.count, 1);
        // Kineto gives static + dynamic shared memory as one figure.
        EXPECT_TRUE(l.sharedMemoryTotal);
        EXPECT_FALSE(l.dynamicSmem);
        sawLarge = sawLarge || l.sharedMemoryTotal.value_or(0) == 231424;  // the sm90 cuBLAS kernel
    }
    EXPECT_TRUE(sawLarge);
}

TEST(LaunchReportFile, AnyKindByContentAndAsCustomParameters) {
    const std::string data = std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/";
    const KernelFamily* launchFamily = builtinKernels().launchFiguresFamily();
    ASSERT_TRUE(launchFamily);
    auto customShapeText = [&](const ReportedLaunch& l) { return launchShapeText(l, *launchFamily); };
    auto ptxas = readLaunchReportFile(data + "ptxas/awq_gemv_sm90.log");
    ASSERT_TRUE(ptxas) << ptxas.error();
    EXPECT_EQ(ptxas->kind, LaunchReportKind::Ptxas);
    // No grid or block in a ptxas report: the custom defaults stay.
    EXPECT_EQ(customShapeText(ptxas->launches.front()), "registers=104,static_smem=3584,dynamic_smem=0,smem_optin=0");
    auto ncu = readLaunchReportFile(data + "ncu/h200_awq_gemv_details.csv");
    ASSERT_TRUE(ncu) << ncu.error();
    EXPECT_EQ(customShapeText(ncu->launches.front()),
              "grid_x=1,grid_y=2752,grid_z=1,block_x=32,block_y=4,block_z=1,registers=48,static_smem=0,dynamic_smem=0,smem_optin=0");
    auto trace = readLaunchReportFile(data + "tracelens_bert-small_h100.json.gz");
    ASSERT_TRUE(trace) << trace.error();
    EXPECT_EQ(trace->kind, LaunchReportKind::Kineto);
    bool sawOptIn = false;
    for (const ReportedLaunch& l : trace->launches)
        if (l.sharedMemoryTotal == 231424) {
            // Kineto's total is taken as dynamic; above 48 KB the kernel must have opted in.
            EXPECT_NE(customShapeText(l).find("static_smem=0,dynamic_smem=231424,smem_optin=1"), std::string::npos);
            sawOptIn = true;
        }
    EXPECT_TRUE(sawOptIn);
    EXPECT_FALSE(readLaunchReportFile(data + "ptxas/README.md"));
    EXPECT_FALSE(readLaunchReportFile(data + "no_such_file.log"));
    ReportedLaunch unknown;
    EXPECT_EQ(customShapeText(unknown), "");  // registers unknown: no launch to check
}

TEST(LaunchReportKind, NamesForTheFormatOption) {
    EXPECT_EQ(parseLaunchReportKind("ptxas").value(), LaunchReportKind::Ptxas);
    EXPECT_EQ(parseLaunchReportKind("ncu").value(), LaunchReportKind::NcuCsv);
    EXPECT_EQ(parseLaunchReportKind("kineto").value(), LaunchReportKind::Kineto);
    EXPECT_FALSE(parseLaunchReportKind("nvprof"));
    EXPECT_EQ(demangleKernelName("_Z3fooi"), "foo(int)");
    EXPECT_EQ(demangleKernelName("_Zbroken"), "_Zbroken");
    EXPECT_EQ(demangleKernelName("plain"), "plain");
}

}  // namespace
}  // namespace tilescope

#include <gtest/gtest.h>

#include "core/trace/kineto_import.h"
#include "core/trace/record_flags.h"
#include "core/series/report_text.h"
#include "kernels/builtin_kernels.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

TEST(ReportText, EscapesHtmlAndEncodesBase64) {
    EXPECT_EQ(htmlEscape("<script>alert(1)</script> & \"x\" 'y'"), "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &#39;y&#39;");
    EXPECT_EQ(base64Encode(""), "");
    EXPECT_EQ(base64Encode("f"), "Zg==");
    EXPECT_EQ(base64Encode("fo"), "Zm8=");
    EXPECT_EQ(base64Encode("foo"), "Zm9v");
    EXPECT_EQ(base64Encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64Encode(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(ReportText, HtmlEscapesEveryTraceStringAndEmbedsEveryPlot) {
    Trace trace = test::fixtureTrace();
    trace.records[0].name = "<script>alert(1)</script>";
    trace.notes.push_back("<b>note</b>");
    trace.source = "a & b";
    const std::vector<ReportPlot> plots{{"Timeline", "timeline.png", "PNG-A"}, {"Kernels <by> time", "kernels.png", "PNG-B"}};
    const std::string html = reportHtml(trace, builtinKernels(), plots, "report <1>");
    EXPECT_EQ(html.find("<script>"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("&lt;b&gt;note&lt;/b&gt;"), std::string::npos);
    EXPECT_NE(html.find("a &amp; b"), std::string::npos);
    EXPECT_NE(html.find("<title>report &lt;1&gt;</title>"), std::string::npos);
    EXPECT_NE(html.find("data:image/png;base64," + base64Encode("PNG-A")), std::string::npos);
    EXPECT_NE(html.find("data:image/png;base64," + base64Encode("PNG-B")), std::string::npos);
    EXPECT_NE(html.find("Kernels &lt;by&gt; time"), std::string::npos);
    // The failed GPU run with its error and the plan's fix; the device specs.
    EXPECT_NE(html.find("cudaErrorInvalidConfiguration: invalid configuration argument"), std::string::npos);
    EXPECT_NE(html.find(htmlEscape(trace.runs[3].plan.fix)), std::string::npos);
    EXPECT_FALSE(trace.runs[3].plan.fix.empty());
    EXPECT_NE(html.find("<td>a100-80gb-sxm</td>"), std::string::npos);
}

TEST(ReportText, MarkdownReferencesThePlotFilesAndKeepsTablesIntact) {
    Trace trace = test::fixtureTrace();
    trace.records[0].name = "a|b<c>";
    const std::string md = reportMarkdown(trace, builtinKernels(), {{"Timeline", "timeline.png", "x"}}, "r", "report_files");
    EXPECT_NE(md.find("![Timeline](report_files/timeline.png)"), std::string::npos);
    EXPECT_NE(md.find("a\\|b&lt;c&gt;"), std::string::npos);
    EXPECT_NE(md.find("## Failures"), std::string::npos);
}

TEST(ReportText, FailedRunShowsNoDurationAndRunsTableSaysSo) {
    const Trace trace = test::fixtureTrace();
    ASSERT_TRUE(trace.runs[3].gpu && !trace.runs[3].gpu->launch.ok());  // cudaErrorInvalidConfiguration, no kernel ran
    EXPECT_EQ(runDurationText(trace.runs[3]), "\u2014, failed");
    EXPECT_EQ(runDurationText(trace.runs[0]), "predicted");
    const std::string html = reportHtml(trace, builtinKernels(), {}, "r");
    EXPECT_NE(html.find("<th>duration (us)</th>"), std::string::npos);
    EXPECT_NE(html.find("<td>\u2014, failed</td></tr>"), std::string::npos);
    EXPECT_EQ(html.find("<td>0.000</td>"), std::string::npos);
    EXPECT_NE(reportMarkdown(trace, builtinKernels(), {}, "r", "f").find("| \u2014, failed |"), std::string::npos);
}

TEST(ReportText, BaseNameDropsTheJsonEndingOrNamesTheKernelAndShape) {
    EXPECT_EQ(reportBaseName("alexnet.json.gz"), "alexnet-report");
    EXPECT_EQ(reportBaseName("/data/bert.json"), "bert-report");
    EXPECT_EQ(reportBaseName("run.tilescope.json"), "run-report");
    EXPECT_EQ(reportBaseName("", "awq_gemm", "gemm", "M=1,N=4096,K=4096"), "awq_gemm-gemm-M1-N4096-K4096-report");
    EXPECT_EQ(reportBaseName("untitled", "attention", "fa2", "batch=1"), "attention-fa2-batch1-report");
}

TEST(ReportText, ExplorerSectionShowsBothDevicesVerdictLimitAndFix) {
    const DeviceSpec& t4 = *DeviceDatabase::embedded().find("t4");
    const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
    auto kernel = resolveKernel(builtinKernels(), "attention", "fa2");
    ASSERT_TRUE(kernel);
    ReportContent content;
    content.title = "r";
    content.explorer = ReportExplorer{kernel->family->parameters(),
                                      t4,
                                      test::planFor("attention", "fa2", "batch=1", t4),
                                      h100,
                                      test::planFor("attention", "fa2", "batch=1", h100),
                                      ReportPlot{"Boundary map on t4", "boundary-map.png", "PNG"},
                                      "legend <text>"};
    const LaunchPlan& plan = content.explorer->plan;
    ASSERT_FALSE(plan.ok());
    const std::string html = reportHtml(content, builtinKernels());
    EXPECT_NE(html.find("Current shape: attention / fa2"), std::string::npos);
    EXPECT_NE(html.find(">compare device</th>"), std::string::npos);
    EXPECT_NE(html.find(htmlEscape(plan.message)), std::string::npos);
    EXPECT_NE(html.find(htmlEscape(plan.fix)), std::string::npos);
    if (plan.limit) {
        EXPECT_NE(html.find(std::string(plan.limit->name)), std::string::npos);
    }
    EXPECT_NE(html.find("id=\"boundary-map.png\""), std::string::npos);
    EXPECT_NE(html.find("legend &lt;text&gt;"), std::string::npos);
    EXPECT_EQ(html.find("Trace summary"), std::string::npos);  // no trace, no trace sections
}

// Issue 31: the AlexNet sample's 5,123-character kernel name was printed whole as a footnote, a page
// and a half of the PDF; the footnote now gives its first level of template arguments.
TEST(ReportText, LongKernelNameFootnoteIsCompact) {
    auto trace = openTraceFile(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels());
    ASSERT_TRUE(trace) << trace.error();
    std::string longest;
    for (const auto& r : trace->records)
        if (r.name.size() > longest.size()) longest = r.name;
    ASSERT_EQ(longest.size(), 5123u);
    const std::string compact = compactKernelName(longest);
    EXPECT_LE(compact.size(), kReportMaxFootnoteChars);
    EXPECT_EQ(compact.rfind("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, ", 0), 0u)
        << compact;
    EXPECT_NE(compact.find("uniform_and_transform<\u2026>(\u2026)"), std::string::npos) << compact;
    // The sample's names under the footnote limit stay whole.
    for (const auto& r : trace->records) {
        if (r.name.size() <= kReportMaxFootnoteChars) {
            EXPECT_EQ(compactKernelName(r.name), r.name);
        }
    }

    const std::string html = reportHtml(*trace, builtinKernels(), {}, "alexnet");
    EXPECT_EQ(html.find(htmlEscape(longest)), std::string::npos);
    EXPECT_NE(html.find("(5,123 characters in full)"), std::string::npos);
}

TEST(RecordFlags, AlexnetSampleFlagsTheKernelsKinetoGaveZeroOccupancy) {
    // resources/samples/README.md: 6 kernels with 67,584 B that Kineto reports at 0 % (12.5 % by cuda_occupancy.h).
    auto trace = openTraceFile(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels());
    ASSERT_TRUE(trace) << trace.error();
    const auto flags = flagRecords(*trace, trace->records);
    ASSERT_EQ(flags.size(), trace->records.size());
    int corrected = 0;
    for (std::size_t i = 0; i < flags.size(); ++i)
        if (flags[i].occupancyCorrected) {
            ++corrected;
            EXPECT_EQ(trace->records[i].sharedMemory.value_or(0), 67'584);
            EXPECT_NEAR(flags[i].occupancyPct.value_or(0.0), 12.5, 1e-9);
        }
    EXPECT_EQ(corrected, 6);
}

TEST(RecordFlags, NoDeviceMeansNothingChecked) {
    Trace trace = test::fixtureTrace();
    trace.devices.clear();
    for (const auto& f : flagRecords(trace, trace.records)) {
        EXPECT_FALSE(f.checked);
        EXPECT_FALSE(f.flagged());
    }
}

}  // namespace
}  // namespace tilescope

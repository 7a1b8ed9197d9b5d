// Chrome trace, CSV and Markdown exports: golden files (tests/data/trace_golden.*) and structure.
// TILESCOPE_UPDATE_GOLDEN=1 rewrites the golden files; review the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/trace/chrome_export.h"
#include "core/trace/trace_io.h"
#include "core/trace/trace_summary.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

std::string goldenPath(const char* name) { return std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/" + name; }

void compareWithGolden(const std::string& actual, const char* name) {
    const std::string path = goldenPath(name);
    if (std::getenv("TILESCOPE_UPDATE_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "missing golden file " << path;
    std::ostringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

TEST(TraceExport, ChromeTraceMatchesGolden) { compareWithGolden(chromeTraceText(test::fixtureTrace()), "trace_golden.chrome.json"); }

TEST(TraceExport, CsvMatchesGolden) { compareWithGolden(traceToCsv(test::fixtureTrace()), "trace_golden.csv"); }

TEST(TraceExport, NativeTraceMatchesGolden) {
    // The file format itself: a change here is a format change (bump the version if incompatible).
    compareWithGolden(traceToText(test::fixtureTrace()), "trace_golden.tilescope.json");
    auto read = readTraceFile(goldenPath("trace_golden.tilescope.json"), builtinKernels());
    ASSERT_TRUE(read.ok()) << read.error();
}

TEST(TraceExport, ChromeTraceIsWhatPerfettoReads) {
    const auto j = nlohmann::json::parse(chromeTraceText(test::fixtureTrace()));
    ASSERT_TRUE(j["traceEvents"].is_array());
    int kernels = 0, instants = 0, processNames = 0, threadNames = 0;
    for (const auto& e : j["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "X") {
            ++kernels;
            EXPECT_TRUE(e["ts"].is_number());
            EXPECT_TRUE(e["dur"].is_number());
        } else if (ph == "i") {
            ++instants;
            EXPECT_EQ(e["args"]["cuda_error"]["name"], "cudaErrorInvalidConfiguration");
            EXPECT_EQ(e["args"]["cuda_error"]["code"], 9);
            EXPECT_EQ(e["args"]["plan"]["verdict"], "invalid_launch");
            EXPECT_EQ(e["s"], "t");
        } else if (ph == "M") {
            (e["name"] == "process_name" ? processNames : threadNames) += e["name"] == "process_name" || e["name"] == "thread_name";
        }
    }
    EXPECT_EQ(kernels, 3);       // one measured record, two imported records
    EXPECT_EQ(instants, 1);      // the failed launch
    EXPECT_EQ(processNames, 2);  // devices 0 and 1
    EXPECT_EQ(threadNames, 3);   // streams 7 and 13, and the failed-launch track
}

TEST(TraceExport, MicrosecondsAreExact) {
    EXPECT_EQ(formatMicros(1'695'835'573'023'613'001), "1695835573023613.001");
    EXPECT_EQ(formatMicros(0), "0.000");
    EXPECT_EQ(formatMicros(-1'500), "-1.500");
}

TEST(TraceExport, CsvHasOneRowPerRunOrRecordAndQuotesNames) {
    const Trace trace = test::fixtureTrace();
    const std::string csv = traceToCsv(trace);
    std::size_t lines = 0;
    for (char c : csv) lines += c == '\n';
    EXPECT_EQ(lines, 1 + trace.runs.size() + trace.records.size());
    EXPECT_NE(csv.find("\"void gemm_kernel<128, 64>(float const*, float*, int)\""), std::string::npos);
    // The imported record above 48 KB gets its occupancy from cuda_occupancy.h with the opt-in limit.
    EXPECT_NE(csv.find(",108x2x1,128x1x1,67584,96,"), std::string::npos);
}

TEST(TraceExport, MarkdownHasTheTables) {
    const std::string md = traceToMarkdown(test::fixtureTrace());
    EXPECT_NE(md.find("## Runs"), std::string::npos);
    EXPECT_NE(md.find("## Sweeps"), std::string::npos);
    EXPECT_NE(md.find("## Recorded kernels"), std::string::npos);
    EXPECT_NE(md.find("a \\| pipe"), std::string::npos);
}

}  // namespace
}  // namespace tilescope

// The GPU check's cases (tests/gpu/cases.txt, profile_cases.txt) planned without a GPU: each line's
// expected verdict must be what the planner says on the H200 the check runs on, so a planner change
// that moves a boundary fails here on every CI run, not only in the next GPU session.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace tilescope {
namespace {

// One line as tests/gpu/run.sh reads it: family variant shape expected-verdict [dtype].
struct GpuCase {
    std::string file;
    int line = 0;
    std::string family, variant, shape, expected, dtype;
};

std::vector<GpuCase> readCases(const std::string& name) {
    const std::string path = std::string(TILESCOPE_SOURCE_DIR) + "/tests/gpu/" + name;
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot open " << path;
    std::vector<GpuCase> cases;
    std::string text;
    for (int number = 1; std::getline(in, text); ++number) {
        std::istringstream words(text);
        GpuCase c{name, number, {}, {}, {}, {}, {}};
        if (!(words >> c.family) || c.family.front() == '#') continue;
        words >> c.variant >> c.shape >> c.expected >> c.dtype;
        cases.push_back(c);
    }
    return cases;
}

// One ctest for all lines (a ctest per line would add ~150 process starts to CI); a failure names its line.
void checkCase(const GpuCase& c) {
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + ": " + c.family + " " + c.variant + " " + c.shape);
    // The line must be one run.sh can run: a known verdict, and a dtype only where run takes one.
    ASSERT_TRUE(verdictFromName(c.expected)) << "unknown verdict '" << c.expected << "'";
    if (!c.dtype.empty()) {
        EXPECT_EQ(c.family, "attention") << "a dtype column applies to attention only (run --dtype)";
        EXPECT_TRUE(c.dtype == "fp16" || c.dtype == "bf16") << c.dtype;
    }
    const DeviceSpec& h200 = test::device("h200");
    const LaunchPlan p = test::plan(c.family, c.variant, c.shape, "h200");
    EXPECT_EQ(verdictName(p.verdict), c.expected) << p.message;
    if (!p.ok()) {
        EXPECT_FALSE(p.message.empty());
        if (p.verdict == Verdict::InvalidLaunch) {
            EXPECT_TRUE(p.cudaError);
        }
        return;
    }
    // A launching plan names device functions the family declares, with the compiler's registers
    // when this build generated the ptxas table (the GPU check compares both with the real launch).
    const std::vector<std::string_view> symbols = test::kernel(c.family, c.variant).family->kernelSymbols();
    auto declared = [&](std::string_view symbol) { return std::find(symbols.begin(), symbols.end(), symbol) != symbols.end(); };
    EXPECT_TRUE(declared(p.kernelSymbol)) << p.kernelSymbol;
    for (const ExtraLaunch& extra : p.extraLaunches) {
        if (!extra.chosenByLibrary()) {  // cuBLAS's kernel is not ours to declare
            EXPECT_TRUE(declared(extra.kernelSymbol)) << extra.kernelSymbol;
        }
    }
    if (compiledKernelResources().find(p.kernelSymbol, h200.computeCapability)) {
        test::expectCompilerRegisters(p, h200);
    }
}

TEST(GpuCheckCases, PlanToTheExpectedVerdictOnH200) {
    for (const GpuCase& c : readCases("cases.txt")) checkCase(c);
}

TEST(GpuCheckCases, ProfileCasesPlanToTheExpectedVerdictOnH200) {
    const std::vector<GpuCase> cases = readCases("profile_cases.txt");
    EXPECT_FALSE(cases.empty());
    for (const GpuCase& c : cases) checkCase(c);
}

TEST(GpuCheckCases, HoldBothSidesOfTheBoundaries) {
    const std::vector<GpuCase> cases = readCases("cases.txt");
    EXPECT_GT(cases.size(), 100u);
    const auto failing = std::count_if(cases.begin(), cases.end(), [](const GpuCase& c) { return c.expected != "ok"; });
    EXPECT_GT(failing, 10);
}

}  // namespace
}  // namespace tilescope

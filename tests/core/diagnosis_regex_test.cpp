// The diagnosis' matcher (issue 34): RE2 behind Pattern must find what std::regex found, byte for
// byte, for every signature over every line of the real logs in tests/data; the needle automaton
// finds its literals case-insensitively and tells a line that ends with the start of one; a
// repeated error folds into one finding whose lines all print as a count.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_regex.h"
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/device_spec.h"
#include "kernels/builtin_kernels.h"

using namespace tilescope;

namespace {

std::vector<std::string> realLogLines() {
    std::vector<std::string> lines;
    for (const char* dir : {"tests/data/logs", "tests/data/diagnose_corpus"})
        for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TILESCOPE_SOURCE_DIR) / dir)) {
            if (entry.path().extension() != ".log") continue;
            std::ifstream in(entry.path(), std::ios::binary);
            for (std::string line; std::getline(in, line);) lines.push_back(line);
        }
    return lines;
}

}  // namespace

// The old matcher (std::regex, ECMAScript, case-insensitive) and the new one agree on every
// signature's first match and groups over ~1,500 real log lines, and on the joined pairs the
// wrapped-message pass builds.
TEST(DiagnosisRegex, EverySignatureMatchesAsStdRegexDid) {
    const std::vector<std::string> lines = realLogLines();
    ASSERT_GT(lines.size(), 500u);
    std::vector<std::string> texts = lines;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) texts.push_back(lines[i] + " " + lines[i + 1]);
    const SignatureList list(builtinKernels());
    int matched = 0;
    for (std::size_t s = 0; s < list.size(); ++s) {
        const std::regex old(list[s].pattern, std::regex::ECMAScript | std::regex::icase);
        for (const auto& text : texts) {
            std::smatch expected;
            SvMatch got;
            const bool had = std::regex_search(text, expected, old);
            ASSERT_EQ(list[s].regex.search(text, got), had) << list[s].id << " on: " << text;
            if (!had) continue;
            ++matched;
            ASSERT_EQ(got.size(), expected.size()) << list[s].id;
            for (std::size_t g = 0; g < expected.size(); ++g) {
                ASSERT_EQ(got[g].matched, expected[g].matched) << list[s].id << " group " << g << " on: " << text;
                if (!expected[g].matched) continue;
                EXPECT_EQ(got.position(g), expected.position(g)) << list[s].id << " group " << g << " on: " << text;
                EXPECT_EQ(got.str(g), expected.str(g)) << list[s].id << " group " << g << " on: " << text;
            }
        }
    }
    EXPECT_GT(matched, 50);  // the logs hold these errors: the comparison is not vacuous
}

TEST(DiagnosisRegex, PatternIteratesLikeRegexIterator) {
    const Pattern number(R"((?:^|[^\w])M\s*=\s*(\d+))", Pattern::Case::Sensitive);
    const std::string text = "M=16 N=4096 K=4096, M = 32768 and xM=7";
    const auto all = number.searchAll(text);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].str(1), "16");
    EXPECT_EQ(all[1].str(1), "32768");
    EXPECT_THROW(Pattern("(?<=x)y"), std::invalid_argument);  // lookbehind: not in the common subset
}

TEST(DiagnosisRegex, LiteralSetFindsNeedlesAndPrefixes) {
    const LiteralSet set({"invalid configuration", "out of memory", "too many resources", "memory"});
    std::vector<int> found;
    EXPECT_TRUE(set.find("RuntimeError: CUDA error: Invalid Configuration argument", found));
    EXPECT_EQ(found, std::vector<int>{0});
    EXPECT_TRUE(set.find("CUDA out of MEMORY. Tried to allocate", found));
    EXPECT_EQ(found, (std::vector<int>{1, 3}));
    EXPECT_FALSE(set.find("INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: 0.0 tokens/s", found));
    EXPECT_TRUE(found.empty());
    EXPECT_TRUE(set.scan("RuntimeError: CUDA error: invalid config").endsInPrefix);
    EXPECT_FALSE(set.scan("RuntimeError: CUDA error: invalid config").any);
    EXPECT_FALSE(set.scan("GPU KV cache usage: 2.0%.").endsInPrefix);
}

// PyTorch's error as vllm-project/vllm#16566 prints it, once per retry: one finding, every line.
TEST(DiagnosisFolding, RepeatedErrorIsOneFindingWithEveryLine) {
    std::string log;
    for (int i = 0; i < 12; ++i) log += "RuntimeError: CUDA error: invalid configuration argument\n";
    auto d = diagnoseText(log, builtinKernels(), DeviceDatabase::embedded());
    ASSERT_TRUE(d) << d.error();
    ASSERT_EQ(d->findings.size(), 1u);
    EXPECT_EQ(d->findings[0].lines.size(), 12u);
    EXPECT_EQ(occurrencesText(d->findings[0].lines), "x 12, lines 1, 2, 3, 4, 5, 6, 7, 8, ..., 12");
    EXPECT_EQ(occurrencesText({5, 6}), "5, 6");
    EXPECT_EQ(occurrencesText({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10");
}

TEST(DiagnosisFolding, ACancelledRunReturnsTheCancelError) {
    const std::atomic<bool> cancel{true};
    DiagnosisOptions options;
    options.cancel = &cancel;
    auto d =
        diagnoseText("RuntimeError: CUDA error: invalid configuration argument\n", builtinKernels(), DeviceDatabase::embedded(), options);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error(), kDiagnosisCancelled);
}

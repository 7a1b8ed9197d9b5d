// The diagnosis over logs built around exact error strings from public reports
// (tests/data/diagnose_corpus, manifest.json beside them): per log, the findings in order with
// the kind, kernel, device, architecture, shape values (and the lines they were read from), the
// planner's verdict, message and boundary, the devices the text implies and the ready command the
// manifest expects. A key the manifest leaves out is not
// checked; null means "none".
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

const std::string kCorpus = std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/diagnose_corpus/";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << path;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

nlohmann::json manifest() { return nlohmann::json::parse(readFile(kCorpus + "manifest.json")); }

// "" for a null or missing string.
void expectText(const nlohmann::json& expect, const char* key, const std::string& actual, const std::string& where) {
    if (!expect.contains(key)) return;
    const std::string wanted = expect[key].is_null() ? "" : expect[key].get<std::string>();
    EXPECT_EQ(actual, wanted) << where << ": " << key;
}

class DiagnosisCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnosisCorpus, MatchesTheManifest) {
    nlohmann::json entry;
    const auto m = manifest();
    for (const auto& e : m["logs"])
        if (e["file"] == GetParam()) entry = e;
    ASSERT_FALSE(entry.is_null());
    const std::string where = GetParam() + " (" + entry["source"].get<std::string>() + ")";
    const std::string text = readFile(kCorpus + GetParam());
    // The error string the log is built around is in it, as the report gives it.
    const std::string error = entry["error"];
    if (error.find("...") == std::string::npos) {
        EXPECT_NE(text.find(error), std::string::npos) << where << ": " << error;
    }

    auto diagnosis = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    ASSERT_TRUE(diagnosis.ok()) << where << ": " << diagnosis.error();
    const auto& expected = entry["expect"]["findings"];
    // A stack's own check whose signature another issue adds: skipped, saying so, until a
    // signature recognises it; from then on its generic expectations are checked.
    if (entry.contains("awaits") && diagnosis->findings.empty() && !expected.empty())
        GTEST_SKIP() << where << ": no signature yet; awaits " << entry["awaits"].get<std::string>();
    ASSERT_EQ(diagnosis->findings.size(), expected.size()) << where;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto& want = expected[i];
        const DiagnosisFinding& f = diagnosis->findings[i];
        const std::string at = where + " finding " + std::to_string(i + 1) + " (" + f.title + ")";
        if (want.contains("kind")) {
            EXPECT_EQ(std::string(verdictName(f.kind)), want["kind"].get<std::string>()) << at;
        }
        expectText(want, "signature", f.signature, at);
        expectText(want, "message", f.message, at);
        expectText(want, "family", f.family, at);
        expectText(want, "variant", f.variant, at);
        expectText(want, "device", f.deviceId, at);
        expectText(want, "arch", f.arch, at);
        if (want.contains("lines")) {
            EXPECT_EQ(f.lines, want["lines"].get<std::vector<int>>()) << at;
        }
        if (want.contains("consequence_of")) {
            ASSERT_TRUE(f.consequenceOf) << at;
            EXPECT_EQ(*f.consequenceOf, want["consequence_of"].get<int>()) << at;
        }
        if (want.contains("family_ranking")) {
            EXPECT_EQ(!f.familyRanking.empty(), want["family_ranking"].get<bool>()) << at;
        }
        // The kernel the log itself names at the error (a .cu:line, an extension op, the API called).
        if (want.contains("failing_kernel")) {
            EXPECT_EQ(f.failingKernel, want["failing_kernel"].is_null() ? "" : want["failing_kernel"].get<std::string>()) << at;
        }
        if (want.contains("shape"))
            for (const auto& item : want["shape"].items()) {
                // Named, not a structured binding: the lambda below captures the key, which clang
                // before 16 (the asan build's compiler) does not allow for bindings.
                const std::string& name = item.key();
                const auto& value = item.value();
                auto v = std::find_if(f.shape.begin(), f.shape.end(), [&](const DiagnosisValue& d) { return d.name == name; });
                ASSERT_NE(v, f.shape.end()) << at << ": no " << name;
                EXPECT_EQ(v->value, value["value"].get<std::int64_t>()) << at << ": " << name;
                if (value.contains("line")) {
                    EXPECT_EQ(v->line, value["line"].get<int>()) << at << ": line of " << name << " (" << v->source << ")";
                }
            }
        if (want.contains("plan_verdict")) {
            ASSERT_TRUE(f.plan) << at << ": " << f.planNote;
            EXPECT_EQ(std::string(verdictName(f.plan->verdict)), want["plan_verdict"].get<std::string>()) << at;
        }
        if (want.contains("plan_message")) {
            ASSERT_TRUE(f.plan) << at << ": " << f.planNote;
            EXPECT_EQ(f.plan->message, want["plan_message"].get<std::string>()) << at;
        }
        // The database GPUs the text implies without naming one (an architecture, a printed limit).
        if (want.contains("implied_devices")) {
            EXPECT_EQ(f.impliedDevices, want["implied_devices"].get<std::vector<std::string>>()) << at << ": " << f.impliedBy;
        }
        expectText(want, "command", f.command, at);
        if (want.contains("boundary")) {
            ASSERT_TRUE(f.boundary) << at;
            EXPECT_EQ(*f.boundary, want["boundary"].get<std::int64_t>()) << at;
        }
        // Every value says where it came from.
        for (const auto& v : f.shape) EXPECT_FALSE(v.source.empty()) << at << ": " << v.name;
    }
}

std::vector<std::string> corpusFiles() {
    std::vector<std::string> files;
    const auto m = manifest();  // not manifest()["logs"] in the loop: the temporary would die first
    for (const auto& e : m["logs"]) files.push_back(e["file"]);
    return files;
}

INSTANTIATE_TEST_SUITE_P(PublicReports, DiagnosisCorpus, ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                             std::string name = p.param.substr(0, p.param.find('.'));
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(DiagnosisCorpusManifest, HasTwentyLogsEachWithAPublicSource) {
    const auto m = manifest();
    EXPECT_GE(m["logs"].size(), 20u);
    for (const auto& e : m["logs"]) {
        const std::string source = e["source"];
        EXPECT_EQ(source.rfind("https://github.com/", 0), 0u) << source;
    }
}

}  // namespace
}  // namespace tilescope

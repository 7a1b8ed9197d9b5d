// Shape evidence in logs as people paste them (issue 13): the Mixtral AWQ traceback, tensor
// shapes, prompt lengths in HF / vLLM / SGLang spellings, step budgets, generation parameters
// never read as M, the model a log names, and a lone error line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_evidence.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/" + path, std::ios::binary);
    EXPECT_TRUE(in) << path;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

DiagnosisFinding only(const std::string& text) {
    auto d = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error());
    if (!d.ok()) return {};
    EXPECT_EQ(d->findings.size(), 1u) << text;
    return d->findings.empty() ? DiagnosisFinding{} : d->findings.front();
}

const DiagnosisValue* value(const DiagnosisFinding& f, std::string_view name) {
    for (const auto& v : f.shape)
        if (v.name == name) return &v;
    return nullptr;
}

// The issue's example, as its user pasted it.
TEST(DiagnosisIssue13, MixtralAwqPromptTokensGiveMAndTheConfigGivesNAndK) {
    const auto f = only(readFile("tests/data/diagnose_issue13_mixtral_awq.log"));
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(f.variant, "legacy_grid_y");
    const auto* m = value(f, "M");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->value, 16384);  // "prompt tokens: 16384", never max_new_tokens=256
    EXPECT_EQ(m->line, 2);
    EXPECT_NE(m->source.find("prompt tokens: 16384"), std::string::npos) << m->source;
    EXPECT_EQ(f.model, "TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ");
    // gate_proj / up_proj (each expert's w1 / w3): N = intermediate_size 14336, K = hidden_size 4096.
    const auto* n = value(f, "N");
    const auto* k = value(f, "K");
    ASSERT_TRUE(n && k);
    EXPECT_EQ(n->value, 14336);
    EXPECT_EQ(k->value, 4096);
    EXPECT_NE(n->source.find("config.json of TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ"), std::string::npos) << n->source;
    EXPECT_EQ(value(f, "group_size")->value, 128);
    // The layers: which fail at M=16384 (grid.y = 1024 x N/128 over 65,535 from N = 8,192 up).
    std::vector<std::string> failing, passing;
    for (const auto& l : f.layers) (l.verdict == Verdict::Ok ? passing : failing).push_back(l.name);
    EXPECT_EQ(failing, (std::vector<std::string>{"gate_proj", "up_proj", "gate_up_proj (fused by vLLM and SGLang)"}));
    EXPECT_EQ(passing.size(), 6u);
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::InvalidLaunch);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->actual, 114688);  // ceil(16384/16) x 14336/128 = 1024 x 112
    // The map holds the failing shape and crosses the boundary: M <= 9,360 passes at N = 14336.
    EXPECT_EQ(f.sweepAxis, "M=1:32768:x2");
    EXPECT_NE(f.sweepShape.find("M=16384"), std::string::npos) << f.sweepShape;
    ASSERT_TRUE(f.boundary);
    EXPECT_EQ(*f.boundary, 9360);
    EXPECT_FALSE(f.fix.empty());
}

// Without the model line the same traceback still gives M, says N and K are unknown, and plans
// the family's default N (4096), where M=16384 passes and the boundary is M = 32,752.
TEST(DiagnosisIssue13, WithoutTheModelNAndKAreSaidUnknown) {
    std::string text = readFile("tests/data/diagnose_issue13_mixtral_awq.log");
    text.replace(text.find("TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ"), 39, "./my-model");
    const auto f = only(text);
    EXPECT_EQ(value(f, "M")->value, 16384);
    EXPECT_FALSE(value(f, "N"));
    EXPECT_NE(f.unknown.find("N and K"), std::string::npos) << f.unknown;
    // At the default N the planned launch passes at M=16384; the map still holds M=16384 and
    // crosses the boundary above it.
    ASSERT_TRUE(f.plan);
    EXPECT_EQ(f.plan->verdict, Verdict::Ok);
    ASSERT_TRUE(f.boundary);
    EXPECT_EQ(*f.boundary, 32752);  // ceil(M/16) x 4096/128 <= 65,535
    EXPECT_EQ(f.sweepAxis, "M=1:65536:x2");
    EXPECT_NE(f.sweepShape.find("M=16384"), std::string::npos) << f.sweepShape;
}

TEST(DiagnosisIssue13, TensorShapeGivesMAndK) {
    const auto f = only(
        "x: torch.Size([1, 16384, 4096])\n"
        "  File \"/opt/venv/lib/python3.10/site-packages/awq/modules/linear/gemm.py\", line 201, in forward\n"
        "    out = awq_ext.gemm_forward_cuda(x.reshape(-1, x.shape[-1]), self.qweight, self.scales, self.qzeros, 8)\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(value(f, "M")->value, 16384);
    EXPECT_EQ(value(f, "M")->line, 1);
    EXPECT_EQ(value(f, "K")->value, 4096);
}

TEST(DiagnosisIssue13, ModelWithATensorShapePicksTheLayerWithThatK) {
    const auto f = only(
        "model = AutoAWQForCausalLM.from_quantized(\"TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ\")\n"
        "hidden_states.shape = torch.Size([2, 8192, 14336])\n"
        "  File \"/opt/venv/lib/python3.10/site-packages/awq/modules/linear/gemm.py\", line 201, in forward\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_EQ(value(f, "M")->value, 16384);  // 2 x 8192
    EXPECT_EQ(value(f, "K")->value, 14336);  // down_proj's input
    EXPECT_EQ(value(f, "N")->value, 4096);   // down_proj passes at M=16384: none with K=14336 fails
}

struct RowsCase {
    const char* text;
    std::int64_t rows;
    RowsReading reading;
};

TEST(DiagnosisEvidence, PromptLengthSpellings) {
    const RowsCase cases[] = {
        {"prompt tokens: 16384", 16384, RowsReading::PromptLength},
        {"Input length of input_ids is 16384, but `max_length` is set to 4096.", 16384, RowsReading::PromptLength},
        {"ValueError: Input prompt (16384 tokens) is too long and exceeds limit of 8192", 16384, RowsReading::PromptLength},
        {"Token indices sequence length is longer than the specified maximum sequence length for this model (16384 > 4096).", 16384,
         RowsReading::PromptLength},
        {"prompt_len=16384", 16384, RowsReading::PromptLength},
        {"[2025-01-02 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0", 8192, RowsReading::Explicit},
        {"num_tokens=16384", 16384, RowsReading::Explicit},
        {"x.shape = (1, 16384, 4096)", 16384, RowsReading::TensorShape},
        {"q = torch.randn(2, 4096, 32, 128)", 2 * 4096 * 32, RowsReading::TensorShape},
        {"x = torch.Tensor(2048 * 16, 14336).cuda().half()", 32768, RowsReading::TensorShape},
        {"INFO 04-14 04:27:55 config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=2048.", 2048, RowsReading::StepBudget},
        {"server_args=ServerArgs(chunked_prefill_size=8192, max_prefill_tokens=16384)", 8192, RowsReading::StepBudget},
    };
    for (const auto& c : cases) {
        auto log = LogText::parse(c.text);
        ASSERT_TRUE(log.ok());
        const auto readings = findRowsEvidence(*log, 0);
        ASSERT_FALSE(readings.empty()) << c.text;
        EXPECT_EQ(readings.front().value, c.rows) << c.text;
        EXPECT_EQ(readings.front().reading, c.reading) << c.text;
    }
}

TEST(DiagnosisEvidence, GenerationParametersAreNeverM) {
    for (const char* text : {"out = model.generate(input_ids, max_new_tokens=256)", "max_tokens=512", "max new tokens: 256",
                             "SamplingParams(n=1, temperature=0.0, max_tokens=2048)", "max_model_len=32768", "generated tokens: 300",
                             "Avg prompt throughput: 612.4 tokens/s"}) {
        auto log = LogText::parse(text);
        ASSERT_TRUE(log.ok());
        EXPECT_TRUE(findRowsEvidence(*log, 0).empty()) << text;
    }
}

TEST(DiagnosisEvidence, ChunkedPrefillCapsALongPrompt) {
    auto log = LogText::parse(
        "INFO 01-02 config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=8192.\n"
        "INFO 01-02 engine.py:300] prompt tokens: 32768\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    ASSERT_TRUE(log.ok());
    const auto choice = chooseRows(findRowsEvidence(*log, 2), 2);
    ASSERT_TRUE(choice.chosen);
    EXPECT_EQ(choice.chosen->value, 8192);
    EXPECT_EQ(choice.readings.size(), 2u);
    EXPECT_NE(choice.note.find("chunked prefill"), std::string::npos) << choice.note;
}

TEST(DiagnosisEvidence, DisagreeingReadingsAreListedAndTheNearestExplicitPlanned) {
    const auto f = only(
        "prompt tokens: 20000\n"
        "[awq] gemm tokens=16384 in_features=4096 out_features=14336\n"
        "  File \"/opt/venv/lib/python3.10/site-packages/awq/modules/linear/gemm.py\", line 201, in forward\n"
        "RuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_EQ(value(f, "M")->value, 16384);
    ASSERT_EQ(f.candidates.size(), 2u);
    EXPECT_TRUE(f.candidates[0].chosen);
    EXPECT_EQ(f.candidates[1].value, 20000);
    EXPECT_FALSE(f.candidates[1].chosen);
}

// Partial text: the message alone after an AWQ import still names the family; with nothing
// else, the finding ranks the four families.
TEST(DiagnosisPartial, LoneErrorLineAfterAnAwqImport) {
    const auto f = only("from awq import AutoAWQForCausalLM\nRuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_EQ(f.family, "awq_gemm");
    EXPECT_EQ(f.variant, "legacy_grid_y");
    EXPECT_NE(f.explanation.find("line 1"), std::string::npos) << f.explanation;
    EXPECT_NE(f.unknown.find("M"), std::string::npos);
}

TEST(DiagnosisPartial, LoneErrorLineRanksTheFamilies) {
    const auto f = only("RuntimeError: CUDA error: invalid configuration argument\n");
    EXPECT_TRUE(f.family.empty());
    ASSERT_EQ(f.familyRanking.size(), 4u);
    EXPECT_EQ(f.familyRanking.front().rfind("awq_gemm", 0), 0u);
    const auto g = only("RuntimeError: CUDA error: invalid argument\n");
    ASSERT_EQ(g.familyRanking.size(), 4u);
    EXPECT_EQ(g.familyRanking.front().rfind("gemm_bucket", 0), 0u);
}

TEST(DiagnosisPartial, AnAwqFrameThatIsNoGemmIsNotTakenForOne) {
    const auto f = only(
        "  File \"/venv/lib/python3.10/site-packages/awq/modules/fused/cache.py\", line 40, in update_kv\n"
        "    self.k[:batch_size, :, :, self.start_pos : self.start_pos + seqlen, :] = keys_store\n"
        "RuntimeError: CUDA error: invalid argument\n");
    EXPECT_TRUE(f.family.empty());
    // Issue 28: the frame names the failing copy, so none of our families is ranked.
    EXPECT_EQ(f.failingKernel, "fused/cache.py:40 update_kv");
    EXPECT_TRUE(f.familyRanking.empty());
}

TEST(DiagnosisModels, UserModelGivesNAndKWhenTheLogNamesNone) {
    auto model =
        catalogModelFromPath(std::string(TILESCOPE_SOURCE_DIR) + "/resources/models/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json");
    ASSERT_TRUE(model.ok()) << (model.ok() ? "" : model.error());
    DiagnosisOptions options;
    options.model = *model;
    auto d = diagnoseText(
        "tokens=32768\n  File \"awq/modules/linear/gemm.py\", line 1, in forward\n"
        "RuntimeError: CUDA error: invalid configuration argument\n",
        builtinKernels(), DeviceDatabase::embedded(), options);
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d->findings.size(), 1u);
    const auto& f = d->findings.front();
    EXPECT_EQ(value(f, "M")->value, 32768);
    EXPECT_TRUE(value(f, "N"));
    EXPECT_NE(f.modelSource.find("--model"), std::string::npos);
}

TEST(DiagnosisModels, EmbeddedCatalogHoldsEveryResourceModel) {
    std::vector<std::string> ids;
    for (const auto& m : embeddedModels()) ids.push_back(m.id);
    for (const char* id : {"TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ", "TheBloke/Mistral-7B-Instruct-v0.1-AWQ",
                           "hugging-quants/gemma-2-9b-it-AWQ-INT4", "TechxGenus/gemma-1.1-2b-it-AWQ", "Wfiles/awq_quantized"})
        EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
}

}  // namespace
}  // namespace tilescope

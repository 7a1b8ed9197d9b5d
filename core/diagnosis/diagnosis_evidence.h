// Shape evidence in a log beyond the kernel's own message: the rows of a GEMM (M) as explicit
// figures, tensor shapes, prompt / input / sequence lengths and step token budgets in the
// spellings of HF generate, vLLM and SGLang; and the model the log names. Each reading keeps its
// line and text so that a finding can say where every value came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_text.h"
#include "core/diagnosis/model_catalog.h"

namespace tilescope {

// What a reading of M says it is, strongest first.
enum class RowsReading {
    Explicit,       // M=, tokens=, num_tokens=, SGLang "#new-token:" (rows of one step)
    TensorShape,    // torch.Size([1, 16384, 4096]), shape=(...), [B, S, D]: all but the last dim
    PromptLength,   // "prompt tokens: N", "Input prompt (N tokens)", "input length of input_ids is N", seq_len=
    BatchTimesSeq,  // batch x sequence length
    StepBudget,     // max_num_batched_tokens, chunked_prefill_size: at most this many rows per step
};
std::string_view rowsReadingName(RowsReading reading);  // "prompt length"

struct RowsEvidence {
    std::int64_t value = 0;
    RowsReading reading = RowsReading::Explicit;
    int line = 0;                         // 0-based
    std::string text;                     // the matched text
    std::optional<std::int64_t> lastDim;  // a tensor shape's last dimension (K of a linear layer's input)
};

// Every reading of M in the log that may concern the error on `errorLine`: readings of one call
// in the lines before it (and a few after), step budgets anywhere. Generation parameters
// (max_new_tokens, max_tokens, max_model_len) are never read as M.
std::vector<RowsEvidence> findRowsEvidence(const LogText& log, int errorLine);
// The same readings as far as chooseRows can tell them apart, in time independent of the log's
// length: `stepBudgets` is findStepBudgets(log), read once per log.
std::vector<RowsEvidence> findRowsEvidence(const LogText& log, int errorLine, const std::vector<RowsEvidence>& stepBudgets);
std::vector<RowsEvidence> findStepBudgets(const LogText& log);  // every step budget the log gives, in line order

struct RowsChoice {
    std::optional<RowsEvidence> chosen;
    std::vector<RowsEvidence> readings;  // distinct (value, reading) pairs, the chosen one first
    std::string note;                    // why the chosen one, when readings disagree
};
// The likeliest M: the strongest reading, the nearest to the error among equals; a prompt longer
// than a step budget runs in chunks of the budget (chunked prefill).
RowsChoice chooseRows(const std::vector<RowsEvidence>& readings, int errorLine);

// The model the log names: the mention nearest before the error line, else the first after it.
struct ModelMention {
    const CatalogModel* model = nullptr;
    int line = 0;  // 0-based
};
std::optional<ModelMention> findModelMention(const LogText& log, const std::vector<const CatalogModel*>& models, int errorLine);
// The same in two steps, the first once per log: every line that names a model (the longest name
// on the line), then the one nearest before `errorLine`, else the first after it.
std::vector<ModelMention> findModelMentions(const LogText& log, const std::vector<const CatalogModel*>& models);
std::optional<ModelMention> nearestModelMention(const std::vector<ModelMention>& mentions, int errorLine);

// Whether the log anywhere mentions AWQ (an import, a module path, quantization=awq, a config dump).
int findAwqMention(const LogText& log);  // 0-based line, -1 when none

}  // namespace tilescope

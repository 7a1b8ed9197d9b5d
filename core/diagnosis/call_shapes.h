// The tensor shapes of the attention calls a log names: a shape the log gives (a tensor built with
// a literal size and passed to the call, or a shape the stack printed) read through that call's
// documented layout into named parameters (batch, seqlen_q, heads, head_dim), each with the line
// it came from. Only when the call is named near the shape; a shape whose layout the call leaves
// open stays unnamed and says why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_text.h"

namespace tilescope {

class FindingBuilder;

struct CallShape {
    std::string call;                    // the API named in the log: "flash_attn_func", "memory_efficient_attention"
    std::string layout;                  // its documented query layout: "(batch_size, seqlen, nheads, headdim)"
    std::vector<DiagnosisValue> values;  // named parameters, each with its 1-based line and the text read
    std::string ambiguity;               // "" when the layout names every dimension read; else what stays open and why
    int callLine = 0;                    // 1-based line that names the call
};

// How far from an error a named call and its shapes are looked for (a report's reproducer may
// follow the error it raised).
inline constexpr int kCallShapeWindow = 40;

// The query shape of the attention call named nearest `errorLine` (0-based), read through that
// call's layout; nullopt when no call is named there or no shape of its query is given.
std::optional<CallShape> findCallShape(const LogText& log, int errorLine);

// Diagnosis hook for an attention call's figures: the values the named call's shape gives that
// the finding does not hold yet, and what its layout leaves open.
void callShapeFigures(FindingBuilder& b);

}  // namespace tilescope

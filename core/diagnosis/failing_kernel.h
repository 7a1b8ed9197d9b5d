// The kernel a log names at its error: a CUDA source location ("mla_combine.cu:201",
// "sampling.cuh: line 547"), a stack's own kernel name ("TopPSamplingFromProbs failed with error
// code ..."), the extension op or Triton launch of the traceback's innermost frame
// ("causal_conv1d_cuda.causal_conv1d_fwd(", "_fwd_kernel[grid]("), a CUTLASS kernel, or the
// public API the report calls ("xformers.ops.memory_efficient_attention("). A finding that names
// it ranks none of Tilescope's own families and fixes from what the log shows.
#pragma once

#include <optional>
#include <string>

#include "core/diagnosis/diagnosis_text.h"

namespace tilescope {

class FindingBuilder;

struct FailingKernel {
    std::string name;  // as the log writes it: "causal_conv1d_cuda.causal_conv1d_fwd", ".../mla_combine.cu:201"
    std::string how;   // how the log names it: "CUDA source location of the error", "extension op in the innermost frame", ...
    int line = 0;      // 1-based
};

// How far from an error its kernel is looked for: the traceback above it, or a report's
// reproducer below it.
inline constexpr int kFailingKernelWindow = 40;

// The kernel the log names for the error on `errorLine` (0-based): its own line and the two
// around it first, then the traceback above it nearest first, then a reproducer below it.
std::optional<FailingKernel> findFailingKernel(const LogText& log, int errorLine);

// Diagnosis hooks: before a signature builds its finding, note the kernel the log names; after,
// when no bundled family took the finding, say so and fix from the log's own kernel and shape.
void noteFailingKernel(FindingBuilder& b);
void explainFailingKernel(FindingBuilder& b);

}  // namespace tilescope

// BackendModel: the figures of a model that the backend matrix (core/series/backend_matrix.h) plans
// every attention backend and quantized GEMM with; filled from a checkpoint's config
// (core/diagnosis/model_check.h backendModel()) or from an attention shape.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilescope {

// The model figures the matrix plans with (a checkpoint's config, or the Shape panel's attention shape).
struct BackendModel {
    struct Linear {
        std::string name;  // "q_proj"
        std::int64_t n = 0;
        std::int64_t k = 0;
    };
    struct Kernel {
        std::string family;
        std::string variant;
    };
    std::string name;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t headDim = 0;
    std::int64_t headDimV = 0;
    std::int64_t groupSize = 0;   // quantization group; 0: not quantized (no GEMM rows)
    std::vector<Linear> linears;  // every distinct linear layer, planned by each GEMM row
    std::vector<Kernel> ownGemm;  // the checkpoint's own quantized kernel (its AWQ packing's), first among the GEMM rows
    // The mask and dropout every attention row plans with: a checkpoint's config says neither, and a
    // decoder LLM is causal without dropout at inference; a shape gives its own (issue 31).
    std::int64_t causal = 1;
    std::int64_t dropout = 0;
    // A shape's family and its values by name: that family's rows plan with them too (num_splits, fa2_version,
    // dtype), all but what the matrix sets itself (batch, seqs, heads, head dims, train). Empty for a checkpoint.
    std::string shapeFamily;
    std::vector<std::pair<std::string, std::int64_t>> shapeValues;
};

}  // namespace tilescope

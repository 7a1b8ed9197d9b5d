// Comparing a kernel's output with its float64 CPU reference.
#pragma once

#include <vector>

#include "core/trace/kernel_record.h"

namespace tilescope {

// Per-dtype bounds on the normwise relative error max|out - ref| / max|ref|: fp32 accumulation
// with fp16 (2^-11) or bf16 (2^-8) rounding of inputs, intermediate tiles and outputs.
inline constexpr double kFp16RelativeErrorBound = 1e-2;
inline constexpr double kBf16RelativeErrorBound = 4e-2;

// NaN or infinity anywhere fails the check.
ReferenceCheck compareWithReference(const std::vector<double>& reference, const std::vector<float>& output, double bound);

}  // namespace tilescope

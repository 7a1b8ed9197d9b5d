// Inside the diagnosis engine: what core/diagnosis/diagnosis_core_signatures.cpp gives the engine
// and the finding builder (not for the families: they use diagnosis_signatures.h).
#pragma once

#include <vector>

#include "core/diagnosis/diagnosis_signatures.h"

namespace tilescope {

// Core's own signatures, in their order numbers (the engine sorts them in with the families').
const std::vector<Signature>& coreSignatures();
// The contributions of `kernels`' families, in registry order.
std::vector<const DiagnosisSignatures*> contributions(const KernelRegistry& kernels);

}  // namespace tilescope

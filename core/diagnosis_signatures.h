// The error signatures the diagnosis knows (upstream texts from KERNELS.md and the CUDA, Triton,
// CuTe DSL and PyTorch messages around them) and how each becomes a finding: the figures it takes
// from the log, the kernel it implies, the plan, the fix and the command.
#pragma once

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/diagnosis.h"
#include "core/diagnosis_text.h"

namespace tilescope {

using SvMatch = std::match_results<std::string::const_iterator>;

// What a finding may read besides its own match.
struct LogScope {
    const LogText& log;
    const KernelRegistry& kernels;
    const DeviceDatabase& devices;
    const std::vector<DeviceMention>& mentions;
    const std::vector<const CatalogModel*>& models;  // the configs a log may name: embedded and the user's
    const CatalogModel* userModel;                   // diagnose --model: used when the log names none; may be null
};

// The first signature matching `text` (`lower`: its lowercase copy), as (signature index, match);
// with `mustCross`, only a match that starts before that offset and ends after it.
std::optional<std::pair<std::size_t, SvMatch>> matchSignature(const std::string& text, const std::string& lower,
                                                              std::optional<std::size_t> mustCross);
// Cheap prefilters on lowercase text: whether any signature's needle occurs, or starts at the end.
bool anyNeedle(const std::string& lower);
bool endsWithNeedleStart(std::string_view lower);
// Reported by the CUDA runtime (asynchronously): later ones are consequences of the first error.
bool signatureFromCudaRuntime(std::size_t index);
// The finding for signature `index` matched in `matchedText` (line `line`, 0-based, maybe joined with the next).
DiagnosisFinding buildFinding(const LogScope& scope, std::size_t index, const SvMatch& match, const std::string& matchedText,
                              int line);

}  // namespace tilescope

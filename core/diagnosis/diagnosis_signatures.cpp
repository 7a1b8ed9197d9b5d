// The signature engine: the signatures of core and of every family in their order, the needle
// automaton and the patterns that match a line, the whole-log lookups of a diagnosis, and the
// finding a match becomes.
#include "core/diagnosis/diagnosis_signatures.h"

#include <algorithm>
#include <charconv>

#include "core/diagnosis/diagnosis_core_signatures.h"
#include "core/diagnosis/diagnosis_stacks.h"
#include "core/diagnosis/failing_kernel.h"

namespace tilescope {

std::optional<std::int64_t> groupNumber(const SvMatch& match, std::size_t group) {
    if (group >= match.size() || !match[group].matched) return std::nullopt;
    const std::string digits = match.str(group);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}

// ---- LogLookups -------------------------------------------------------------------------

int LogLookups::awqMention() const {
    if (!m_awq) m_awq = findAwqMention(m_log);
    return *m_awq;
}

int LogLookups::rocmMention() const {
    const auto& vendor = otherVendor();
    return vendor ? vendor->line : -1;
}

const std::optional<VendorMention>& LogLookups::otherVendor() const {
    if (!m_vendor) m_vendor = findOtherVendor(m_log);
    return *m_vendor;
}

std::optional<ModelMention> LogLookups::modelMention(int errorLine) const {
    if (!m_modelMentions) m_modelMentions = findModelMentions(m_log, m_models);
    return nearestModelMention(*m_modelMentions, errorLine);
}

const std::vector<RowsEvidence>& LogLookups::stepBudgets() const {
    if (!m_stepBudgets) m_stepBudgets = findStepBudgets(m_log);
    return *m_stepBudgets;
}

const std::optional<BuildArchWarning>& LogLookups::buildArchWarning() const {
    if (!m_buildArchWarning) m_buildArchWarning = findBuildArchWarning(m_log);
    return *m_buildArchWarning;
}

const std::optional<OldGpuWarning>& LogLookups::oldGpuWarning() const {
    if (!m_oldGpuWarning) m_oldGpuWarning = findOldGpuWarning(m_log);
    return *m_oldGpuWarning;
}

Signature::Signature(int place, std::string_view name, std::array<std::string_view, 3> words, const char* regexText, Verdict verdict,
                     bool fromCudaRuntime, SignatureBuild builder, std::string_view foretold)
    : order(place),
      id(name),
      needles(words),
      pattern(regexText),
      kind(verdict),
      cudaRuntime(fromCudaRuntime),
      build(builder),
      foretells(foretold),
      regex(regexText) {}

namespace {

std::vector<std::string_view> allNeedles(const std::vector<const Signature*>& list, std::vector<std::size_t>& owner) {
    std::vector<std::string_view> needles;
    for (std::size_t i = 0; i < list.size(); ++i)
        for (std::string_view needle : list[i]->needles)
            if (!needle.empty()) {
                needles.push_back(needle);
                owner.push_back(i);
            }
    return needles;
}

std::vector<const Signature*> sortedSignatures(const KernelRegistry& kernels) {
    std::vector<const Signature*> list;
    for (const auto& s : coreSignatures()) list.push_back(&s);
    for (const DiagnosisSignatures* family : contributions(kernels))
        for (const auto& s : family->signatures) list.push_back(&s);
    std::stable_sort(list.begin(), list.end(), [](const Signature* a, const Signature* b) { return a->order < b->order; });
    return list;
}

}  // namespace

// Core's signatures and every family's, sorted by order (a tie keeps core first, then registry order).
SignatureList::SignatureList(const KernelRegistry& kernels)
    : m_list(sortedSignatures(kernels)), m_needles(allNeedles(m_list, m_needleOwner)) {}

// The first signature matching `text`; with `mustCross`, only a match that starts before it and
// ends after it (a message wrapped onto the next line).
std::optional<std::pair<std::size_t, SvMatch>> SignatureList::match(std::string_view text, std::optional<std::size_t> mustCross) const {
    thread_local std::vector<int> found;
    if (!m_needles.find(text, found)) return std::nullopt;
    std::vector<std::size_t> candidates;
    for (int needle : found) candidates.push_back(m_needleOwner[static_cast<std::size_t>(needle)]);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (const std::size_t i : candidates) {
        SvMatch match;
        if (!m_list[i]->regex.search(text, match)) continue;
        if (mustCross) {
            const auto start = static_cast<std::size_t>(match.position(0));
            const auto end = start + static_cast<std::size_t>(match.length(0));
            if (!(start < *mustCross && end > *mustCross)) continue;
        }
        return std::make_pair(i, std::move(match));
    }
    return std::nullopt;
}

DiagnosisFinding buildFinding(const LogScope& scope, const Signature& signature, const SvMatch& match, std::string_view matchedText,
                              int line) {
    FindingBuilder builder(scope, line, matchedText);
    DiagnosisFinding& f = builder.finding();
    f.kind = signature.kind;
    f.signature = std::string(signature.id);
    f.message = match.str(0);
    if (signature.kind == Verdict::OutOfMemory)  // the allocator's details follow the signature
        f.message = std::string(matchedText.substr(static_cast<std::size_t>(match.position(0))));
    noteFailingKernel(builder);
    signature.build(builder, match);
    explainFailingKernel(builder);
    return std::move(f);
}

}  // namespace tilescope

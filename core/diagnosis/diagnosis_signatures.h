// The error signatures the diagnosis knows and how each becomes a finding: the figures it takes
// from the log, the kernel it implies, the plan, the fix and the command. Core holds the engine
// (the signature types, the matching, the finding builder) and the signatures of no bundled family
// (the CUDA runtime's errors, ptxas, the CuTe DSL, tile checks); each kernel family contributes its
// own upstream texts through KernelFamily::diagnosisSignatures() (kernels/<family>/diagnosis.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_evidence.h"
#include "core/diagnosis/diagnosis_regex.h"
#include "core/diagnosis/diagnosis_stacks.h"
#include "core/diagnosis/diagnosis_text.h"
#include "core/diagnosis/device_names.h"

namespace tilescope {

// How far before an error its shape figures are looked for.
inline constexpr int kDiagnosisContextLines = 40;

// What findings look up in the whole log, read once per log on first use (a log of many errors
// would otherwise read it once per error).
class LogLookups {
public:
    LogLookups(const LogText& log, const std::vector<const CatalogModel*>& models) : m_log(log), m_models(models) {}
    int awqMention() const;                                           // findAwqMention
    int rocmMention() const;                                          // otherVendor()'s line, -1 when none
    const std::optional<VendorMention>& otherVendor() const;          // findOtherVendor (device_names.h)
    std::optional<ModelMention> modelMention(int errorLine) const;    // findModelMention
    const std::vector<RowsEvidence>& stepBudgets() const;             // findStepBudgets
    const std::optional<BuildArchWarning>& buildArchWarning() const;  // findBuildArchWarning (diagnosis_stacks.h)
    const std::optional<OldGpuWarning>& oldGpuWarning() const;        // findOldGpuWarning (diagnosis_stacks.h)

private:
    const LogText& m_log;
    const std::vector<const CatalogModel*>& m_models;
    mutable std::optional<int> m_awq;
    mutable std::optional<std::optional<VendorMention>> m_vendor;
    mutable std::optional<std::vector<ModelMention>> m_modelMentions;
    mutable std::optional<std::vector<RowsEvidence>> m_stepBudgets;
    mutable std::optional<std::optional<BuildArchWarning>> m_buildArchWarning;
    mutable std::optional<std::optional<OldGpuWarning>> m_oldGpuWarning;
};

// What a finding may read besides its own match.
struct LogScope {
    const LogText& log;
    const KernelRegistry& kernels;
    const DeviceDatabase& devices;
    const std::vector<DeviceMention>& mentions;
    const std::vector<const CatalogModel*>& models;  // the configs a log may name: embedded and the user's
    const CatalogModel* userModel;                   // diagnose --model: used when the log names none; may be null
    const LogLookups& lookups;
};

// Builds one finding: the device, the figures, the plan and the command.
class FindingBuilder {
public:
    FindingBuilder(const LogScope& scope, int line, std::string_view matchedLine);

    DiagnosisFinding& finding() { return m_finding; }
    const DiagnosisFinding& finding() const { return m_finding; }
    const LogScope& scope() const { return m_scope; }
    int line() const { return m_line; }

    // A figure near the error; the lookup is remembered so that value() can say where it was read.
    std::optional<std::int64_t> figure(LogFigure f) const;
    // A shape value; its source is the last figure read with that value, else the matched message.
    void value(std::string name, std::optional<std::int64_t> v);
    // A shape value with its source: `line` 1-based (0: not from the log).
    void valueFrom(std::string name, std::int64_t v, int line, std::string source);
    std::optional<std::int64_t> valueOf(std::string_view name) const;
    void kernel(std::string family, std::string variant);
    // Whether a line near the error holds every one of `words` (lowercase).
    bool near(std::initializer_list<std::string_view> words) const;
    // The kernel family a generic CUDA error most likely comes from: the nearest line naming one
    // (the families' context clues), else an AWQ checkpoint or mention; "" when none.
    std::string familyFromContext() const;
    // Whether the traceback's innermost frame before the error may be a quantized linear layer.
    bool innermostFrameMayBeLinear() const;
    // The model the log names (or the user's --model), once looked up.
    const CatalogModel* model() const;
    int modelLine() const { return m_modelLine; }
    const std::string& familyNote() const { return m_familyNote; }
    // A log line for a message: leading blanks dropped, at most 100 characters.
    static std::string trimmed(std::string_view text);

    const DeviceSpec& planDevice() const { return *m_planDevice; }
    bool deviceNamed() const { return m_deviceNamed; }
    // Plans on `id` when the log names no GPU (the first one its figures imply), saying why.
    void preferDevice(const std::string& id, const std::string& why);
    // The GPU's compute capability as the text prints it (vLLM's "Current capability: 70"): the arch of
    // the finding. A GPU the log names keeps its place when it has that capability; else the database
    // GPUs of it are implied (`why` says so in the explanation) and plans use the first. False when the
    // database has no GPU of it: there is nothing to plan on.
    bool deviceOfCapability(ComputeCapability cc, const std::string& why);
    // The CUDA runtime the log's text comes from, when the text tells: plans predict its error.
    void cudaRuntime(int major) { m_cudaRuntime = major; }
    // The device plans use: the log's (or the default), with the log's CUDA runtime.
    DeviceSpec deviceForPlans() const;

    // `kernel`'s default shape with `values` set (names it lacks are skipped); the range error of the
    // first value its parameter refuses.
    static Result<Shape> shapeOf(const KernelChoice& kernel, const std::vector<DiagnosisValue>& values);
    // Plans `family`/`variant` at the default shape with `values` set; the plan's fix and limit
    // fill the finding. `axis`: the parameter to sweep when the plan names none.
    void plan(std::string_view family, std::string_view variant, const std::vector<DiagnosisValue>& values, std::string_view axis,
              std::string note = {});
    // When no shape can be planned: a sweep of the family's key axis at its default shape, or the device's limits.
    void fallbackCommand(std::string_view axis);

private:
    void resolveDevice(std::string_view matchedLine);

    const LogScope& m_scope;
    int m_line;
    DiagnosisFinding m_finding;
    mutable std::vector<LogText::FigureHit> m_hits;
    mutable bool m_modelLooked = false;
    mutable const CatalogModel* m_model = nullptr;
    mutable int m_modelLine = -1;
    mutable std::string m_familyNote;
    const DeviceSpec* m_planDevice = nullptr;
    bool m_deviceNamed = false;
    std::string m_deviceNote;
    std::string m_requiredText;  // the GPUs the text requires, when it names no other: nothing is planned
    std::optional<int> m_cudaRuntime;
};

// ---- signatures -------------------------------------------------------------------------

using SignatureBuild = void (*)(FindingBuilder&, const SvMatch&);

// One error text. Signatures are tried in `order` (core's and every family's together, lowest
// first) and the first that matches a line wins, so a specific text must come before a looser one
// that also matches it; the order numbers are listed in core/README.md and checked by a test.
struct Signature {
    Signature(int place, std::string_view name, std::array<std::string_view, 3> words, const char* regexText, Verdict verdict,
              bool fromCudaRuntime, SignatureBuild builder, std::string_view foretold = {});

    int order;
    std::string_view id;
    std::array<std::string_view, 3> needles;  // lowercase; one must occur (a cheap prefilter before the regex); "" unused
    const char* pattern;
    Verdict kind;
    bool cudaRuntime;  // reported by the CUDA runtime, asynchronously: later ones are consequences
    SignatureBuild build;
    // A warning's: the id of the error it predicts. Its finding is dropped when the log shows that error,
    // whose finding then reads the warning's facts itself.
    std::string_view foretells;
    Pattern regex;  // `pattern`, compiled once (case-insensitive)
};

// Words that, on a line near a generic CUDA error, tie it to the family that contributes them.
// Clues are tried in `order` (all families together); the nearest line wins, the first clue on a tie.
struct ContextClue {
    int order;
    std::vector<std::string_view> words;  // lowercase; all on one line
};

// Why a family could raise a generic error when the log names no kernel: one line of the ranking
// the finding shows, placed by `order` among every family's lines for that signature.
struct LikelyCause {
    std::string_view signature;  // a core signature id ("cuda.invalid_value")
    int order;
    std::string_view text;
};

// What a kernel family contributes to the diagnosis (KernelFamily::diagnosisSignatures()).
struct DiagnosisSignatures {
    std::vector<Signature> signatures;  // its own upstream error texts
    std::vector<ContextClue> clues;
    std::vector<LikelyCause> causes;
    // A grid or block the runtime refused with this family named nearby: sets the kernel, plans the
    // log's shape and fills the command (the finding's text is already there).
    void (*rejectedLaunch)(FindingBuilder&) = nullptr;
    // Shared memory per block over the opt-in limit, or no tile under a shared-memory capacity,
    // from a stack that names no kernel: the family claims it when its kernel is named near the
    // error (sets the kernel, plans); called in registry order after the finding's text is written.
    void (*sharedMemoryOverLimit)(FindingBuilder&) = nullptr;
    void (*noTileFits)(FindingBuilder&) = nullptr;
    // The command that replays a launch the text gives only the shared memory of (`parameter` =
    // `bytes`, with the opt-in when `optIn`) on `device`: the family that models bare launches.
    std::string (*bareLaunchCommand)(std::string_view parameter, std::int64_t bytes, bool optIn, std::string_view device) = nullptr;
};

// Every signature of core and of `kernels`' families, in the order they are tried.
class SignatureList {
public:
    explicit SignatureList(const KernelRegistry& kernels);

    // The first signature matching `text`, as (index, match); with `mustCross`, only a match that
    // starts before that offset and ends after it. Only signatures whose needle occurs in `text` run
    // their pattern: one scan for all needles decides.
    std::optional<std::pair<std::size_t, SvMatch>> match(std::string_view text, std::optional<std::size_t> mustCross) const;
    // The needle scan alone (ASCII case-insensitive): whether any needle occurs, and whether the
    // text ends with the start of one (a message wrapped there may go on on the next line).
    LiteralSet::Scan scanNeedles(std::string_view text) const { return m_needles.scan(text); }

    const Signature& operator[](std::size_t index) const { return *m_list[index]; }
    std::size_t size() const { return m_list.size(); }

private:
    std::vector<const Signature*> m_list;
    std::vector<std::size_t> m_needleOwner;  // needle index -> index in m_list (before m_needles: it fills this)
    LiteralSet m_needles;                    // every signature's needles, in one automaton
};

// The finding for `signature` matched in `matchedText` (line `line`, 0-based, maybe joined with the next).
DiagnosisFinding buildFinding(const LogScope& scope, const Signature& signature, const SvMatch& match, std::string_view matchedText,
                              int line);

// ---- what the families' signatures build with ------------------------------------------------

// The number in the match's group `group`; nullopt when the group did not match or is no integer.
std::optional<std::int64_t> groupNumber(const SvMatch& match, std::size_t group);
// The values named `names` the finding holds, to plan with.
std::vector<DiagnosisValue> known(const FindingBuilder& b, std::initializer_list<std::string_view> names);
// A linear layer's N, K and group size near the error.
void linearFigures(FindingBuilder& b);
// M of a GEMM call from every reading the log gives, the likeliest chosen, the others listed.
void rowsFromLog(FindingBuilder& b);
// A linear layer's N and K (and group size) from the model the log names, when the log gives no N.
void linearFromModel(FindingBuilder& b, const std::string& family, const std::string& variant);
// An attention call's figures near the error (head_dim, heads, batch, sequence length), and heads
// and head_dim from the model the log names when the log does not print them.
void attentionFigures(FindingBuilder& b);

// Shared memory per block over the opt-in limit, as a stack reports it.
struct SharedMemoryReport {
    std::optional<std::int64_t> allocated;
    std::optional<std::int64_t> maximum;
    std::string explanation;  // what refused it
    std::string fix;          // the first fix, before the bytes too many
    // A compiler's own check on the GPU it runs on (Triton's): its limit is the device's, AMD GPUs'
    // LDS included under ROCm; the architecture a message names does not imply the devices.
    bool compilerCheck = false;
    // The reporting stack's own plan from the log; true when it planned.
    bool (*planFromLog)(FindingBuilder&, std::int64_t allocated) = nullptr;
};
void buildSharedMemoryOverLimit(FindingBuilder& b, const SharedMemoryReport& report);

}  // namespace tilescope

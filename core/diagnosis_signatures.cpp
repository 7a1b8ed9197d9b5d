#include "core/diagnosis_signatures.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <regex>

#include "core/device_spec.h"
#include "core/diagnosis_evidence.h"
#include "core/diagnosis_stacks.h"
#include "core/fix_finder.h"
#include "core/kernel_resources.h"
#include "core/launch_checks.h"
#include "core/text_format.h"

namespace tilescope {

namespace {

constexpr int kContextLines = 40;    // how far before an error its shape figures are looked for
constexpr int kFamilyLinesBefore = 30;  // how far a kernel's name may be from a generic CUDA error
constexpr int kFamilyLinesAfter = 3;

std::optional<std::int64_t> groupNumber(const SvMatch& match, std::size_t group) {
    if (group >= match.size() || !match[group].matched) return std::nullopt;
    const std::string digits = match.str(group);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}


// The architecture a number of bytes is the opt-in shared-memory limit of ("sm_86, sm_89, sm_120").
std::vector<std::string> archsWithOptin(const DeviceDatabase& devices, std::int64_t bytes) {
    std::vector<std::string> out;
    for (const auto& arch : devices.architectures())
        if (arch.limits.smemPerBlockOptin == bytes) out.push_back(archNameOf(arch.computeCapability));
    return out;
}

// A sweep axis around `value`: doubling for Log2 parameters, else an even step (head_dim 512 -> 32:1024:+32).
std::string axisAround(const ParameterSpec& parameter, std::int64_t value) {
    const std::int64_t target = std::max<std::int64_t>(2 * std::max<std::int64_t>(value, 1), 2);
    if (parameter.scale == AxisScale::Log2) {
        std::int64_t to = 1;
        while (to < target && to < parameter.maximum) to *= 2;
        const std::int64_t from = std::max<std::int64_t>(parameter.minimum, 1);
        return parameter.name + "=" + str(from) + ":" + str(std::min(to, parameter.maximum)) + ":x2";
    }
    std::int64_t step = 1;
    while (step * 2 <= std::max<std::int64_t>(value, 1) / 16) step *= 2;
    const std::int64_t from = std::max(parameter.minimum, step);
    const std::int64_t to = std::min(parameter.maximum, (target + step - 1) / step * step);
    return parameter.name + "=" + str(from) + ":" + str(to) + ":+" + str(step);
}

// Builds one finding: the device, the figures, the plan and the command.
class FindingBuilder {
public:
    FindingBuilder(const LogScope& scope, int line, std::string_view matchedLine) : m_scope(scope), m_line(line) {
        m_finding.line = line + 1;
        resolveDevice(matchedLine);
    }

    DiagnosisFinding& finding() { return m_finding; }
    const DiagnosisFinding& finding() const { return m_finding; }
    const LogScope& scope() const { return m_scope; }
    int line() const { return m_line; }

    // A figure near the error; the lookup is remembered so that value() can say where it was read.
    std::optional<std::int64_t> figure(LogFigure f) const {
        auto hit = m_scope.log.figureHit(f, m_line, kContextLines);
        if (!hit) return std::nullopt;
        m_hits.push_back(*hit);
        return hit->value;
    }
    // A shape value; its source is the last figure read with that value, else the matched message.
    void value(std::string name, std::optional<std::int64_t> v) {
        if (!v) return;
        for (auto it = m_hits.rbegin(); it != m_hits.rend(); ++it)
            if (it->value == *v) {
                valueFrom(std::move(name), *v, it->line + 1, it->text);
                return;
            }
        valueFrom(std::move(name), *v, m_finding.line, m_finding.message);
    }
    // A shape value with its source: `line` 1-based (0: not from the log).
    void valueFrom(std::string name, std::int64_t v, int line, std::string source) {
        for (auto& existing : m_finding.shape)
            if (existing.name == name) {
                existing = {std::move(name), v, line, std::move(source)};
                return;
            }
        m_finding.shape.push_back({std::move(name), v, line, std::move(source)});
    }
    std::optional<std::int64_t> valueOf(std::string_view name) const {
        for (const auto& v : m_finding.shape)
            if (v.name == name) return v.value;
        return std::nullopt;
    }
    void kernel(std::string family, std::string variant) {
        m_finding.family = std::move(family);
        m_finding.variant = std::move(variant);
    }
    bool near(std::initializer_list<std::string_view> words) const {
        return m_scope.log.nearestLineWith(words, m_line, kFamilyLinesBefore, kFamilyLinesAfter) >= 0;
    }
    // The kernel family a generic CUDA error most likely comes from: the nearest line naming one.
    std::string familyFromContext() const {
        struct Clue {
            std::initializer_list<std::string_view> words;
            std::string_view family;
        };
        static const Clue clues[] = {
            {{"gemm_ar"}, "gemm_bucket"},     {{"awq", "gemv"}, "awq_gemv"},       {{"awq", "gemm"}, "awq_gemm"},
            {{"wqlinear_gemv"}, "awq_gemv"},  {{"gemv_forward_cuda"}, "awq_gemv"}, {{"wqlinear_gemm"}, "awq_gemm"},
            {{"gemm_forward_cuda"}, "awq_gemm"}, {{"flash_attn"}, "attention"},    {{"flash_fwd"}, "attention"},
            {{"flashattention"}, "attention"},
        };
        int bestDistance = kFamilyLinesBefore + 1;
        std::string_view best;
        for (const auto& clue : clues) {
            const int at = m_scope.log.nearestLineWith(clue.words, m_line, kFamilyLinesBefore, kFamilyLinesAfter);
            if (at >= 0 && std::abs(at - m_line) < bestDistance) {
                bestDistance = std::abs(at - m_line);
                best = clue.family;
            }
        }
        if (!best.empty()) return std::string(best);
        // Farther away: an AWQ checkpoint the log names, or AWQ anywhere (an import, a module path,
        // quantization=awq): its packing decides the family (GEMM, AutoAWQ's default, when not said).
        if (const CatalogModel* m = model()) {
            m_familyNote = (m_modelLine >= 0 ? "the log names " : "--model gives ") + m->id + ", an AWQ \"" + m->config.version +
                           "\" checkpoint";
            return std::string(packingFamily(m->config.packing));
        }
        const int awq = findAwqMention(m_scope.log);
        if (awq >= 0 && innermostFrameMayBeLinear()) {
            const std::string& lower = m_scope.log.lowerLine(awq);
            m_familyNote = "the log names AWQ on line " + std::to_string(awq + 1) + " (\"" + trimmed(m_scope.log.line(awq)) + "\")";
            return lower.find("gemv") != std::string::npos ? "awq_gemv" : "awq_gemm";
        }
        return {};
    }
    // Whether the traceback's innermost frame before the error (its file, function and quoted
    // source) may be a quantized linear layer; true when the log shows no frame at all (a lone
    // error line). A frame elsewhere (a KV-cache copy, an attention module) rules out a GEMM.
    bool innermostFrameMayBeLinear() const {
        static const std::regex frame(R"(^\s*(?:File "[^"]*", line \d+|File [^\s]+:\d+, in ))");
        const LogText& log = m_scope.log;
        for (int i = m_line - 1; i >= 0 && i >= m_line - kFamilyLinesBefore; --i) {
            const std::string_view text = log.withoutPrefix(i);
            if (!std::regex_search(text.begin(), text.end(), frame)) continue;
            std::string frameText = log.lowerLine(i);
            if (i + 1 < m_line) frameText += " " + log.lowerLine(i + 1);
            for (std::string_view word : {"gemm", "gemv", "linear", "matmul", "awq_ext", "awq_inference_engine"})
                if (frameText.find(word) != std::string::npos) return true;
            return false;
        }
        return true;
    }
    // The model the log names (or the user's --model), once looked up.
    const CatalogModel* model() const {
        if (!m_modelLooked) {
            m_modelLooked = true;
            if (auto mention = findModelMention(m_scope.log, m_scope.models, m_line)) {
                m_model = mention->model;
                m_modelLine = mention->line;
            } else if (m_scope.userModel) {
                m_model = m_scope.userModel;
            }
        }
        return m_model;
    }
    int modelLine() const { return m_modelLine; }
    const std::string& familyNote() const { return m_familyNote; }
    static std::string trimmed(std::string_view text) {
        constexpr std::size_t kMax = 100;
        while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
        std::string out(text.substr(0, kMax));
        if (text.size() > kMax) out += "...";
        return out;
    }

    const DeviceSpec& planDevice() const { return *m_planDevice; }
    bool deviceNamed() const { return m_deviceNamed; }
    // Plans on `id` when the log names no GPU (the first one its figures imply), saying why.
    void preferDevice(const std::string& id, const std::string& why) {
        if (m_deviceNamed) return;
        if (const DeviceSpec* spec = m_scope.devices.find(id)) {
            m_planDevice = spec;
            m_deviceNote = " (" + why + ")";
        }
    }
    // The CUDA runtime the log's text comes from, when the text tells: plans predict its error.
    void cudaRuntime(int major) { m_cudaRuntime = major; }
    // The device plans use: the log's (or the default), with the log's CUDA runtime.
    DeviceSpec deviceForPlans() const {
        DeviceSpec device = planDevice();
        if (m_cudaRuntime) device.cudaRuntime = *m_cudaRuntime;
        return device;
    }

    // Plans `family`/`variant` at the default shape with `values` set; the plan's fix and limit
    // fill the finding. `axis`: the parameter to sweep when the plan names none.
    void plan(std::string_view family, std::string_view variant, const std::vector<DiagnosisValue>& values,
              std::string_view axis, std::string note = {}) {
        auto kernel = resolveKernel(m_scope.kernels, family, variant);
        if (!kernel) return;
        const auto& parameters = kernel->family->parameters();
        Shape shape = Shape::defaults(parameters);
        for (const auto& v : values) {
            const int index = parameterIndex(parameters, v.name);
            if (index < 0) continue;
            if (auto inRange = checkParameterValue(parameters[static_cast<std::size_t>(index)], v.value); !inRange) {
                m_finding.planNote = "not planned: " + inRange.error();
                return;
            }
            shape[index] = v.value;
        }
        DeviceSpec device = planDevice();
        if (m_cudaRuntime) device.cudaRuntime = *m_cudaRuntime;
        LaunchPlan plan = planWithFix(*kernel, shape, device, &m_scope.devices);
        // The runtime the log's text belongs to: without it the command would predict the local one's
        // error ("invalid argument" on 13 for a log that says "invalid configuration argument").
        const std::string kernelArgs = "-k " + std::string(family) + " -v " + std::string(kernel->variantName()) +
                                       " -d " + device.id + (m_cudaRuntime ? " --cuda " + std::to_string(*m_cudaRuntime) : "");
        m_finding.command = "tilescope-cli plan " + kernelArgs + " -s " + formatShape(shape, parameters);
        int axisIndex = plan.failingParameter >= 0 ? plan.failingParameter : parameterIndex(parameters, axis);
        if (axisIndex >= 0) {
            const auto& spec = parameters[static_cast<std::size_t>(axisIndex)];
            m_finding.sweepAxis = axisAround(spec, shape[axisIndex]);
            m_finding.sweepShape = formatShape(shape, parameters);
            m_finding.sweepDevice = device.id;
            m_finding.sweepCommand = "tilescope-cli sweep " + kernelArgs + " -s " + m_finding.sweepShape + " --x " + m_finding.sweepAxis;
        }
        m_finding.plannedDevice = device.id;
        if (!note.empty()) note += "; ";
        note += "planned " + std::string(family) + "/" + std::string(kernel->variantName()) + " at " +
                formatShape(shape, parameters) + " on " + device.id + m_deviceNote;
        m_finding.planNote = m_finding.planNote.empty() ? note : m_finding.planNote + "; " + note;
        if (!plan.ok()) {
            if (!plan.fix.empty()) m_finding.fix = plan.fix;
            if (!m_finding.limit && plan.limit) m_finding.limit = plan.limit;
            if (plan.verdict != m_finding.kind)
                m_finding.explanation += " The bundled planner reports " + std::string(verdictName(plan.verdict)) +
                                         " at this shape: " + plan.message + ".";
        } else {
            std::string detail = "tile " + std::string(plan.tile.empty() ? "-" : plan.tile) + ", " +
                                 withThousands(plan.totalSmem()) + " B shared memory";
            m_finding.explanation += " The bundled planner launches this shape on " + device.id + " (" + detail +
                                     "): the failing launch used another configuration than the planner's.";
        }
        // The log says the launch failed but the planned shape passes (a figure the log does not
        // give took its default): the boundary is the last passing value above it along the axis.
        if (plan.ok() && axisIndex >= 0 && m_finding.kind != Verdict::Ok) {
            const auto& spec = parameters[static_cast<std::size_t>(axisIndex)];
            const auto fails = [&](std::int64_t v) {
                Shape probe = shape;
                probe[axisIndex] = v;
                return !kernel->family->plan(kernel->variant, probe, device, PlanDetail::Brief).ok();
            };
            std::int64_t pass = shape[axisIndex];
            std::optional<std::int64_t> fail;
            for (std::int64_t v = std::max<std::int64_t>(pass, 1) * 2; v <= spec.maximum; v *= 2) {
                if (fails(v)) {
                    fail = v;
                    break;
                }
                pass = v;
            }
            if (fail) {
                while (*fail - pass > 1) {
                    const std::int64_t mid = pass + (*fail - pass) / 2;
                    (fails(mid) ? *fail : pass) = mid;
                }
                m_finding.boundary = pass;
                m_finding.sweepAxis = axisAround(spec, pass);
                m_finding.sweepCommand = "tilescope-cli sweep " + kernelArgs + " -s " + m_finding.sweepShape + " --x " + m_finding.sweepAxis;
                m_finding.explanation += " Along " + spec.name + " the planner's launch first fails above " + withThousands(pass) + ".";
            }
        }
        // The passing value nearest the failure along the sweep axis: where the map's boundary lies.
        if (!plan.ok() && axisIndex >= 0) {
            m_finding.boundary = nearestPassingValue(*kernel, shape, device, axisIndex);
            if (m_finding.boundary) {
                // The map must cross it: widen the axis when the boundary lies outside.
                const auto& spec = parameters[static_cast<std::size_t>(axisIndex)];
                m_finding.sweepAxis = axisAround(spec, std::max(*m_finding.boundary, shape[axisIndex]));
                m_finding.sweepCommand = "tilescope-cli sweep " + kernelArgs + " -s " + m_finding.sweepShape + " --x " + m_finding.sweepAxis;
            }
        }
        m_finding.plan = std::move(plan);
    }
    // When no shape can be planned: a sweep of the family's key axis at its default shape, or the device's limits.
    void fallbackCommand(std::string_view axis) {
        if (!m_finding.command.empty()) return;
        if (!m_finding.family.empty()) {
            auto kernel = resolveKernel(m_scope.kernels, m_finding.family, m_finding.variant);
            if (kernel) {
                const auto& parameters = kernel->family->parameters();
                const int index = parameterIndex(parameters, axis);
                const std::string args = "-k " + m_finding.family + " -v " + std::string(kernel->variantName()) + " -d " +
                                         planDevice().id;
                if (index >= 0) {
                    const auto& spec = parameters[static_cast<std::size_t>(index)];
                    m_finding.sweepAxis = axisAround(spec, spec.defaultValue);
                    m_finding.sweepDevice = planDevice().id;
                    m_finding.sweepCommand = "tilescope-cli sweep " + args + " --x " + m_finding.sweepAxis;
                    m_finding.command = m_finding.sweepCommand;
                } else {
                    m_finding.command = "tilescope-cli plan " + args;
                }
                return;
            }
        }
        m_finding.command = "tilescope-cli devices" + (m_deviceNamed ? " " + planDevice().id : std::string());
    }

private:
    void resolveDevice(std::string_view matchedLine) {
        const auto& devices = m_scope.devices;
        const std::optional<ComputeCapability> ownArch = findArchitecture(matchedLine);
        // The nearest product name at or before the error, else the first after it.
        const DeviceMention* product = nullptr;
        const DeviceMention* archMention = nullptr;
        for (const auto& m : m_scope.mentions) {
            if (m.line <= m_line) {
                if (!m.ids.empty()) product = &m;
                if (m.cc) archMention = &m;
            } else {
                if (!product && !m.ids.empty()) product = &m;
                if (!archMention && m.cc) archMention = &m;
            }
        }
        std::optional<ComputeCapability> cc = ownArch ? ownArch : (archMention ? archMention->cc : std::nullopt);
        std::vector<std::string> ids;
        if (product) {
            for (const auto& id : product->ids)
                if (!cc || devices.find(id)->computeCapability == *cc) ids.push_back(id);
            if (!ids.empty()) m_finding.deviceText = product->text;
            if (!ownArch && ids.empty()) {  // the product wins over an unrelated arch elsewhere in the log
                ids = product->ids;
                cc.reset();
                m_finding.deviceText = product->text;
            }
        }
        if (ids.empty() && cc) {
            for (const auto& d : devices.devices())
                if (d.computeCapability == *cc) ids.push_back(d.id);
        }
        if (cc) m_finding.arch = archNameOf(*cc);
        if (ids.size() == 1) {
            m_finding.deviceId = ids.front();
            if (m_finding.arch.empty()) m_finding.arch = devices.find(ids.front())->archName();
            if (m_finding.deviceText.empty()) m_finding.deviceText = m_finding.arch;
        }
        if (!ids.empty()) {
            m_planDevice = devices.find(ids.front());
            m_deviceNamed = true;
            if (ids.size() > 1) m_deviceNote = " (the log's device fits " + joinList(ids) + "; planned on the first)";
        } else {
            m_planDevice = &devices.defaultDevice();
            m_deviceNote = " (the database default: the log names no known device)";
        }
    }

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
    std::optional<int> m_cudaRuntime;
};

// ---- signatures -------------------------------------------------------------------------

using Build = void (*)(FindingBuilder&, const SvMatch&);

struct Signature {
    std::string_view id;
    std::array<std::string_view, 3> needles;  // lowercase; one must occur (a cheap prefilter before the regex); "" unused
    const char* pattern;
    Verdict kind;
    bool cudaRuntime;  // reported by the CUDA runtime, asynchronously: later ones are consequences
    Build build;
};

// M of a GEMM call from every reading the log gives (explicit rows, tensor shapes, prompt lengths,
// batch x seq, step budgets), the likeliest planned, the others listed; a tensor shape's last
// dimension gives K when nothing else does.
void rowsFromLog(FindingBuilder& b) {
    auto& f = b.finding();
    const RowsChoice choice = chooseRows(findRowsEvidence(b.scope().log, b.line()), b.line());
    if (!choice.chosen) return;
    const RowsEvidence& chosen = *choice.chosen;
    b.valueFrom("M", chosen.value, chosen.line + 1, chosen.text + " (" + std::string(rowsReadingName(chosen.reading)) + ")");
    if (chosen.lastDim && !b.valueOf("K")) b.valueFrom("K", *chosen.lastDim, chosen.line + 1, chosen.text + " (last dimension)");
    if (choice.readings.size() > 1) {
        for (const auto& r : choice.readings)
            f.candidates.push_back({"M", r.value, r.line + 1, r.text, std::string(rowsReadingName(r.reading)),
                                    r.value == chosen.value && r.reading == chosen.reading});
    }
    if (!choice.note.empty()) f.planNote = choice.note;
}

// A linear layer's N and K (and group size) from the model the log names, when the log gives no
// N: every linear layer of the model is planned at the finding's M; the first that fails (whose K
// matches a logged K, when one is) is the finding's shape, the others are listed.
void linearFromModel(FindingBuilder& b, const std::string& family, const std::string& variant) {
    auto& f = b.finding();
    const CatalogModel* model = b.model();
    if (!model) return;
    f.model = model->id;
    f.modelSource = model->source + (b.modelLine() >= 0 ? "; the log names it on line " + str(b.modelLine() + 1) : "; given with --model");
    if (b.valueOf("N")) return;  // the log's own figures win
    auto kernel = resolveKernel(b.scope().kernels, family, variant);
    if (!kernel) return;
    const auto& parameters = kernel->family->parameters();
    const DeviceSpec device = b.deviceForPlans();
    const auto rows = b.valueOf("M");
    const auto loggedK = b.valueOf("K");
    const ModelConfig& c = model->config;
    const std::string config = "config.json of " + model->id + " (hidden_size " + str(c.hiddenSize) + ", intermediate_size " +
                               str(c.intermediateSize) + ", heads " + str(c.heads) + "/" + str(c.kvHeads) + ", head_dim " +
                               str(c.headDim) + ", group_size " + str(c.groupSize) + ")";
    // Preference: a failing layer whose K is the logged one, any layer with that K, a failing layer, the widest.
    std::optional<std::size_t> failingWithK, withK, failing, widest;
    std::vector<ModelLayer> linears;
    for (auto& layer : expandModel(c))
        if (!layer.attention) linears.push_back(std::move(layer));
    for (const auto& layer : linears) {
        DiagnosisLayer out;
        out.name = layer.name + (layer.note.empty() ? "" : " (" + layer.note + ")");
        Shape shape = Shape::defaults(parameters);
        bool inRange = true;
        for (const auto& [name, value] : layer.fixed) {
            const int index = parameterIndex(parameters, name);
            if (index < 0) continue;
            if (!checkParameterValue(parameters[static_cast<std::size_t>(index)], value)) inRange = false;
            shape[index] = value;
            out.shape.push_back({name, value, 0, config});
        }
        if (rows) {
            const int index = parameterIndex(parameters, "M");
            if (index >= 0) shape[index] = *rows;
        }
        if (!inRange) continue;
        const LaunchPlan plan = kernel->family->plan(kernel->variant, shape, device, PlanDetail::Brief);
        out.verdict = plan.verdict;
        out.message = plan.message;
        const std::size_t at = f.layers.size();
        auto fixed = [&](std::string_view name) {
            for (const auto& [n, v] : layer.fixed)
                if (n == name) return v;
            return std::int64_t{0};
        };
        const bool kFits = loggedK && fixed("K") == *loggedK;
        if (!plan.ok() && kFits && !failingWithK) failingWithK = at;
        if (kFits && (!withK || fixed("N") > f.layers[*withK].shape.front().value)) withK = at;
        if (!plan.ok() && !failing) failing = at;
        if (!widest || fixed("N") > f.layers[*widest].shape.front().value) widest = at;
        f.layers.push_back(std::move(out));
    }
    if (f.layers.empty()) return;
    const std::size_t chosen = failingWithK ? *failingWithK : withK ? *withK : failing ? *failing : *widest;
    const DiagnosisLayer& layer = f.layers[chosen];
    for (const auto& v : layer.shape)
        if (!(v.name == "K" && loggedK)) b.valueFrom(v.name, v.value, 0, layer.name + " in the " + config);
    std::vector<std::string> failingNames;
    for (const auto& l : f.layers)
        if (l.verdict != Verdict::Ok) failingNames.push_back(l.name);
    std::string note = rows ? (failingNames.empty() ? "no layer of " + model->id + " fails at M=" + str(*rows) + "; planned " + layer.name
                                                    : "layers of " + model->id + " that fail at M=" + str(*rows) + ": " +
                                                          joinList(failingNames) + "; planned " + layer.name)
                            : "planned " + layer.name + " of " + model->id + " (the log gives no M)";
    if (loggedK) note += (withK ? "; the logged K=" : "; no layer has the logged K=") + str(*loggedK);
    if (c.architecture.find("Mixtral") != std::string::npos || c.modelType.find("moe") != std::string::npos)
        note += "; a mixture-of-experts model: an expert's gate/up/down projections see only the rows routed to it (at most M)";
    f.planNote = f.planNote.empty() ? note : f.planNote + "; " + note;
}

void linearFigures(FindingBuilder& b) {
    b.value("N", b.figure(LogFigure::N));
    b.value("K", b.figure(LogFigure::K));
    b.value("group_size", b.figure(LogFigure::GroupSize));
}

std::vector<DiagnosisValue> known(const FindingBuilder& b, std::initializer_list<std::string_view> names) {
    std::vector<DiagnosisValue> out;
    for (auto name : names)
        if (auto v = b.valueOf(name)) out.push_back({std::string(name), *v, 0, {}});
    return out;
}

void buildGemvBatch(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    // "only supports batch size 1" alone is said by other stacks too: without AWQ's own wording or
    // an AWQ/GEMV clue nearby, the kernel stays unknown.
    const bool awq = lowercaseAscii(f.message).find("awq gemv") != std::string::npos || b.near({"awq"}) || b.near({"gemv"});
    if (!awq) {
        f.title = "a kernel that only supports batch size 1 got more";
        f.explanation = "The log does not say which kernel; AutoAWQ's GEMV kernel prints this text for batch > 1.";
        f.fix = "route batches larger than 1 to a kernel that takes them (for AWQ: a GEMM-packed checkpoint)";
        b.value("batch", groupNumber(m, 1));
        b.fallbackCommand("");
        return;
    }
    b.kernel("awq_gemv", "gemv");
    auto rows = groupNumber(m, 1);
    if (!rows) rows = b.figure(LogFigure::Batch);
    b.value("M", rows);
    linearFigures(b);
    f.title = rows ? "AWQ GEMV kernel got batch " + str(*rows) : "AWQ GEMV kernel got more than one row";
    if (rows) f.limit = LimitHit{"batch_size", 1, *rows};
    f.explanation = "The AWQ GEMV kernel (AutoAWQ \"GEMV\" packing) takes exactly one activation row; this call had " +
                    (rows ? str(*rows) : std::string("more than one")) + ".";
    f.fix = "use a GEMM-packed checkpoint (quantization_config.version = \"gemm\"), which accepts any batch, or serve with batch size 1";
    if (rows) b.plan("awq_gemv", "gemv", known(b, {"M", "N", "K", "group_size"}), "M");
    b.fallbackCommand("M");
}

void buildGemvFastBatch(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("awq_gemv", "gemv_fast");
    const auto batch = b.figure(LogFigure::Batch);
    const auto seq = b.figure(LogFigure::Seq);
    if (batch) b.value("M", *batch * seq.value_or(1));
    linearFigures(b);
    const auto rows = b.valueOf("M");
    f.title = rows ? "gemv_fast kernel got batch " + str(*rows) : "gemv_fast kernel got an unsupported batch size";
    f.explanation = "AutoAWQ's fast GEMV kernel (gemv_fast) has instances for batch 1..7 only" +
                    (rows ? "; this call had " + str(*rows) + " rows." : std::string(".")) +
                    " Upstream sends 8 or more rows to a GEMM kernel.";
    f.fix = "route batches of 8 or more rows to a GEMM kernel (awq_gemm), or cap the decode batch at 7";
    if (rows) b.plan("awq_gemv", "gemv_fast", known(b, {"M", "N", "K", "group_size"}), "M");
    b.fallbackCommand("M");
}

void buildGemvGroup(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    const bool fast = b.near({"gemv_fast"});
    b.kernel("awq_gemv", fast ? "gemv_fast" : "");
    b.value("group_size", b.figure(LogFigure::GroupSize));
    b.value("N", b.figure(LogFigure::N));
    b.value("K", b.figure(LogFigure::K));
    const auto g = b.valueOf("group_size");
    f.title = g ? "AWQ GEMV kernel: unsupported group size " + str(*g) : "AWQ GEMV kernel: unsupported group size";
    f.explanation = "The AWQ GEMV kernels are compiled for a few group sizes only: gemv for 64 and 128, gemv_fast for 128.";
    f.fix = "quantize with q_group_size 128, or use a GEMM-packed checkpoint (any multiple of 32)";
    if (g)
        b.plan("awq_gemv", fast ? "gemv_fast" : "gemv", known(b, {"group_size", "N", "K"}), "group_size",
               fast ? std::string() : "the log does not say which GEMV variant");
    b.fallbackCommand("group_size");
}

void buildGemmCheck(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto cta = groupNumber(m, 1);
    const std::string id = f.signature;
    // llm-awq's original kernel checks against its only tile width, 128.
    constexpr std::int64_t kLegacyCtaN = 128;
    const std::string variant = (id == "awq_gemm.cta_n" && cta == kLegacyCtaN) ? "legacy_grid_y" : "gemm";
    b.kernel("awq_gemm", variant);
    rowsFromLog(b);
    linearFigures(b);
    std::string axis = "N";
    std::vector<std::string_view> needed{"N"};
    if (id == "awq_gemm.cta_n") {
        f.explanation = "AWQ GEMM tiles the output features by " + (cta ? str(*cta) : std::string("cta_N")) +
                        " columns: OC (N, out_features) must be a multiple of it.";
        f.fix = "pad the layer's out_features to a multiple of " + (cta ? str(*cta) : std::string("cta_N")) +
                ", or keep this layer unquantized (modules_to_not_convert)";
    } else if (id == "awq_gemm.pack_num") {
        f.explanation = "AWQ packs 8 4-bit weights per int32 along the output features: OC must be a multiple of 8.";
        f.fix = "pad out_features to a multiple of 8, or keep this layer unquantized";
    } else if (id == "awq_gemm.group_multiple") {
        axis = "group_size";
        needed = {"group_size"};
        f.explanation = "AWQ GEMM reads scales and zeros per 32-row K step: the group size must be a multiple of 32.";
        f.fix = "quantize with q_group_size 32, 64 or 128";
    } else if (id == "awq_gemm.oc_group") {
        needed = {"N", "group_size"};
        f.explanation = "AWQ GEMM needs OC (N) to be a multiple of the group size.";
        f.fix = "quantize with a group size that divides out_features (128 usually does)";
    } else {
        axis = "K";
        needed = {"K", "group_size"};
        f.explanation = "AWQ GEMM needs IC (K, in_features) to be a multiple of the group size and of 32.";
        f.fix = "pad in_features, or quantize with a group size that divides it";
    }
    f.title = "AWQ GEMM shape check: " + f.message;
    const bool enough = std::all_of(needed.begin(), needed.end(), [&](std::string_view n) { return b.valueOf(n).has_value(); });
    if (enough) b.plan("awq_gemm", variant, known(b, {"M", "N", "K", "group_size"}), axis);
    b.fallbackCommand(axis);
}

void attentionFigures(FindingBuilder& b) {
    b.value("head_dim", b.figure(LogFigure::HeadDim));
    b.value("head_dim_v", b.figure(LogFigure::HeadDimV));
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("heads", b.figure(LogFigure::Heads));
    if (auto seq = b.figure(LogFigure::Seq)) {
        b.value("seqlen_q", seq);
        b.value("seqlen_k", seq);
    }
    // heads and head_dim from the model the log names, when the log does not print them.
    if (const CatalogModel* model = b.model()) {
        auto& f = b.finding();
        f.model = model->id;
        f.modelSource = model->source + (b.modelLine() >= 0 ? "; the log names it on line " + str(b.modelLine() + 1) : "; given with --model");
        const std::string from = "config.json of " + model->id;
        if (!b.valueOf("heads")) b.valueFrom("heads", model->config.heads, 0, from + ": num_attention_heads");
        if (!b.valueOf("head_dim"))
            b.valueFrom("head_dim", model->config.headDim, 0,
                        from + (model->config.headDimExplicit ? ": head_dim" : ": hidden_size / num_attention_heads"));
    }
}

std::vector<DiagnosisValue> attentionShape(const FindingBuilder& b) {
    auto values = known(b, {"batch", "seqlen_q", "seqlen_k", "heads", "head_dim", "head_dim_v"});
    // FA2 takes one head size for Q, K and V: a log that names only head_dim means both.
    if (b.valueOf("head_dim") && !b.valueOf("head_dim_v")) values.push_back({"head_dim_v", *b.valueOf("head_dim"), 0, {}});
    return values;
}

void buildAttentionArch(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    f.title = "FlashAttention refuses a pre-Ampere GPU" + (f.arch.empty() ? std::string() : " (" + f.arch + ")");
    f.explanation = "FlashAttention-2 uses Ampere (sm_80) tensor-core instructions and refuses older GPUs before launching.";
    f.fix = "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU, or use an sm_80+ GPU";
    if (b.deviceNamed()) b.plan("attention", "fa2", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

void buildAttentionHeadDim(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    const auto hd = b.valueOf("head_dim");
    const auto limit = groupNumber(m, 1);
    const bool multiple = f.signature == "attention.head_dim_multiple";
    f.title = multiple ? "FlashAttention: head_dim " + (hd ? str(*hd) + " " : std::string()) + "is not a multiple of 8"
                       : "FlashAttention: head_dim " + (hd ? str(*hd) + " " : std::string()) + "over 256";
    if (hd && limit) f.limit = LimitHit{multiple ? "head_dim % 8" : "head_dim", *limit, *hd};
    f.explanation = multiple ? "FlashAttention-2 loads heads in 8-element vectors: head_dim must be a multiple of 8."
                             : "FlashAttention-2 is compiled for head_dim buckets up to 256.";
    f.fix = multiple ? "pad head_dim to the next multiple of 8" : "route head_dim > 256 to another backend (e.g. PyTorch SDPA)";
    if (hd) b.plan("attention", "fa2", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

void buildAttentionDtype(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    b.kernel("attention", "fa2");
    attentionFigures(b);
    if (f.signature == "attention.dtype") {
        f.title = "FlashAttention got a dtype other than fp16/bf16";
        f.explanation = "FlashAttention-2 is compiled for fp16 and bf16 only (float32 inputs are refused).";
        f.fix = "cast q, k and v to torch.float16 or torch.bfloat16 (bf16 needs sm_80+), or use PyTorch SDPA for float32";
    } else if (f.signature == "attention.same_dtype") {
        f.title = "FlashAttention: q, k and v have different dtypes";
        f.explanation = "FlashAttention-2 needs one dtype for query, key and value.";
        f.fix = "cast key and value to the query's dtype";
    } else {
        f.title = "FlashAttention: bfloat16 on a pre-Ampere GPU";
        f.explanation = "bf16 tensor-core instructions exist from sm_80 only.";
        f.fix = "use float16 on this GPU (FlashAttention itself also needs sm_80+; use PyTorch SDPA there)";
    }
    b.fallbackCommand("head_dim");
}

void buildTileCapacity(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("attention", "sm120_tile_search");
    b.value("head_dim", groupNumber(m, 1));
    b.value("head_dim_v", groupNumber(m, 2));
    b.value("smem_limit", groupNumber(m, 4));
    attentionFigures(b);
    const auto hd = b.valueOf("head_dim");
    const auto hdv = b.valueOf("head_dim_v");
    f.title = "no attention tile fits shared memory" + (hd ? " at head_dim " + str(*hd) : std::string()) +
              (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = "The FA4-on-SM120 style tile search tried every (tile_m, tile_n) candidate for this head size; none "
                    "fits the device's opt-in shared memory per block" +
                    (b.valueOf("smem_limit") ? " (" + withThousands(*b.valueOf("smem_limit")) + " B)." : std::string("."));
    f.fix = "route this head_dim to another backend, or use a GPU with a larger opt-in shared-memory limit";
    if (hd && hdv) b.plan("attention", "sm120_tile_search", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

void buildLooseCapacity(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.value("smem_limit", groupNumber(m, 2));
    attentionFigures(b);
    const bool attention = b.valueOf("head_dim").has_value() || b.near({"fa4"}) || b.near({"flash"});
    if (attention) b.kernel("attention", "sm120_tile_search");
    f.title = "no tile fits shared memory" + (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = "A tile search found no candidate under the device's shared-memory capacity.";
    f.fix = "use a smaller tile or head size, or a GPU with a larger opt-in shared-memory limit";
    if (const auto limit = b.valueOf("smem_limit")) {
        const auto archs = archsWithOptin(b.scope().devices, *limit);
        if (!archs.empty()) f.explanation += " " + withThousands(*limit) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    if (attention && b.valueOf("head_dim")) b.plan("attention", "sm120_tile_search", attentionShape(b), "head_dim");
    b.fallbackCommand("head_dim");
}

// The database GPUs the text's figures imply when it names none, said in the explanation; plans and
// commands then use the first of them.
void implyDevices(FindingBuilder& b, std::vector<std::string> ids, const std::string& why) {
    auto& f = b.finding();
    if (ids.empty()) return;
    f.impliedDevices = std::move(ids);
    f.impliedBy = why;
    f.explanation += " It implies " + joinList(f.impliedDevices) + " (" + why + ").";
    b.preferDevice(f.impliedDevices.front(), "the first database GPU the text implies: " + why);
}

// The device id the replay commands use: the log's GPU, else the first implied one, else the default.
std::string commandDevice(const FindingBuilder& b) {
    const auto& f = b.finding();
    if (b.deviceNamed()) return b.planDevice().id;
    return f.impliedDevices.empty() ? b.planDevice().id : f.impliedDevices.front();
}

// Shared memory a triton-family plan of `values` asks for (the pipeliner's formula through the
// planner, core has no copy of it); nullopt when the planner refuses the config before that.
std::optional<std::int64_t> tritonSharedMemory(const FindingBuilder& b, const std::vector<DiagnosisValue>& values) {
    auto kernel = resolveKernel(b.scope().kernels, "triton", "");
    if (!kernel) return std::nullopt;
    const auto& parameters = kernel->family->parameters();
    Shape shape = Shape::defaults(parameters);
    for (const auto& v : values) {
        const int index = parameterIndex(parameters, v.name);
        if (index < 0 || !checkParameterValue(parameters[static_cast<std::size_t>(index)], v.value)) return std::nullopt;
        shape[index] = v.value;
    }
    const LaunchPlan plan = kernel->family->plan(kernel->variant, shape, b.planDevice(), PlanDetail::Brief);
    if (plan.limit && plan.limit->name == "smem_per_block_optin") return plan.limit->actual;
    if (plan.hasLaunch()) return plan.totalSmem();
    return std::nullopt;
}

// Triton's OutOfResources with the autotuner config the log quotes: planned as the triton family
// (the matmul tutorial's pipelined kernel) when BLOCK_M/N/K and num_stages are all there.
bool tritonConfigFromLog(FindingBuilder& b, std::int64_t required) {
    auto& f = b.finding();
    const auto config = findTritonConfig(b.scope().log, b.line(), kContextLines);
    for (const auto& c : config) b.valueFrom(c.parameter, c.value, c.line + 1, c.text);
    for (std::string_view needed : {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages"})
        if (!b.valueOf(needed)) {
            f.unknown = "the log quotes no full Triton config (BLOCK_M, BLOCK_N, BLOCK_K and num_stages): with them, "
                        "`tilescope-cli plan -k triton -s BLOCK_M=..,BLOCK_N=..,BLOCK_K=..,num_stages=..` checks it on every GPU";
            return false;
        }
    auto values = known(b, {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages", "num_warps"});
    // The element size is rarely printed: the one at which the formula gives Triton's own figure.
    std::string note;
    for (const std::int64_t bytes : {2, 1, 4}) {
        auto withBytes = values;
        withBytes.push_back({"dtype_bytes", bytes, 0, {}});
        if (tritonSharedMemory(b, withBytes) == required) {
            b.valueFrom("dtype_bytes", bytes, 0,
                        "the element size at which Triton's pipeliner formula gives the printed " + withThousands(required) + " B");
            note = "the config the log quotes needs exactly the printed " + withThousands(required) + " B at " + str(bytes) +
                   " B per element";
            break;
        }
    }
    if (note.empty()) {
        values.push_back({"dtype_bytes", 2, 0, {}});
        const auto fp16 = tritonSharedMemory(b, values);
        note = "the matmul tutorial's pipeliner needs " + (fp16 ? withThousands(*fp16) + " B" : std::string("an unknown amount")) +
               " for the quoted config at 2 B per element, not the printed " + withThousands(required) +
               " B: the failing kernel stages other tiles, or another Triton version allocates otherwise; planned as the tutorial's";
    }
    b.kernel("triton", "matmul");
    b.plan("triton", "matmul", known(b, {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages", "num_warps", "dtype_bytes"}), "num_stages", note);
    return true;
}

// Shared memory over the opt-in limit, as CuTe DSL ("launch shared memory exceeds current GPU arch") and
// Triton ("out of resource: shared memory") report it.
void buildSmemOverLimit(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const bool triton = f.signature == "smem.triton";
    const auto allocated = groupNumber(m, triton ? 1 : 2);
    const auto maximum = groupNumber(m, triton ? 2 : 3);
    b.value("smem_bytes", allocated);
    b.value("smem_limit", maximum);
    attentionFigures(b);
    if (allocated && maximum) f.limit = LimitHit{"smem_per_block_optin", *maximum, *allocated};
    f.title = "shared memory per block over the limit" +
              (allocated && maximum ? ": " + withThousands(*allocated) + " B > " + withThousands(*maximum) + " B" : std::string()) +
              (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = triton ? "Triton compiled a kernel whose shared memory exceeds what this GPU grants one block (its opt-in limit)."
                           : "The kernel asked for more dynamic shared memory than this GPU grants one block (its opt-in "
                             "limit); the runtime refuses the launch with cudaErrorInvalidValue.";
    const int rocm = triton ? findRocmMention(b.scope().log) : -1;
    if (maximum && rocm < 0) {
        const auto archs = archsWithOptin(b.scope().devices, *maximum);
        if (!archs.empty()) f.explanation += " " + withThousands(*maximum) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    if (rocm >= 0) {
        // ROCm's Triton prints an AMD GPU's LDS as the hardware limit (65,536 B on MI300X): no NVIDIA GPU is implied.
        f.explanation += " The log runs on ROCm (line " + str(rocm + 1) + ": \"" + FindingBuilder::trimmed(b.scope().log.line(rocm)) +
                         "\"): the limit is an AMD GPU's LDS, so no GPU of the database is implied.";
    } else if (!f.arch.empty() && !triton) {
        if (auto cc = findArchitecture(f.arch))
            implyDevices(b, devicesOfArchitecture(b.scope().devices, *cc),
                         f.arch + ": every database GPU of compute capability " + cc->toString());
    } else if (maximum && !b.deviceNamed()) {
        implyDevices(b, devicesWithOptinLimit(b.scope().devices, *maximum),
                     "Hardware limit " + withThousands(*maximum) + " B: every database GPU with that opt-in limit");
    }
    f.fix = triton ? "reduce BLOCK sizes or num_stages" : "use a smaller tile or fewer pipeline stages";
    if (allocated && maximum)
        f.fix += " (" + withThousands(*allocated - *maximum) + " B too many)";
    if (allocated && rocm < 0) {
        const auto larger = devicesWithOptinAtLeast(b.scope().devices, *allocated);
        if (!larger.empty()) f.fix += "; or run on a GPU whose opt-in limit fits " + withThousands(*allocated) + " B: " + joinList(larger);
    }
    // A FlashAttention kernel named at the error (flash_attn, FlashAttentionForwardSm80, a
    // flashattention module) is the attention family, variant unknown; planned when head_dim is known.
    const bool flash = b.near({"flash_attn"}) || b.near({"flashattention"}) || b.near({"flash_fwd"});
    const bool attention = flash || (b.valueOf("head_dim").has_value() && (b.near({"attn"}) || b.near({"attention"})));
    if (triton && allocated && rocm < 0 && tritonConfigFromLog(b, *allocated)) return;
    if (attention) {
        b.kernel("attention", "");
        if (b.valueOf("head_dim"))
            b.plan("attention", "fa2", attentionShape(b), "head_dim", "the log does not say which attention variant");
    }
    // Nothing planned: the launch as the text gives it, through the custom family.
    if (f.command.empty() && allocated && rocm < 0)
        f.command = customSharedMemoryCommand("dynamic_smem", *allocated, true, commandDevice(b));
    b.fallbackCommand("head_dim");
}

// Triton's second OutOfResources: num_warps x 32 against the loaded function's maximum threads per
// block (compiler.py _init_handles: OutOfResources(num_warps * warp_size, n_max_threads, "threads")).
void buildTritonThreads(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto required = groupNumber(m, 1);
    const auto limit = groupNumber(m, 2);
    b.value("threads", required);
    b.value("thread_limit", limit);
    if (required && limit) f.limit = LimitHit{"max_threads_per_block", *limit, *required};
    f.title = "Triton: num_warps x 32 threads over the kernel's limit" +
              (required && limit ? ": " + withThousands(*required) + " > " + withThousands(*limit) : std::string());
    f.explanation = "Triton compared num_warps x 32 with the compiled kernel's maximum threads per block "
                    "(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK): the GPU's 1,024 at most, fewer when the kernel's "
                    "registers per thread do not fit that many threads in a block's register file.";
    if (limit && *limit < b.planDevice().maxThreadsPerBlock)
        f.explanation += " " + withThousands(*limit) + " is below 1,024: the kernel's registers set the limit here, and "
                         "Tilescope does not know them (Triton picks them).";
    if (limit) f.fix = "num_warps=" + str(*limit / 32) + " or fewer";
    if (required && *required % 32 == 0) {
        b.valueFrom("num_warps", *required / 32, f.line, f.message + " (Required / 32)");
        // Over the GPU's own limit the triton family reproduces it; under it, registers decide and are unknown.
        if (limit && *limit == b.planDevice().maxThreadsPerBlock && *required > *limit) {
            b.kernel("triton", "matmul");
            b.plan("triton", "matmul", known(b, {"num_warps"}), "num_warps", "the log gives num_warps only: the blocks keep the family's defaults");
        }
    }
    b.fallbackCommand("");
}

// ptxas' refusal of an entry function whose static shared memory passes the per-block cap (0xc000 =
// 48 KB on every architecture): the build fails, there is no launch.
void buildStaticSmem(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto bytes = parseHexBytes(m.str(1));
    const auto system = m[2].matched ? parseHexBytes(m.str(2)) : std::optional<std::int64_t>(0);
    const auto cap = parseHexBytes(m.str(3));
    // The entry function ptxas names before the text, found by plain search: mangled names run long.
    std::string function;
    const std::string& text = b.scope().log.line(b.line());
    constexpr std::string_view kEntry = "Entry function '";
    if (const auto open = text.find(kEntry); open != std::string::npos) {
        const auto close = text.find('\'', open + kEntry.size());
        if (close != std::string::npos && text.find("uses too much shared data", close) != std::string::npos) {
            function = text.substr(open + kEntry.size(), close - open - kEntry.size());
            f.message = text.substr(open, close + 1 - open) + " " + f.message;
        }
    }
    if (bytes) b.valueFrom("static_smem", *bytes, f.line, f.message + " (" + m.str(1) + ")");
    if (bytes && cap) f.limit = LimitHit{"static_smem_per_block", *cap, *bytes + (system ? *system : 0)};
    f.title = "ptxas: static shared memory over the per-block cap" +
              (bytes && cap ? ": " + withThousands(*bytes) + " B > " + withThousands(*cap) + " B" : std::string());
    f.explanation = "ptxas refused " + (function.empty() ? std::string("an entry function") : "'" + FindingBuilder::trimmed(function) + "'") +
                    ": its __shared__ arrays take " + (bytes ? withThousands(*bytes) + " B" : std::string("more")) +
                    ", over the " + (cap ? withThousands(*cap) + " B" : std::string("static")) +
                    " a block may hold statically. The build fails, so nothing launches on any GPU.";
    // The cap is the same on every architecture: every GPU is implied, and none is planned on for it.
    if (cap && !b.deviceNamed()) {
        for (const auto& d : b.scope().devices.devices())
            if (d.smemPerBlock == *cap) f.impliedDevices.push_back(d.id);
        f.impliedBy = withThousands(*cap) + " B is the static cap of every architecture";
        if (!f.impliedDevices.empty()) f.explanation += " Every database GPU has this cap: the build fails for all of them.";
    }
    f.fix = "move the arrays to dynamic shared memory (extern __shared__) and raise cudaFuncAttributeMaxDynamicSharedMemorySize";
    if (bytes) {
        const auto fits = devicesWithOptinAtLeast(b.scope().devices, *bytes);
        const std::string dynamic = customSharedMemoryCommand("dynamic_smem", *bytes, true, b.planDevice().id);
        if (fits.size() == b.scope().devices.devices().size())
            f.fix += " (" + dynamic + "): every database GPU's opt-in limit holds " + withThousands(*bytes) + " B";
        else if (!fits.empty())
            f.fix += " (" + dynamic + "): the opt-in limit holds " + withThousands(*bytes) + " B on " + joinList(fits);
        f.command = customSharedMemoryCommand("static_smem", *bytes, false, b.planDevice().id);
    }
    b.fallbackCommand("");
}

// A kernel's tile constraint ("input_size_per_partition = 10944 is not divisible by min_thread_k = 128"):
// recognised, but no Tilescope family models the kernel that checks it, so there is no plan.
void buildNotDivisible(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const std::string name = m.str(1), divisorName = m.str(3);
    const auto value = groupNumber(m, 2);
    const auto divisor = groupNumber(m, 4);
    b.value(name, value);
    b.value(divisorName, divisor);
    if (value && divisor) f.limit = LimitHit{"divisor", *divisor, *value};
    f.title = name + " is not a multiple of " + divisorName + (divisor ? " (" + withThousands(*divisor) + ")" : std::string()) +
              ": recognised, no model";
    // vLLM's GPTQ / AWQ Marlin kernels name their tile minimums min_thread_k / min_thread_n (marlin_utils.py).
    const bool marlin = divisorName.starts_with("min_thread_") || divisorName.starts_with("thread_");
    f.explanation = std::string("A kernel's tile constraint: ") + name + " must be a multiple of " + divisorName + "." +
                    (marlin ? " vLLM's Marlin GEMM kernels (GPTQ / AWQ) check their tile sizes this way." : "") +
                    " No Tilescope family models this kernel, so there is no plan and no device verdict: it fails on every GPU.";
    f.fix = value && divisor ? divisibilityText(*value, *divisor) : std::string();
    if (lowercaseAscii(f.message).find("tensor_parallel_size") != std::string::npos || b.near({"tensor_parallel_size"}))
        f.fix += (f.fix.empty() ? "" : "; ") + std::string("a smaller tensor_parallel_size splits the layer less");
}

void buildBucketOverflow(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.kernel("gemm_bucket", "oproj");
    b.value("M", groupNumber(m, 1));
    b.value("N", b.figure(LogFigure::N));
    b.value("K", b.figure(LogFigure::K));
    const auto rows = b.valueOf("M");
    const auto top = groupNumber(m, 3);
    if (rows && top) f.limit = LimitHit{"max_tokens", *top, *rows};
    f.title = "gemm_ar: M=" + (rows ? str(*rows) : std::string("?")) + " outside every bucket";
    f.explanation = "The M-bucketed o_proj GEMM rounds M up to a cell of 8..512 rows (MAX_TOKENS" +
                    (top ? " = " + str(*top) : std::string()) + "); a larger batch of tokens has no cell.";
    f.fix = "chunk M into blocks of at most " + (top ? str(*top) : std::string("MAX_TOKENS")) +
            " rows, or cap the scheduler's tokens per step (e.g. chunked prefill size)";
    if (rows) b.plan("gemm_bucket", "oproj", known(b, {"M", "N", "K"}), "M");
    b.fallbackCommand("M");
}

void buildBf16Device(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    f.title = "bfloat16 on a GPU without bf16 support" + (f.arch.empty() ? std::string() : " (" + f.arch + ")");
    f.explanation = "bf16 needs compute capability 8.0 or newer.";
    f.fix = "load the model in float16 (vLLM: --dtype half; transformers: torch_dtype=torch.float16)";
    b.fallbackCommand("");
}

// No bundled kernel is named: the families that could raise the message, likeliest first.
void rankFamilies(FindingBuilder& b, std::vector<std::string> ranking) {
    auto& f = b.finding();
    f.familyRanking = std::move(ranking);
    f.explanation += " The log names no bundled kernel; of the four families, the likeliest to raise this first: ";
    for (std::size_t i = 0; i < f.familyRanking.size(); ++i)
        f.explanation += (i ? "; " : "") + std::to_string(i + 1) + ". " + f.familyRanking[i];
    f.explanation += ".";
}

// A grid or block the runtime refused, in the kernel family the context names: sets the kernel,
// plans the log's shape and returns true; false when no bundled family is named.
bool planRejectedLaunch(FindingBuilder& b, const std::string& family) {
    auto& f = b.finding();
    if (family == "awq_gemm") {
        b.kernel("awq_gemm", "legacy_grid_y");
        rowsFromLog(b);
        linearFigures(b);
        linearFromModel(b, "awq_gemm", "legacy_grid_y");
        f.title = "AWQ GEMM launch rejected: grid.y over its limit (the legacy llm-awq launch)";
        f.explanation += " The original llm-awq GEMM launch puts ceil(M/16) * N/128 blocks on grid.y, which overflows "
                         "at long prefills (llm-awq issue #7).";
        if (!b.familyNote().empty()) f.explanation += " The kernel is inferred: " + b.familyNote() + ".";
        f.fix = "use a kernel that flattens the grid into grid.x (AutoAWQ / vLLM), or split the prefill into chunks";
        std::vector<std::string> missing;
        if (!b.valueOf("M")) missing.push_back("M (the rows of the call: the log gives no tokens=, tensor shape or prompt length)");
        if (!b.valueOf("N"))
            missing.push_back("N and K (out_features, in_features: the log names no model Tilescope has a config for; give one with "
                              "diagnose --model config.json, or add its folder in the settings)");
        if (!missing.empty()) f.unknown = "unknown: " + joinList(missing);
        // M alone still places the failure: N and K at the family's defaults say so in the plan note.
        if (b.valueOf("M")) {
            if (!b.valueOf("N")) f.planNote = (f.planNote.empty() ? "" : f.planNote + "; ") + "N and K unknown: the family's defaults";
            b.plan("awq_gemm", "legacy_grid_y", known(b, {"M", "N", "K", "group_size"}), "M");
        }
        b.fallbackCommand("M");
        return true;
    }
    if (family == "awq_gemv") {
        b.kernel("awq_gemv", "gemv");
        linearFigures(b);
        b.value("M", b.figure(LogFigure::Batch));
        if (b.valueOf("N")) b.plan("awq_gemv", "gemv", known(b, {"M", "N", "K", "group_size"}), "N");
        b.fallbackCommand("N");
        return true;
    }
    if (family == "attention") {
        b.kernel("attention", "fa2");
        attentionFigures(b);
        if (b.valueOf("batch") || b.valueOf("heads")) b.plan("attention", "fa2", attentionShape(b), "batch");
        b.fallbackCommand("batch");
        return true;
    }
    if (family == "gemm_bucket") {
        b.kernel("gemm_bucket", "oproj");
        rowsFromLog(b);
        if (b.valueOf("M")) b.plan("gemm_bucket", "oproj", known(b, {"M", "N", "K"}), "M");
        b.fallbackCommand("M");
        return true;
    }
    return false;
}

std::string launchLimitsText(const DeviceSpec& device) {
    return "a grid dimension is 0 or over its limit (y and z: " + withThousands(device.maxGridDim[1]) +
           "), or the block is over " + withThousands(device.maxThreadsPerBlock) + " threads or its per-dimension limits.";
}

void buildInvalidConfiguration(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    // This name and text are the CUDA 12.x (and older) runtime's; CUDA 13 says "invalid argument".
    b.cudaRuntime(12);
    f.title = "CUDA rejected a launch configuration (grid or block)";
    f.explanation = "cudaErrorInvalidConfiguration: " + launchLimitsText(b.planDevice());
    f.fix = "find the kernel with CUDA_LAUNCH_BLOCKING=1 and compare its grid and block with the device's limits";
    if (planRejectedLaunch(b, b.familyFromContext())) return;
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    rankFamilies(b, {"awq_gemm/legacy_grid_y: grid.y = ceil(M/16) x N/128 passes 65,535 at long prefills (M=16384 with N over 8,064)",
                     "attention/fa2: grid (ceil(seqlen_q/128), batch, heads): batch or heads over 65,535",
                     "awq_gemv/gemv: grid.y = N/4 over 65,535 (N over 262,140), or batch over 65,535 on grid.z",
                     "gemm_bucket/oproj: its grid is at most 152 blocks; only an empty grid (M = 0) is refused"});
    b.fallbackCommand("");
}

void buildOutOfResources(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    const std::string family = b.familyFromContext();
    if (!family.empty()) b.kernel(family, "");
    const auto threads = b.figure(LogFigure::Threads);
    const auto registers = b.figure(LogFigure::Registers);
    b.value("threads_per_block", threads);
    b.value("registers_per_thread", registers);
    const DeviceSpec& device = b.planDevice();
    f.title = "too many resources requested for launch (registers x threads)";
    f.explanation = "cudaErrorLaunchOutOfResources: the block's registers (registers per thread x threads, allocated per "
                    "warp) exceed the register file one block may use (" + withThousands(device.regsPerBlock) + ").";
    f.fix = "cap registers per thread (__launch_bounds__ or -maxrregcount) or launch fewer threads per block";
    if (threads && registers && *threads > 0 && *registers > 0) {
        // The runtime's own rule (launch_checks) decides; the limits come from the device.
        const KernelResourceTable noTable;
        auto launches = [&](std::int64_t t, int r) {
            LaunchPlan probe;
            probe.block = {t, 1, 1};
            probe.registers = r;
            finishLaunch(probe, device, noTable, PlanDetail::Brief);
            return probe;
        };
        const LaunchPlan asLogged = launches(*threads, static_cast<int>(*registers));
        if (asLogged.verdict == Verdict::OutOfResources && asLogged.limit) f.limit = asLogged.limit;
        std::int64_t maxThreads = 0;
        for (std::int64_t t = *threads; t >= device.warpSize; t -= device.warpSize)
            if (launches(t, static_cast<int>(*registers)).ok()) {
                maxThreads = t;
                break;
            }
        int maxRegisters = 0;
        for (int r = static_cast<int>(*registers); r >= 1; --r)
            if (launches(*threads, r).ok()) {
                maxRegisters = r;
                break;
            }
        if (asLogged.verdict == Verdict::OutOfResources) {
            std::vector<std::string> options;
            if (maxRegisters > 0)
                options.push_back("cap registers at " + str(maxRegisters) + " per thread for " + str(*threads) +
                                  " threads (__launch_bounds__(" + str(*threads) + ") or -maxrregcount=" + str(maxRegisters) + ")");
            if (maxThreads > 0)
                options.push_back("launch at most " + str(maxThreads) + " threads per block at " + str(*registers) + " registers");
            if (!options.empty()) {
                f.fix.clear();
                for (const auto& o : options) f.fix += (f.fix.empty() ? "" : "; or ") + o;
            }
            f.explanation += " With " + str(*registers) + " registers x " + str(*threads) + " threads the block needs " +
                             withThousands(asLogged.limit ? asLogged.limit->actual : 0) + " registers on " + device.archName() +
                             (b.deviceNamed() ? "" : " (" + device.id + ", the database default: the log names no device)") + ".";
        } else {
            f.explanation += " " + str(*registers) + " registers x " + str(*threads) +
                             " threads fit the register file on " + device.archName() + ": another resource of the launch is over.";
        }
    }
    // The bundled kernels' launches do not explain a tuning run's block size: show the device's limits.
    f.command = "tilescope-cli devices" + (b.deviceNamed() ? " " + device.id : std::string());
}

std::optional<std::int64_t> parseSize(const std::string& number, const std::string& unit) {
    double value = 0;
    try {
        value = std::stod(number);
    } catch (...) {
        return std::nullopt;
    }
    std::string u;
    for (char c : unit) u += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    const bool binary = u.find('I') != std::string::npos;
    const double base = binary ? 1024.0 : 1000.0;
    double scale = 1;
    switch (u.empty() ? 'B' : u[0]) {
        case 'K': scale = base; break;
        case 'M': scale = base * base; break;
        case 'G': scale = base * base * base; break;
        case 'T': scale = base * base * base * base; break;
        default: scale = 1;
    }
    return static_cast<std::int64_t>(std::llround(value * scale));
}

void buildOutOfMemory(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    static const std::regex tried(R"(tried to allocate\s*([\d.]+)\s*([KMGT]i?B|bytes|B)\b)", std::regex::ECMAScript | std::regex::icase);
    static const std::regex total(R"((?:total capacity of\s*([\d.]+)\s*([KMGT]i?B))|(?:([\d.]+)\s*([KMGT]i?B) total capacity))",
                                  std::regex::ECMAScript | std::regex::icase);
    static const std::regex free(R"(([\d.]+)\s*([KMGT]i?B)\s+(?:is\s+)?free)", std::regex::ECMAScript | std::regex::icase);
    const std::string& text = b.scope().log.line(b.line());
    SvMatch m;
    if (std::regex_search(text, m, tried)) b.value("tried_to_allocate_bytes", parseSize(m.str(1), m.str(2)));
    if (std::regex_search(text, m, total))
        b.value("total_capacity_bytes", m[1].matched ? parseSize(m.str(1), m.str(2)) : parseSize(m.str(3), m.str(4)));
    if (std::regex_search(text, m, free)) b.value("free_bytes", parseSize(m.str(1), m.str(2)));
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    const std::string lower = lowercaseAscii(text);
    const bool device = lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos ||
                        lower.find("device") != std::string::npos || lower.find("outofmemoryerror") != std::string::npos;
    f.title = device ? "device out of memory" : "out of memory (device or host: the line does not say)";
    f.explanation = device ? "The buffers did not fit in device memory."
                           : "Something ran out of memory; the line names neither CUDA nor a GPU, so this may be host memory.";
    f.fix = "lower the batch size or sequence length (the KV cache grows with both), free cached memory, or use a GPU with more memory";
    if (const auto capacity = b.valueOf("total_capacity_bytes")) {
        std::vector<std::string> larger;
        for (const auto& d : b.scope().devices.devices())
            if (d.memoryBytes > *capacity) larger.push_back(d.id);
        if (!larger.empty()) f.fix += " (" + joinList(larger) + ")";
    }
    const auto want = b.valueOf("tried_to_allocate_bytes");
    const auto available = b.valueOf("free_bytes");
    if (want && available) f.limit = LimitHit{"free_memory_bytes", *available, *want};
    b.fallbackCommand("");
}

void buildInvalidValue(FindingBuilder& b, const SvMatch& match) {
    auto& f = b.finding();
    const std::string matched = lowercaseAscii(match.str(0));
    // Driver-API stacks (Triton, pycuda, numba) name the driver's error whatever the runtime; the
    // runtime's own "CUDA error: invalid argument" at a launch is the CUDA 13 runtime's.
    const bool driverApi = matched.find("cuda_error") != std::string::npos || matched.find("culaunch") != std::string::npos ||
                           matched.find("triton") != std::string::npos;
    if (!driverApi) b.cudaRuntime(13);
    f.title = driverApi ? "CUDA driver API: invalid argument (CUDA_ERROR_INVALID_VALUE)"
                        : "CUDA error: invalid argument (cudaErrorInvalidValue)";
    f.explanation = "At a kernel launch this means the launch was refused: " + launchLimitsText(b.planDevice()) +
                    " (the CUDA 13 runtime and the driver API report a bad grid or block this way; CUDA 12 runtimes say "
                    "\"invalid configuration argument\"), or dynamic shared memory over the device's opt-in limit (" +
                    withThousands(b.planDevice().smemPerBlockOptin) + " B on " + b.planDevice().archName() +
                    ") in cudaFuncSetAttribute or the launch.";
    f.fix = "find the kernel with CUDA_LAUNCH_BLOCKING=1; compare its grid and block with the device's limits and its dynamic "
            "shared memory with the opt-in limit";
    if (planRejectedLaunch(b, b.familyFromContext())) return;
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    rankFamilies(b, {"gemm_bucket/oproj: 196,608 to 225,280 B of dynamic shared memory, over the opt-in limit of every GPU but sm_90/sm_100",
                     "attention (fa2 / sm120_tile_search): large head_dim tiles over a consumer GPU's 101,376 B opt-in",
                     "awq_gemm/prefill: 73,728 B at M <= 128, over a T4's 65,536 B opt-in",
                     "awq_gemm/legacy_grid_y and awq_gemv: a grid.y over 65,535, which the CUDA 13 runtime reports this way"});
    b.fallbackCommand("");
}

const std::vector<Signature>& signatures() {
    using V = Verdict;
    // Specific texts first: one finding per line, the first signature that matches wins.
    static const std::vector<Signature> list{
        {"attention.tile_capacity", {"head_dim_v"},
         R"(\(\s*head_dim\s*,\s*head_dim_v\s*\)\s*=\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*exceeds\s+(\w+)\s+shared[- ]?memory\s+capacity(?:\s*\(\s*(\d+)\s*bytes\s*\))?)",
         V::NoTileFits, false, buildTileCapacity},
        {"smem.launch_arch", {"launch shared memory"},
         R"(launch shared memory exceeds current GPU arch\s+(sm_\w+)\s+allowed\.?(?:\s*Allocated:\s*(\d+)\s*bytes\.?\s*Max:\s*(\d+)\s*bytes\.?)?)",
         V::InvalidLaunch, true, buildSmemOverLimit},
        // Triton >= 2.1 prints "shared memory, Required: N, Hardware limit: N"; Triton 1.x ("triton.code_gen",
        // triton-lang/triton #384) ran the words together: "shared memoryRequired: NHardware limit: N".
        {"smem.triton", {"out of resource"}, R"(out of resources?:\s*shared memory,?\s*Required:\s*(\d+),?\s*Hardware limit:\s*(\d+))",
         V::InvalidLaunch, false, buildSmemOverLimit},
        {"triton.threads", {"out of resource"}, R"(out of resources?:\s*threads,\s*Required:\s*(\d+),\s*Hardware limit:\s*(\d+))",
         V::InvalidLaunch, false, buildTritonThreads},
        {"ptxas.static_smem", {"uses too much shared data"},
         R"(uses too much shared data \((0x[0-9a-f]+) bytes(?:\s*\+\s*(0x[0-9a-f]+) bytes system)?,\s*(0x[0-9a-f]+) max\))",
         V::UnsupportedShape, false, buildStaticSmem},
        {"tile.not_divisible", {"is not divisible by"}, R"(([A-Za-z_]\w*)\s*=\s*(\d+)\s+is not divisible by\s+([A-Za-z_]\w*)\s*=\s*(\d+))",
         V::UnsupportedShape, false, buildNotDivisible},
        {"gemm_bucket.overflow", {"gemm_ar"}, R"(gemm_ar:\s*M\s*=\s*(-?\d+)\s+outside\s+\[\s*(-?\d+)\s*,\s*(\d+)\s*\])",
         V::BucketOverflow, false, buildBucketOverflow},
        {"awq_gemv.batch", {"only supports batch size 1"}, R"((?:AWQ GEMV kernel\s+)?only supports batch size 1\b(?:\s*\(got batch size (\d+)\))?)",
         V::UnsupportedShape, false, buildGemvBatch},
        {"awq_gemv.fast_batch", {"unsupported batch size"}, R"(Unsupported batch size for gemv kernel\.?)", V::UnsupportedShape,
         false, buildGemvFastBatch},
        {"awq_gemv.group", {"unsupported group size"}, R"(Unsupported group size for gemv kernel\.?)", V::UnsupportedShape, false,
         buildGemvGroup},
        {"awq_gemm.cta_n", {"cta_n"}, R"(OC is not multiple of cta_N\s*=\s*(\d+))", V::UnsupportedShape, false, buildGemmCheck},
        {"awq_gemm.pack_num", {"pack_num"}, R"(OC is not multiple of pack_num\s*=\s*(\d+))", V::UnsupportedShape, false, buildGemmCheck},
        {"awq_gemm.group_multiple", {"group size should"}, R"(Group size should be a multiple of (\d+))", V::UnsupportedShape, false,
         buildGemmCheck},
        {"awq_gemm.oc_group", {"oc is not multiple of group"}, R"(OC is not multiple of Group size)", V::UnsupportedShape, false,
         buildGemmCheck},
        {"awq_gemm.ic_group", {"ic is not multiple"}, R"(IC is not multiple of (?:Group size|32))", V::UnsupportedShape, false,
         buildGemmCheck},
        {"attention.arch", {"ampere gpus"}, R"(FlashAttention only supports Ampere GPUs or newer\.?)", V::UnsupportedDevice, false,
         buildAttentionArch},
        {"attention.head_dim", {"head dimension at most"}, R"(FlashAttention forward only supports head dimension at most (\d+))",
         V::UnsupportedShape, false, buildAttentionHeadDim},
        {"attention.head_dim_multiple", {"head_size that is a multiple"}, R"((?:query, key, value, and out_ )?must have a head_size that is a multiple of (\d+))",
         V::UnsupportedShape, false, buildAttentionHeadDim},
        {"attention.dtype", {"fp16 and bf16"}, R"(FlashAttention only supports? fp16 and bf16 data type)", V::UnsupportedShape,
         false, buildAttentionDtype},
        {"attention.bf16_arch", {"bfloat16 is only supported on ampere"}, R"(bfloat16 is only supported on Ampere GPUs or newer)",
         V::UnsupportedDevice, false, buildAttentionDtype},
        {"attention.same_dtype", {"must have the same dtype"}, R"(query and (?:key|value) must have the same dtype)",
         V::UnsupportedShape, false, buildAttentionDtype},
        {"device.bf16", {"bfloat16 is only supported on gpus"},
         R"(Bfloat16 is only supported on GPUs with compute capability of at least (\d+)\.(\d+))", V::UnsupportedDevice, false,
         buildBf16Device},
        {"smem.capacity", {"memory capacity"}, R"(exceeds\s+(?:the\s+)?(\w+\s+)?shared[- ]?memory\s+capacity(?:\s*\(\s*(\d+)\s*bytes\s*\))?)",
         V::NoTileFits, false, buildLooseCapacity},
        {"cuda.out_of_resources", {"too many resources", "launchoutofresources"}, R"((?:CUDA error:\s*)?too many resources requested for launch|cudaErrorLaunchOutOfResources)",
         V::OutOfResources, true, buildOutOfResources},
        {"cuda.invalid_configuration", {"invalid configuration", "invalidconfiguration"}, R"((?:CUDA error:\s*)?invalid configuration argument|cudaErrorInvalidConfiguration)",
         V::InvalidLaunch, true, buildInvalidConfiguration},
        {"cuda.out_of_memory", {"out of memory", "outofmemory", "memoryallocation"},
         R"(CUDA out of memory|(?:CUDA error:\s*)?out of memory|cudaErrorMemoryAllocation|OutOfMemoryError)", V::OutOfMemory, true,
         buildOutOfMemory},
        // The runtime's text (CUDA 13 at a launch; any version at cudaFuncSetAttribute), and the
        // driver API's as Triton ("Triton Error [CUDA]: invalid argument", triton-lang/triton #3299),
        // pycuda ("cuLaunchKernel failed: invalid argument", tinygrad #625) and numba / Halide
        // ("... CUDA_ERROR_INVALID_VALUE", numba #1055) print it.
        {"cuda.invalid_value", {"invalid argument", "invalidvalue", "invalid_value"},
         R"(CUDA error:\s*invalid argument|cudaErrorInvalidValue|Triton Error \[CUDA\]:\s*invalid argument|cuLaunchKernel failed:\s*invalid argument|CUDA_ERROR_INVALID_VALUE)",
         V::InvalidLaunch, true, buildInvalidValue},
    };
    return list;
}

const std::vector<std::regex>& compiledSignatures() {
    static const std::vector<std::regex> compiled = [] {
        std::vector<std::regex> out;
        for (const auto& s : signatures()) out.emplace_back(s.pattern, std::regex::ECMAScript | std::regex::icase);
        return out;
    }();
    return compiled;
}

bool hasNeedle(const std::string& lower, const Signature& signature) {
    return std::any_of(signature.needles.begin(), signature.needles.end(),
                       [&](std::string_view n) { return !n.empty() && lower.find(n) != std::string::npos; });
}

}  // namespace

// The first signature matching `text` (`lower` is its lowercase copy); with `mustCross`, only a
// match that starts before it and ends after it (a message wrapped onto the next line).
std::optional<std::pair<std::size_t, SvMatch>> matchSignature(const std::string& text, const std::string& lower,
                                                              std::optional<std::size_t> mustCross) {
    const auto& list = signatures();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!hasNeedle(lower, list[i])) continue;
        SvMatch match;
        if (!std::regex_search(text, match, compiledSignatures()[i])) continue;
        if (mustCross) {
            const auto start = static_cast<std::size_t>(match.position(0));
            const auto end = start + static_cast<std::size_t>(match.length(0));
            if (!(start < *mustCross && end > *mustCross)) continue;
        }
        return std::make_pair(i, std::move(match));
    }
    return std::nullopt;
}

// Whether the line ends with the start of a needle: a message broken there may go on after the
// next line's log prefix, where the raw pair does not show the whole needle.
bool endsWithNeedleStart(std::string_view lower) {
    while (!lower.empty() && lower.back() == ' ') lower.remove_suffix(1);
    for (const auto& signature : signatures())
        for (std::string_view needle : signature.needles)
            for (std::size_t n = 1; n < needle.size() && n <= lower.size(); ++n)
                if (needle[n - 1] == lower.back() && lower.substr(lower.size() - n) == needle.substr(0, n)) return true;
    return false;
}

bool anyNeedle(const std::string& lower) {
    return std::any_of(signatures().begin(), signatures().end(), [&](const Signature& s) { return hasNeedle(lower, s); });
}

bool signatureFromCudaRuntime(std::size_t index) { return signatures()[index].cudaRuntime; }

DiagnosisFinding buildFinding(const LogScope& scope, std::size_t index, const SvMatch& match, const std::string& matchedText,
                              int line) {
    const Signature& signature = signatures()[index];
    FindingBuilder builder(scope, line, matchedText);
    DiagnosisFinding& f = builder.finding();
    f.kind = signature.kind;
    f.signature = std::string(signature.id);
    f.message = match.str(0);
    if (signature.kind == Verdict::OutOfMemory)  // the allocator's details follow the signature
        f.message = std::string(match[0].first, matchedText.end());
    signature.build(builder, match);
    return std::move(f);
}

}  // namespace tilescope

#include "core/diagnosis/diagnosis_signatures.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <regex>

#include "core/model/device_spec.h"
#include "core/diagnosis/call_shapes.h"
#include "core/diagnosis/diagnosis_evidence.h"
#include "core/diagnosis/failing_kernel.h"
#include "core/diagnosis/diagnosis_stacks.h"
#include "core/model/fix_finder.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "core/diagnosis/model_check.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

constexpr int kContextLines = kDiagnosisContextLines;
constexpr int kFamilyLinesBefore = 30;  // how far a kernel's name may be from a generic CUDA error
constexpr int kFamilyLinesAfter = 3;

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

}  // namespace

std::optional<std::int64_t> groupNumber(const SvMatch& match, std::size_t group) {
    if (group >= match.size() || !match[group].matched) return std::nullopt;
    const std::string digits = match.str(group);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return value;
}

// ---- FindingBuilder ---------------------------------------------------------------------

FindingBuilder::FindingBuilder(const LogScope& scope, int line, std::string_view matchedLine) : m_scope(scope), m_line(line) {
    m_finding.line = line + 1;
    resolveDevice(matchedLine);
}

std::optional<std::int64_t> FindingBuilder::figure(LogFigure f) const {
    auto hit = m_scope.log.figureHit(f, m_line, kContextLines);
    if (!hit) return std::nullopt;
    m_hits.push_back(*hit);
    return hit->value;
}

void FindingBuilder::value(std::string name, std::optional<std::int64_t> v) {
    if (!v) return;
    for (auto it = m_hits.rbegin(); it != m_hits.rend(); ++it)
        if (it->value == *v) {
            valueFrom(std::move(name), *v, it->line + 1, it->text);
            return;
        }
    valueFrom(std::move(name), *v, m_finding.line, m_finding.message);
}

void FindingBuilder::valueFrom(std::string name, std::int64_t v, int line, std::string source) {
    for (auto& existing : m_finding.shape)
        if (existing.name == name) {
            existing = {std::move(name), v, line, std::move(source)};
            return;
        }
    m_finding.shape.push_back({std::move(name), v, line, std::move(source)});
}

std::optional<std::int64_t> FindingBuilder::valueOf(std::string_view name) const {
    for (const auto& v : m_finding.shape)
        if (v.name == name) return v.value;
    return std::nullopt;
}

void FindingBuilder::kernel(std::string family, std::string variant) {
    m_finding.family = std::move(family);
    m_finding.variant = std::move(variant);
}

bool FindingBuilder::near(std::initializer_list<std::string_view> words) const {
    return m_scope.log.nearestLineWith(words, m_line, kFamilyLinesBefore, kFamilyLinesAfter) >= 0;
}

std::string FindingBuilder::familyFromContext() const {
    struct Clue {
        const ContextClue* clue;
        std::string_view family;
    };
    std::vector<Clue> clues;
    for (const auto& family : m_scope.kernels.families())
        if (const DiagnosisSignatures* contributed = family->diagnosisSignatures())
            for (const auto& clue : contributed->clues) clues.push_back({&clue, family->name()});
    std::stable_sort(clues.begin(), clues.end(), [](const Clue& a, const Clue& b) { return a.clue->order < b.clue->order; });
    int bestDistance = kFamilyLinesBefore + 1;
    std::string_view best;
    for (const auto& [clue, family] : clues) {
        const int at = m_scope.log.nearestLineWith(clue->words, m_line, kFamilyLinesBefore, kFamilyLinesAfter);
        if (at >= 0 && std::abs(at - m_line) < bestDistance) {
            bestDistance = std::abs(at - m_line);
            best = family;
        }
    }
    if (!best.empty()) return std::string(best);
    // Farther away: an AWQ checkpoint the log names, or AWQ anywhere (an import, a module path,
    // quantization=awq): its packing decides the family (GEMM, AutoAWQ's default, when not said).
    if (const CatalogModel* m = model()) {
        m_familyNote =
            (m_modelLine >= 0 ? "the log names " : "--model gives ") + m->id + ", an AWQ \"" + m->config.version + "\" checkpoint";
        return std::string(packingFamily(m->config.packing, m_scope.kernels));
    }
    const int awq = findAwqMention(m_scope.log);
    if (awq >= 0 && innermostFrameMayBeLinear()) {
        const std::string& lower = m_scope.log.lowerLine(awq);
        m_familyNote = "the log names AWQ on line " + std::to_string(awq + 1) + " (\"" + trimmed(m_scope.log.line(awq)) + "\")";
        return std::string(packingFamily(lower.find("gemv") != std::string::npos ? AwqPacking::Gemv : AwqPacking::Gemm, m_scope.kernels));
    }
    return {};
}

// Whether the traceback's innermost frame before the error (its file, function and quoted
// source) may be a quantized linear layer; true when the log shows no frame at all (a lone
// error line). A frame elsewhere (a KV-cache copy, an attention module) rules out a GEMM.
bool FindingBuilder::innermostFrameMayBeLinear() const {
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

const CatalogModel* FindingBuilder::model() const {
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

std::string FindingBuilder::trimmed(std::string_view text) {
    constexpr std::size_t kMax = 100;
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    std::string out(text.substr(0, kMax));
    if (text.size() > kMax) out += "...";
    return out;
}

void FindingBuilder::preferDevice(const std::string& id, const std::string& why) {
    if (m_deviceNamed) return;
    if (const DeviceSpec* spec = m_scope.devices.find(id)) {
        m_planDevice = spec;
        m_deviceNote = " (" + why + ")";
    }
}

DeviceSpec FindingBuilder::deviceForPlans() const {
    DeviceSpec device = planDevice();
    if (m_cudaRuntime) device.cudaRuntime = *m_cudaRuntime;
    return device;
}

void FindingBuilder::plan(std::string_view family, std::string_view variant, const std::vector<DiagnosisValue>& values,
                          std::string_view axis, std::string note) {
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
    const std::string kernelArgs = "-k " + std::string(family) + " -v " + std::string(kernel->variantName()) + " -d " + device.id +
                                   (m_cudaRuntime ? " --cuda " + std::to_string(*m_cudaRuntime) : "");
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
    note += "planned " + std::string(family) + "/" + std::string(kernel->variantName()) + " at " + formatShape(shape, parameters) + " on " +
            device.id + m_deviceNote;
    m_finding.planNote = m_finding.planNote.empty() ? note : m_finding.planNote + "; " + note;
    if (!plan.ok()) {
        if (!plan.fix.empty()) m_finding.fix = plan.fix;
        if (!m_finding.limit && plan.limit) m_finding.limit = plan.limit;
        if (plan.verdict != m_finding.kind)
            m_finding.explanation +=
                " The bundled planner reports " + std::string(verdictName(plan.verdict)) + " at this shape: " + plan.message + ".";
    } else {
        std::string detail =
            "tile " + std::string(plan.tile.empty() ? "-" : plan.tile) + ", " + withThousands(plan.totalSmem()) + " B shared memory";
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

void FindingBuilder::fallbackCommand(std::string_view axis) {
    if (!m_finding.command.empty()) return;
    if (!m_finding.family.empty()) {
        auto kernel = resolveKernel(m_scope.kernels, m_finding.family, m_finding.variant);
        if (kernel) {
            const auto& parameters = kernel->family->parameters();
            const int index = parameterIndex(parameters, axis);
            const std::string args = "-k " + m_finding.family + " -v " + std::string(kernel->variantName()) + " -d " + planDevice().id;
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

void FindingBuilder::resolveDevice(std::string_view matchedLine) {
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
        // A named architecture or a product the database lacks ("Pascal class", "RTX 3060 Laptop GPU"): as written.
        if (!product && archMention && archMention->cc == cc && archMention->text != archNameOf(*cc))
            m_finding.deviceText = archMention->text;
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

// ---- helpers the families build with ---------------------------------------------------

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
                               str(c.intermediateSize) + ", heads " + str(c.heads) + "/" + str(c.kvHeads) + ", head_dim " + str(c.headDim) +
                               ", group_size " + str(c.groupSize) + ")";
    // Preference: a failing layer whose K is the logged one, any layer with that K, a failing layer, the widest.
    std::optional<std::size_t> failingWithK, withK, failing, widest;
    std::vector<ModelLayer> linears;
    for (auto& layer : expandModel(c, b.scope().kernels))
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

void attentionFigures(FindingBuilder& b) {
    b.value("head_dim", b.figure(LogFigure::HeadDim));
    b.value("head_dim_v", b.figure(LogFigure::HeadDimV));
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("heads", b.figure(LogFigure::Heads));
    if (auto seq = b.figure(LogFigure::Seq)) {
        b.value("seqlen_q", seq);
        b.value("seqlen_k", seq);
    }
    callShapeFigures(b);  // the tensor shape of an attention call the log names (core/diagnosis/call_shapes)
    // heads and head_dim from the model the log names, when the log does not print them.
    if (const CatalogModel* model = b.model()) {
        auto& f = b.finding();
        f.model = model->id;
        f.modelSource =
            model->source + (b.modelLine() >= 0 ? "; the log names it on line " + str(b.modelLine() + 1) : "; given with --model");
        const std::string from = "config.json of " + model->id;
        if (!b.valueOf("heads")) b.valueFrom("heads", model->config.heads, 0, from + ": num_attention_heads");
        if (!b.valueOf("head_dim"))
            b.valueFrom("head_dim", model->config.headDim, 0,
                        from + (model->config.headDimExplicit ? ": head_dim" : ": hidden_size / num_attention_heads"));
    }
}

// ---- core signatures ------------------------------------------------------------------

namespace {

// The contributions of `kernels`' families, in registry order.
std::vector<const DiagnosisSignatures*> contributions(const KernelRegistry& kernels) {
    std::vector<const DiagnosisSignatures*> out;
    for (const auto& family : kernels.families())
        if (const DiagnosisSignatures* contributed = family->diagnosisSignatures()) out.push_back(contributed);
    return out;
}

// A tile search's capacity message without a kernel's own wording ("exceeds shared memory capacity").
void buildLooseCapacity(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.value("smem_limit", groupNumber(m, 2));
    attentionFigures(b);
    f.title = "no tile fits shared memory" + (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = "A tile search found no candidate under the device's shared-memory capacity.";
    f.fix = "use a smaller tile or head size, or a GPU with a larger opt-in shared-memory limit";
    if (const auto limit = b.valueOf("smem_limit")) {
        const auto archs = archsWithOptin(b.scope().devices, *limit);
        if (!archs.empty()) f.explanation += " " + withThousands(*limit) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->noTileFits) family->noTileFits(b);
    b.fallbackCommand("head_dim");
}

// The command that replays a launch the text gives only the shared memory of, through the family
// that models bare launches; "" when the registry has none.
std::string bareLaunchCommand(const FindingBuilder& b, std::string_view parameter, std::int64_t bytes, bool optIn,
                              std::string_view device) {
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->bareLaunchCommand) return family->bareLaunchCommand(parameter, bytes, optIn, device);
    return {};
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

}  // namespace

// Shared memory over the opt-in limit, as a launch check (the CuTe DSL's) or a compiler (Triton's
// OutOfResources, through its family's signature) reports it.
void buildSharedMemoryOverLimit(FindingBuilder& b, const SharedMemoryReport& report) {
    auto& f = b.finding();
    const auto allocated = report.allocated;
    const auto maximum = report.maximum;
    b.value("smem_bytes", allocated);
    b.value("smem_limit", maximum);
    attentionFigures(b);
    if (allocated && maximum) f.limit = LimitHit{"smem_per_block_optin", *maximum, *allocated};
    f.title = "shared memory per block over the limit" +
              (allocated && maximum ? ": " + withThousands(*allocated) + " B > " + withThousands(*maximum) + " B" : std::string()) +
              (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = report.explanation;
    const auto vendor = report.compilerCheck ? findOtherVendor(b.scope().log) : std::nullopt;
    const int rocm = vendor ? vendor->line : -1;
    if (maximum && rocm < 0) {
        const auto archs = archsWithOptin(b.scope().devices, *maximum);
        if (!archs.empty()) f.explanation += " " + withThousands(*maximum) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    if (rocm >= 0) {
        // ROCm's Triton prints an AMD GPU's LDS as the hardware limit (65,536 B on MI300X): no NVIDIA GPU is implied.
        f.explanation += " " + otherVendorText(*vendor, FindingBuilder::trimmed(b.scope().log.line(rocm)));
    } else if (!f.arch.empty() && !report.compilerCheck) {
        if (auto cc = findArchitecture(f.arch))
            implyDevices(b, devicesOfArchitecture(b.scope().devices, *cc),
                         f.arch + ": every database GPU of compute capability " + cc->toString());
    } else if (maximum && !b.deviceNamed()) {
        implyDevices(b, devicesWithOptinLimit(b.scope().devices, *maximum),
                     "Hardware limit " + withThousands(*maximum) + " B: every database GPU with that opt-in limit");
    }
    f.fix = report.fix;
    if (allocated && maximum) f.fix += " (" + withThousands(*allocated - *maximum) + " B too many)";
    if (allocated && rocm < 0) {
        const auto larger = devicesWithOptinAtLeast(b.scope().devices, *allocated);
        if (!larger.empty()) f.fix += "; or run on a GPU whose opt-in limit fits " + withThousands(*allocated) + " B: " + joinList(larger);
    }
    if (report.planFromLog && allocated && rocm < 0 && report.planFromLog(b, *allocated)) return;
    // A family whose kernel is named at the error claims it (a FlashAttention kernel: the family that plans it).
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->sharedMemoryOverLimit) family->sharedMemoryOverLimit(b);
    // Nothing planned: the launch as the text gives it, through the family that models bare launches.
    if (f.command.empty() && allocated && rocm < 0) f.command = bareLaunchCommand(b, "dynamic_smem", *allocated, true, commandDevice(b));
    b.fallbackCommand("head_dim");
}

namespace {

// The CuTe DSL's launch check ("launch shared memory exceeds current GPU arch sm_89 allowed.
// Allocated: N bytes. Max: N bytes."): the runtime would refuse the launch.
void buildCuteSmem(FindingBuilder& b, const SvMatch& m) {
    SharedMemoryReport report;
    report.allocated = groupNumber(m, 2);
    report.maximum = groupNumber(m, 3);
    report.explanation =
        "The kernel asked for more dynamic shared memory than this GPU grants one block (its opt-in "
        "limit); the runtime refuses the launch with cudaErrorInvalidValue.";
    report.fix = "use a smaller tile or fewer pipeline stages";
    buildSharedMemoryOverLimit(b, report);
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
    f.explanation = "ptxas refused " +
                    (function.empty() ? std::string("an entry function") : "'" + FindingBuilder::trimmed(function) + "'") +
                    ": its __shared__ arrays take " + (bytes ? withThousands(*bytes) + " B" : std::string("more")) + ", over the " +
                    (cap ? withThousands(*cap) + " B" : std::string("static")) +
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
        const std::string dynamic = bareLaunchCommand(b, "dynamic_smem", *bytes, true, b.planDevice().id);
        if (fits.size() == b.scope().devices.devices().size())
            f.fix += " (" + dynamic + "): every database GPU's opt-in limit holds " + withThousands(*bytes) + " B";
        else if (!fits.empty()) f.fix += " (" + dynamic + "): the opt-in limit holds " + withThousands(*bytes) + " B on " + joinList(fits);
        f.command = bareLaunchCommand(b, "static_smem", *bytes, false, b.planDevice().id);
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

void buildBf16Device(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    f.title = "bfloat16 on a GPU without bf16 support" + (f.arch.empty() ? std::string() : " (" + f.arch + ")");
    f.explanation = "bf16 needs compute capability 8.0 or newer.";
    f.fix = "load the model in float16 (vLLM: --dtype half; transformers: torch_dtype=torch.float16)";
    b.fallbackCommand("");
}

// No bundled kernel is named: the families that could raise the message, likeliest first (the
// families' causes for this signature, in their order).
void rankFamilies(FindingBuilder& b) {
    auto& f = b.finding();
    if (!f.failingKernel.empty()) return;  // the log names its own kernel (core/diagnosis/failing_kernel)
    std::vector<const LikelyCause*> causes;
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        for (const auto& cause : family->causes)
            if (cause.signature == f.signature) causes.push_back(&cause);
    if (causes.empty()) return;
    std::stable_sort(causes.begin(), causes.end(), [](const LikelyCause* x, const LikelyCause* y) { return x->order < y->order; });
    for (const LikelyCause* cause : causes) f.familyRanking.emplace_back(cause->text);
    f.explanation += " The log names no bundled kernel; of the four families, the likeliest to raise this first: ";
    for (std::size_t i = 0; i < f.familyRanking.size(); ++i)
        f.explanation += (i ? "; " : "") + std::to_string(i + 1) + ". " + f.familyRanking[i];
    f.explanation += ".";
}

// A grid or block the runtime refused, in the kernel family the context names: that family sets
// the kernel and plans the log's shape; false when no family with a plan for it is named.
bool planRejectedLaunch(FindingBuilder& b, const std::string& family) {
    const KernelFamily* named = family.empty() ? nullptr : b.scope().kernels.find(family);
    const DiagnosisSignatures* contributed = named ? named->diagnosisSignatures() : nullptr;
    if (!contributed || !contributed->rejectedLaunch) return false;
    contributed->rejectedLaunch(b);
    return true;
}

std::string launchLimitsText(const DeviceSpec& device) {
    return "a grid dimension is 0 or over its limit (y and z: " + withThousands(device.maxGridDim[1]) + "), or the block is over " +
           withThousands(device.maxThreadsPerBlock) + " threads or its per-dimension limits.";
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
    rankFamilies(b);
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
    f.explanation =
        "cudaErrorLaunchOutOfResources: the block's registers (registers per thread x threads, allocated per "
        "warp) exceed the register file one block may use (" +
        withThousands(device.regsPerBlock) + ").";
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
            f.explanation += " " + str(*registers) + " registers x " + str(*threads) + " threads fit the register file on " +
                             device.archName() + ": another resource of the launch is over.";
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
    f.title =
        driverApi ? "CUDA driver API: invalid argument (CUDA_ERROR_INVALID_VALUE)" : "CUDA error: invalid argument (cudaErrorInvalidValue)";
    f.explanation = "At a kernel launch this means the launch was refused: " + launchLimitsText(b.planDevice()) +
                    " (the CUDA 13 runtime and the driver API report a bad grid or block this way; CUDA 12 runtimes say "
                    "\"invalid configuration argument\"), or dynamic shared memory over the device's opt-in limit (" +
                    withThousands(b.planDevice().smemPerBlockOptin) + " B on " + b.planDevice().archName() +
                    ") in cudaFuncSetAttribute or the launch.";
    f.fix =
        "find the kernel with CUDA_LAUNCH_BLOCKING=1; compare its grid and block with the device's limits and its dynamic "
        "shared memory with the opt-in limit";
    if (planRejectedLaunch(b, b.familyFromContext())) return;
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    rankFamilies(b);
    b.fallbackCommand("");
}

// The signatures of no bundled family. Their order numbers leave room between them for the
// families' (kernels/<family>/diagnosis.cpp): a kernel's exact text comes before a looser generic
// one that also matches it; core/README.md lists the whole order.
const std::vector<Signature>& coreSignatures() {
    using V = Verdict;
    static const std::vector<Signature> list{
        {20,
         "smem.launch_arch",
         {"launch shared memory"},
         R"(launch shared memory exceeds current GPU arch\s+(sm_\w+)\s+allowed\.?(?:\s*Allocated:\s*(\d+)\s*bytes\.?\s*Max:\s*(\d+)\s*bytes\.?)?)",
         V::InvalidLaunch,
         true,
         buildCuteSmem},
        {50,
         "ptxas.static_smem",
         {"uses too much shared data"},
         R"(uses too much shared data \((0x[0-9a-f]+) bytes(?:\s*\+\s*(0x[0-9a-f]+) bytes system)?,\s*(0x[0-9a-f]+) max\))",
         V::UnsupportedShape,
         false,
         buildStaticSmem},
        {60,
         "tile.not_divisible",
         {"is not divisible by"},
         R"(([A-Za-z_]\w*)\s*=\s*(\d+)\s+is not divisible by\s+([A-Za-z_]\w*)\s*=\s*(\d+))",
         V::UnsupportedShape,
         false,
         buildNotDivisible},
        {220,
         "device.bf16",
         {"bfloat16 is only supported on gpus"},
         R"(Bfloat16 is only supported on GPUs with compute capability of at least (\d+)\.(\d+))",
         V::UnsupportedDevice,
         false,
         buildBf16Device},
        {230,
         "smem.capacity",
         {"memory capacity"},
         R"(exceeds\s+(?:the\s+)?(\w+\s+)?shared[- ]?memory\s+capacity(?:\s*\(\s*(\d+)\s*bytes\s*\))?)",
         V::NoTileFits,
         false,
         buildLooseCapacity},
        {240,
         "cuda.out_of_resources",
         {"too many resources", "launchoutofresources"},
         R"((?:CUDA error:\s*)?too many resources requested for launch|cudaErrorLaunchOutOfResources)",
         V::OutOfResources,
         true,
         buildOutOfResources},
        {250,
         "cuda.invalid_configuration",
         {"invalid configuration", "invalidconfiguration"},
         R"((?:CUDA error:\s*)?invalid configuration argument|cudaErrorInvalidConfiguration)",
         V::InvalidLaunch,
         true,
         buildInvalidConfiguration},
        {260,
         "cuda.out_of_memory",
         {"out of memory", "outofmemory", "memoryallocation"},
         R"(CUDA out of memory|(?:CUDA error:\s*)?out of memory|cudaErrorMemoryAllocation|OutOfMemoryError)",
         V::OutOfMemory,
         true,
         buildOutOfMemory},
        // The runtime's text (CUDA 13 at a launch; any version at cudaFuncSetAttribute), and the
        // driver API's as Triton ("Triton Error [CUDA]: invalid argument", triton-lang/triton #3299),
        // pycuda ("cuLaunchKernel failed: invalid argument", tinygrad #625) and numba / Halide
        // ("... CUDA_ERROR_INVALID_VALUE", numba #1055) print it.
        {270,
         "cuda.invalid_value",
         {"invalid argument", "invalidvalue", "invalid_value"},
         R"(CUDA error:\s*invalid argument|cudaErrorInvalidValue|Triton Error \[CUDA\]:\s*invalid argument|cuLaunchKernel failed:\s*invalid argument|CUDA_ERROR_INVALID_VALUE)",
         V::InvalidLaunch,
         true,
         buildInvalidValue},
    };
    return list;
}

bool hasNeedle(const std::string& lower, const Signature& signature) {
    return std::any_of(signature.needles.begin(), signature.needles.end(),
                       [&](std::string_view n) { return !n.empty() && lower.find(n) != std::string::npos; });
}

}  // namespace

Signature::Signature(int place, std::string_view name, std::array<std::string_view, 3> words, const char* regexText, Verdict verdict,
                     bool fromCudaRuntime, SignatureBuild builder)
    : order(place),
      id(name),
      needles(words),
      pattern(regexText),
      kind(verdict),
      cudaRuntime(fromCudaRuntime),
      build(builder),
      regex(regexText, std::regex::ECMAScript | std::regex::icase) {}

// Core's signatures and every family's, sorted by order (a tie keeps core first, then registry order).
SignatureList::SignatureList(const KernelRegistry& kernels) {
    for (const auto& s : coreSignatures()) m_list.push_back(&s);
    for (const DiagnosisSignatures* family : contributions(kernels))
        for (const auto& s : family->signatures) m_list.push_back(&s);
    std::stable_sort(m_list.begin(), m_list.end(), [](const Signature* a, const Signature* b) { return a->order < b->order; });
}

// The first signature matching `text` (`lower` is its lowercase copy); with `mustCross`, only a
// match that starts before it and ends after it (a message wrapped onto the next line).
std::optional<std::pair<std::size_t, SvMatch>> SignatureList::match(const std::string& text, const std::string& lower,
                                                                    std::optional<std::size_t> mustCross) const {
    for (std::size_t i = 0; i < m_list.size(); ++i) {
        if (!hasNeedle(lower, *m_list[i])) continue;
        SvMatch match;
        if (!std::regex_search(text, match, m_list[i]->regex)) continue;
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
bool SignatureList::endsWithNeedleStart(std::string_view lower) const {
    while (!lower.empty() && lower.back() == ' ') lower.remove_suffix(1);
    for (const Signature* signature : m_list)
        for (std::string_view needle : signature->needles)
            for (std::size_t n = 1; n < needle.size() && n <= lower.size(); ++n)
                if (needle[n - 1] == lower.back() && lower.substr(lower.size() - n) == needle.substr(0, n)) return true;
    return false;
}

bool SignatureList::anyNeedle(const std::string& lower) const {
    return std::any_of(m_list.begin(), m_list.end(), [&](const Signature* s) { return hasNeedle(lower, *s); });
}

DiagnosisFinding buildFinding(const LogScope& scope, const Signature& signature, const SvMatch& match, const std::string& matchedText,
                              int line) {
    FindingBuilder builder(scope, line, matchedText);
    DiagnosisFinding& f = builder.finding();
    f.kind = signature.kind;
    f.signature = std::string(signature.id);
    f.message = match.str(0);
    if (signature.kind == Verdict::OutOfMemory)  // the allocator's details follow the signature
        f.message = std::string(match[0].first, matchedText.end());
    noteFailingKernel(builder);
    signature.build(builder, match);
    explainFailingKernel(builder);
    return std::move(f);
}

}  // namespace tilescope

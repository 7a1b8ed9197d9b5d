// FindingBuilder, and the helpers the families' signatures build with: the figures near an error,
// the device the log names, the model it names, and the plan, fix and command of a finding.
#include "core/diagnosis/diagnosis_signatures.h"

#include <algorithm>
#include <cmath>

#include "core/diagnosis/call_shapes.h"
#include "core/diagnosis/diagnosis_core_signatures.h"
#include "core/diagnosis/diagnosis_evidence.h"
#include "core/diagnosis/model_check.h"
#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

constexpr int kContextLines = kDiagnosisContextLines;
constexpr int kFamilyLinesBefore = 30;  // how far a kernel's name may be from a generic CUDA error
constexpr int kFamilyLinesAfter = 3;

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
    const int awq = m_scope.lookups.awqMention();
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
    static const Pattern frame(R"(^\s*(?:File "[^"]*", line \d+|File [^\s]+:\d+, in ))", Pattern::Case::Sensitive);
    const LogText& log = m_scope.log;
    for (int i = m_line - 1; i >= 0 && i >= m_line - kFamilyLinesBefore; --i) {
        const std::string_view text = log.withoutPrefix(i);
        if (!frame.search(text)) continue;
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
        if (auto mention = m_scope.lookups.modelMention(m_line)) {
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

bool FindingBuilder::deviceOfCapability(ComputeCapability cc, const std::string& why) {
    m_finding.arch = archNameOf(cc);
    if (m_deviceNamed && m_planDevice->computeCapability == cc) return true;
    // The log names another GPU (a box of several): the text's capability is the one that failed.
    m_finding.deviceId.clear();
    m_finding.deviceText.clear();
    m_deviceNamed = false;
    std::vector<std::string> ids = devicesOfArchitecture(m_scope.devices, cc);
    if (ids.empty()) {
        m_planDevice = &m_scope.devices.defaultDevice();
        m_deviceNote.clear();
        return false;
    }
    m_finding.impliedDevices = std::move(ids);
    m_finding.impliedBy = why;
    m_finding.explanation += " It implies " + joinList(m_finding.impliedDevices) + " (" + why + ").";
    m_planDevice = m_scope.devices.find(m_finding.impliedDevices.front());
    m_deviceNote = " (the first database GPU the text implies: " + why + ")";
    return true;
}

DeviceSpec FindingBuilder::deviceForPlans() const {
    DeviceSpec device = planDevice();
    if (m_cudaRuntime) device.cudaRuntime = *m_cudaRuntime;
    return device;
}

Result<Shape> FindingBuilder::shapeOf(const KernelChoice& kernel, const std::vector<DiagnosisValue>& values) {
    const auto& parameters = kernel.family->parameters();
    Shape shape = Shape::defaults(parameters);
    for (const auto& v : values) {
        const int index = parameterIndex(parameters, v.name);
        if (index < 0) continue;
        if (auto inRange = checkParameterValue(parameters[static_cast<std::size_t>(index)], v.value); !inRange)
            return makeError(inRange.error());
        shape[index] = v.value;
    }
    return shape;
}

void FindingBuilder::plan(std::string_view family, std::string_view variant, const std::vector<DiagnosisValue>& values,
                          std::string_view axis, std::string note) {
    auto kernel = resolveKernel(m_scope.kernels, family, variant);
    if (!kernel) return;
    if (!m_requiredText.empty()) return;
    const auto& parameters = kernel->family->parameters();
    auto shaped = shapeOf(*kernel, values);
    if (!shaped) {
        m_finding.planNote = "not planned: " + shaped.error();
        return;
    }
    const Shape shape = *shaped;
    const DeviceSpec device = deviceForPlans();
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
            // No -d when the log names only GPUs it requires: the user's GPU is not known.
            const std::string args = "-k " + m_finding.family + " -v " + std::string(kernel->variantName()) +
                                     (m_requiredText.empty() ? " -d " + planDevice().id : std::string());
            if (index >= 0) {
                const auto& spec = parameters[static_cast<std::size_t>(index)];
                m_finding.sweepAxis = axisAround(spec, spec.defaultValue);
                if (m_requiredText.empty()) m_finding.sweepDevice = planDevice().id;
                // The figures the finding read off the log (a version, a dropout flag) hold the map at the
                // log's rule; the rest of the shape stays the family's defaults.
                Shape shape = Shape::defaults(parameters);
                bool fromLog = false;
                for (const auto& v : m_finding.shape) {
                    const int at = parameterIndex(parameters, v.name);
                    if (at < 0 || at == index || !checkParameterValue(parameters[static_cast<std::size_t>(at)], v.value)) continue;
                    shape[at] = v.value;
                    fromLog = true;
                }
                if (fromLog) m_finding.sweepShape = formatShape(shape, parameters);
                m_finding.sweepCommand = "tilescope-cli sweep " + args + (fromLog ? " -s " + m_finding.sweepShape : std::string()) +
                                         " --x " + m_finding.sweepAxis;
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
    // A GPU the text names as a requirement ("... requires A100/A800 or H100/H800") is one that
    // passes, never the one that failed (DeviceMention::required).
    const DeviceMention* requiredMention = nullptr;
    for (const auto& m : m_scope.mentions) {
        if (m.required) {
            if (!m.ids.empty() && (!requiredMention || m.line <= m_line)) requiredMention = &m;
            continue;
        }
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
        // The only GPUs named are ones the text requires: the default may well be one of them, so a
        // plan on it would say the shape runs. Nothing is planned; the finding asks for the GPU.
        if (requiredMention) {
            m_requiredText = requiredMention->text;
            m_finding.unknown =
                "the log names no GPU of its own (" + m_requiredText + ": GPUs the text requires, which pass): give yours with -d";
        }
    }
}

// ---- helpers the families build with ---------------------------------------------------

// M of a GEMM call from every reading the log gives (explicit rows, tensor shapes, prompt lengths,
// batch x seq, step budgets), the likeliest planned, the others listed; a tensor shape's last
// dimension gives K when nothing else does.
void rowsFromLog(FindingBuilder& b) {
    auto& f = b.finding();
    const RowsChoice choice = chooseRows(findRowsEvidence(b.scope().log, b.line(), b.scope().lookups.stepBudgets()), b.line());
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

}  // namespace tilescope

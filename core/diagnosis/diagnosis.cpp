#include "core/diagnosis/diagnosis.h"

#include <algorithm>

#include "core/model/device_spec.h"
#include "core/model/text_format.h"
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/diagnosis/diagnosis_text.h"
#include "core/trace/json_io.h"

namespace tilescope {

namespace {

struct RawFinding {
    DiagnosisFinding finding;
    bool fromSource = false;  // matched on a traceback's quoted source line
    bool cudaRuntime = false;
};

bool sameFinding(const DiagnosisFinding& a, const DiagnosisFinding& b) {
    if (a.signature != b.signature || a.message != b.message || a.shape.size() != b.shape.size() || a.deviceId != b.deviceId) return false;
    for (std::size_t i = 0; i < a.shape.size(); ++i)
        if (a.shape[i].name != b.shape[i].name || a.shape[i].value != b.shape[i].value) return false;
    return true;
}

}  // namespace

std::vector<std::string> matchDeviceName(std::string_view text, const DeviceDatabase& devices) {
    std::vector<std::string> ids = matchProductName(text, devices, nullptr);
    const auto cc = findArchitecture(text);
    if (cc) {
        std::vector<std::string> filtered;
        if (ids.empty()) {
            for (const auto& d : devices.devices())
                if (d.computeCapability == *cc) filtered.push_back(d.id);
        } else {
            for (const auto& id : ids)
                if (devices.find(id)->computeCapability == *cc) filtered.push_back(id);
        }
        return filtered;
    }
    return ids;
}

std::string knownSignaturesText(const KernelRegistry& kernels) {
    std::vector<std::string> titles;
    for (const auto& family : kernels.families())
        if (const DiagnosisSignatures* own = family->diagnosisSignatures(); own && !own->signatures.empty())
            titles.emplace_back(family->title());
    return "the upstream checks of " + joinList(titles) +
           "; shared-memory capacity and launch limits, invalid configuration argument, invalid argument (CUDA 13 runtime, "
           "driver API), too many resources, out of memory";
}

Result<Diagnosis> diagnoseText(std::string_view text, const KernelRegistry& kernels, const DeviceDatabase& devices) {
    return diagnoseText(text, kernels, devices, DiagnosisOptions{});
}

Result<Diagnosis> diagnoseText(std::string_view text, const KernelRegistry& kernels, const DeviceDatabase& devices,
                               const DiagnosisOptions& options) {
    auto parsed = LogText::parse(text);
    if (!parsed) return makeError(parsed.error());
    const LogText& log = *parsed;
    const std::vector<DeviceMention> mentions = findDeviceMentions(log, devices);
    std::vector<const CatalogModel*> models;
    for (const auto& m : options.models) models.push_back(&m);
    if (options.model) models.push_back(&*options.model);
    for (const auto& m : embeddedModels()) models.push_back(&m);
    const LogScope scope{log, kernels, devices, mentions, models, options.model ? &*options.model : nullptr};

    const SignatureList signatures(kernels);

    std::vector<RawFinding> raw;
    auto record = [&](int line, const std::string& matchedText, std::size_t index, const SvMatch& match) {
        raw.push_back(
            {buildFinding(scope, signatures[index], match, matchedText, line), log.isTracebackSource(line), signatures[index].cudaRuntime});
    };
    for (int i = 0; i < log.lineCount(); ++i) {
        const std::string& current = log.line(i);
        const std::string& lower = log.lowerLine(i);
        auto hit = signatures.match(current, lower, std::nullopt);
        const bool hasNext = i + 1 < log.lineCount();
        const bool reachesEnd = hit && static_cast<std::size_t>(hit->second.position(0) + hit->second.length(0)) == current.size();
        if (hit && !(reachesEnd && hasNext)) {
            record(i, current, hit->first, hit->second);
            continue;
        }
        // A message wrapped onto the next line (by a terminal, a logger or a width limit): join
        // without the next line's log prefix, with and without a space at the break. A match that
        // already ends the line may go on there ("allowed.\nAllocated: 262176 bytes."). The
        // needles decide cheaply whether the pair can hold a signature at all.
        bool joined = false;
        const bool candidate = hasNext && (signatures.anyNeedle(lower + " " + log.lowerLine(i + 1)) ||
                                           signatures.anyNeedle(lower + log.lowerLine(i + 1)) || signatures.endsWithNeedleStart(lower));
        if (candidate) {
            const std::string next(log.withoutPrefix(i + 1));
            // A next line with its own log prefix is a new logger line: its text follows a space,
            // never runs into the message ("at most 256" + "04-03 ..." is not "25604").
            const std::string_view rawNext = log.line(i + 1);
            const bool prefixedNext = next.size() < rawNext.size() - std::min(rawNext.size(), rawNext.find_first_not_of(" \t"));
            for (const std::string_view separator : {" ", ""}) {
                if (next.empty() || (separator.empty() && prefixedNext)) break;
                const std::string both = current + std::string(separator) + next;
                auto longer = signatures.match(both, lowercaseAscii(both), current.size() + separator.size() / 2);
                if (longer && (!hit || (longer->first == hit->first && longer->second.position(0) == hit->second.position(0)))) {
                    record(i, both, longer->first, longer->second);
                    joined = true;
                    break;
                }
            }
        }
        if (joined) {
            ++i;
        } else if (hit) {
            record(i, current, hit->first, hit->second);
        }
    }

    // One finding per distinct error; a traceback's quoted source line yields to the raised error.
    Diagnosis diagnosis;
    diagnosis.lineCount = log.lineCount();
    std::vector<bool> cudaRuntime;
    std::vector<bool> primaryFromSource;
    for (auto& r : raw) {
        auto same = std::find_if(diagnosis.findings.begin(), diagnosis.findings.end(),
                                 [&](const DiagnosisFinding& f) { return sameFinding(f, r.finding); });
        if (same == diagnosis.findings.end()) {
            r.finding.lines = {r.finding.line};
            diagnosis.findings.push_back(std::move(r.finding));
            cudaRuntime.push_back(r.cudaRuntime);
            primaryFromSource.push_back(r.fromSource);
            continue;
        }
        const auto index = static_cast<std::size_t>(same - diagnosis.findings.begin());
        // The same error printed twice (a summary line, then the traceback): the copy whose context
        // names the kernel tells more; keep its reading under the first line.
        if (same->family.empty() && !r.finding.family.empty()) {
            const int firstLine = same->line;
            std::vector<int> seen = same->lines;
            *same = r.finding;
            same->line = firstLine;
            same->lines = std::move(seen);
        }
        same->lines.push_back(r.finding.line);
        if (primaryFromSource[index] && !r.fromSource) {
            same->line = r.finding.line;
            primaryFromSource[index] = false;
        }
    }
    // Keep line order after a source line gave way to the raised error.
    std::vector<std::size_t> order(diagnosis.findings.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return diagnosis.findings[a].line < diagnosis.findings[b].line; });
    std::vector<DiagnosisFinding> sorted;
    std::vector<bool> sortedCuda;
    for (auto i : order) {
        sorted.push_back(std::move(diagnosis.findings[i]));
        sortedCuda.push_back(cudaRuntime[i]);
    }
    diagnosis.findings = std::move(sorted);
    // CUDA reports errors asynchronously and a failed launch poisons the context: every CUDA
    // error after the first finding is its consequence.
    for (std::size_t i = 1; i < diagnosis.findings.size(); ++i)
        if (sortedCuda[i]) diagnosis.findings[i].consequenceOf = 0;
    return diagnosis;
}

nlohmann::ordered_json diagnosisToJson(const Diagnosis& diagnosis, const KernelRegistry& kernels) {
    using nlohmann::ordered_json;
    auto orNull = [](const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); };
    ordered_json list = ordered_json::array();
    for (const auto& f : diagnosis.findings) {
        ordered_json j;
        j["kind"] = verdictName(f.kind);
        j["family"] = orNull(f.family);
        j["variant"] = orNull(f.variant);
        j["message"] = f.message;
        j["line"] = f.line;
        ordered_json shape = ordered_json::object();
        ordered_json sources = ordered_json::array();
        for (const auto& v : f.shape) {
            shape[v.name] = v.value;
            sources.push_back({{"name", v.name},
                               {"value", v.value},
                               {"line", v.line ? ordered_json(v.line) : ordered_json(nullptr)},
                               {"source", v.source}});
        }
        j["shape"] = shape;
        j["device"] = orNull(f.deviceId);
        j["fix"] = orNull(f.fix);
        j["command"] = orNull(f.command);
        j["consequence_of"] = f.consequenceOf ? ordered_json(*f.consequenceOf) : ordered_json(nullptr);
        // Keys beyond the contract, for the Diagnose dock.
        j["signature"] = f.signature;
        j["title"] = f.title;
        j["lines"] = f.lines;
        j["arch"] = orNull(f.arch);
        j["device_text"] = orNull(f.deviceText);
        j["limit"] =
            f.limit ? ordered_json{{"name", f.limit->name}, {"value", f.limit->limit}, {"actual", f.limit->actual}} : ordered_json(nullptr);
        j["explanation"] = f.explanation;
        j["shape_sources"] = sources;
        ordered_json candidates = ordered_json::array();
        for (const auto& c : f.candidates)
            candidates.push_back({{"name", c.name},
                                  {"value", c.value},
                                  {"line", c.line},
                                  {"source", c.source},
                                  {"reading", c.reading},
                                  {"chosen", c.chosen}});
        j["candidates"] = candidates;
        j["model"] = orNull(f.model);
        j["model_source"] = orNull(f.modelSource);
        ordered_json layers = ordered_json::array();
        for (const auto& l : f.layers) {
            ordered_json layerShape = ordered_json::object();
            for (const auto& v : l.shape) layerShape[v.name] = v.value;
            layers.push_back({{"name", l.name}, {"shape", layerShape}, {"verdict", verdictName(l.verdict)}, {"message", l.message}});
        }
        j["layers"] = layers;
        j["boundary"] = f.boundary ? ordered_json(*f.boundary) : ordered_json(nullptr);
        j["family_ranking"] = f.familyRanking;
        j["failing_kernel"] = f.failingKernel.empty()
                                  ? ordered_json(nullptr)
                                  : ordered_json{{"name", f.failingKernel}, {"how", f.failingKernelHow}, {"line", f.failingKernelLine}};
        j["unknown"] = orNull(f.unknown);
        j["implied_devices"] = f.impliedDevices;
        j["implied_by"] = orNull(f.impliedBy);
        j["sweep_command"] = orNull(f.sweepCommand);
        j["sweep"] = f.sweepAxis.empty() ? ordered_json(nullptr)
                                         : ordered_json{{"kernel", f.family},
                                                        {"variant", f.plan ? ordered_json(f.plan->variant) : orNull(f.variant)},
                                                        {"device", orNull(f.sweepDevice)},
                                                        {"shape", orNull(f.sweepShape)},
                                                        {"x", f.sweepAxis}};
        j["planned_device"] = orNull(f.plannedDevice);
        j["plan_note"] = orNull(f.planNote);
        if (f.plan) {
            const KernelFamily* family = kernels.find(f.plan->family);
            j["plan"] = family ? planToJson(*f.plan, family->parameters()) : ordered_json(nullptr);
        } else {
            j["plan"] = nullptr;
        }
        list.push_back(std::move(j));
    }
    if (!diagnosis.findings.empty()) return ordered_json{{"findings", list}};
    // A refusal says why and what the diagnosis knows, as the text output does.
    ordered_json known = ordered_json::array();
    const SignatureList signatures(kernels);
    for (std::size_t i = 0; i < signatures.size(); ++i) known.push_back(std::string(signatures[i].id));
    return ordered_json{{"findings", list},
                        {"reason", "no known signature in " + std::to_string(diagnosis.lineCount) + " lines"},
                        {"known", knownSignaturesText(kernels)},
                        {"known_signatures", known}};
}

}  // namespace tilescope

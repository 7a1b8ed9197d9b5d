#include "core/diagnosis/diagnosis.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

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

// What makes two findings the same error: signature, message, device and the shape's values in
// order. Each part is written with its length, so no text can run into the next.
std::string foldKey(const DiagnosisFinding& f) {
    std::string key;
    auto part = [&key](std::string_view text) {
        key += std::to_string(text.size());
        key += ':';
        key += text;
    };
    part(f.signature);
    part(f.message);
    part(f.deviceId);
    for (const auto& v : f.shape) {
        part(v.name);
        part(std::to_string(v.value));
    }
    return key;
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
           "driver API), too many resources, out of memory, no kernel image (a build without the GPU's architecture) and PyTorch's "
           "warning that predicts it, vLLM's quantization capability check (methods and compressed-tensors schemes)";
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
    const LogLookups lookups(log, models);
    const LogScope scope{log, kernels, devices, mentions, models, options.model ? &*options.model : nullptr, lookups};

    const SignatureList signatures(kernels);

    // One finding per distinct error, folded as each is found (by its key, in constant time: a log
    // may repeat one error a million times, and only the distinct ones are kept); a traceback's
    // quoted source line yields to the raised error.
    Diagnosis diagnosis;
    diagnosis.lineCount = log.lineCount();
    std::vector<bool> cudaRuntime;
    std::vector<bool> primaryFromSource;
    std::unordered_map<std::string, std::size_t> byKey;
    auto fold = [&](RawFinding r) {
        const int line = r.finding.line;
        const auto [found, added] = byKey.try_emplace(foldKey(r.finding), diagnosis.findings.size());
        if (added) {
            r.finding.lines = {r.finding.line};
            diagnosis.findings.push_back(std::move(r.finding));
            cudaRuntime.push_back(r.cudaRuntime);
            primaryFromSource.push_back(r.fromSource);
            return;
        }
        const std::size_t index = found->second;
        DiagnosisFinding* same = &diagnosis.findings[index];
        // The same error printed twice (a summary line, then the traceback): the copy whose context
        // names the kernel tells more; keep its reading under the first line.
        if (same->family.empty() && !r.finding.family.empty()) {
            const int firstLine = same->line;
            std::vector<int> seen = std::move(same->lines);
            *same = std::move(r.finding);
            same->line = firstLine;
            same->lines = std::move(seen);
        }
        same->lines.push_back(line);
        if (primaryFromSource[index] && !r.fromSource) {
            same->line = line;
            primaryFromSource[index] = false;
        }
    };
    auto record = [&](int line, std::string_view matchedText, std::size_t index, const SvMatch& match) {
        fold(
            {buildFinding(scope, signatures[index], match, matchedText, line), log.isTracebackSource(line), signatures[index].cudaRuntime});
    };
    // One pass of every signature's needles over each line decides which lines can hold a
    // signature at all: a line without one costs that scan and nothing more.
    std::vector<LiteralSet::Scan> needles(static_cast<std::size_t>(log.lineCount()));
    for (int i = 0; i < log.lineCount(); ++i) needles[static_cast<std::size_t>(i)] = signatures.scanNeedles(log.line(i));
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return makeError(kDiagnosisCancelled);
    constexpr int kLinesPerReport = 4096;  // how often a long run reports progress and looks for a cancel
    for (int i = 0; i < log.lineCount(); ++i) {
        if (i % kLinesPerReport == 0) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return makeError(kDiagnosisCancelled);
            if (options.progress) options.progress(static_cast<double>(i) / log.lineCount());
        }
        const std::string& current = log.line(i);
        const LiteralSet::Scan& scan = needles[static_cast<std::size_t>(i)];
        const bool hasNext = i + 1 < log.lineCount();
        if (!scan.any && !(hasNext && (scan.endsInPrefix || needles[static_cast<std::size_t>(i) + 1].any))) continue;
        auto hit = scan.any ? signatures.match(current, std::nullopt) : std::nullopt;
        const bool reachesEnd = hit && static_cast<std::size_t>(hit->second.position(0) + hit->second.length(0)) == current.size();
        if (hit && !(reachesEnd && hasNext)) {
            record(i, current, hit->first, hit->second);
            continue;
        }
        // A message wrapped onto the next line (by a terminal, a logger or a width limit): join
        // without the next line's log prefix, with and without a space at the break. A match that
        // already ends the line may go on there ("allowed.\nAllocated: 262176 bytes."). The
        // needles decide whether the pair can hold a signature at all: one in either line, or
        // this line ending with the start of one.
        bool joined = false;
        const bool candidate = hasNext && (scan.any || scan.endsInPrefix || needles[static_cast<std::size_t>(i) + 1].any);
        if (candidate) {
            const std::string_view next = log.withoutPrefix(i + 1);
            // A next line with its own log prefix is a new logger line: its text follows a space,
            // never runs into the message ("at most 256" + "04-03 ..." is not "25604").
            const std::string_view rawNext = log.line(i + 1);
            const bool prefixedNext = next.size() < rawNext.size() - std::min(rawNext.size(), rawNext.find_first_not_of(" \t"));
            for (const std::string_view separator : {" ", ""}) {
                if (next.empty() || (separator.empty() && prefixedNext)) break;
                std::string both;
                both.reserve(current.size() + separator.size() + next.size());
                both.append(current).append(separator).append(next);
                auto longer = signatures.match(both, current.size() + separator.size() / 2);
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

    // A warning that predicts an error yields to that error when the log shows it (the error's finding
    // reads the warning itself).
    std::unordered_set<std::string_view> shown;
    for (const auto& f : diagnosis.findings) shown.insert(f.signature);
    std::unordered_map<std::string_view, std::string_view> foretells;
    for (std::size_t i = 0; i < signatures.size(); ++i)
        if (!signatures[i].foretells.empty()) foretells.emplace(signatures[i].id, signatures[i].foretells);
    auto superseded = [&](const DiagnosisFinding& f) {
        const auto it = foretells.find(f.signature);
        return it != foretells.end() && shown.contains(it->second);
    };
    // Keep line order after a source line gave way to the raised error.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < diagnosis.findings.size(); ++i)
        if (!superseded(diagnosis.findings[i])) order.push_back(i);
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

std::string occurrencesText(const std::vector<int>& lines) {
    constexpr std::size_t kAllListed = 10;  // up to this many, every line
    constexpr std::size_t kFirstListed = 8;
    std::string text;
    if (lines.size() <= kAllListed) {
        for (int l : lines) text += (text.empty() ? "" : ", ") + std::to_string(l);
        return text;
    }
    text = "x " + withThousands(static_cast<std::int64_t>(lines.size())) + ", lines ";
    for (std::size_t i = 0; i < kFirstListed; ++i) text += std::to_string(lines[i]) + ", ";
    return text + "..., " + std::to_string(lines.back());
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
        j["lines"] = f.lines;  // every occurrence (its length is the count the text reports)
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

// From the error to the boundary: `diagnose` reads a log, `check-model` a checkpoint's config.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/series/launch_usage.h"
#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/model_catalog.h"
#include "core/diagnosis/model_check.h"
#include "core/model/text_format.h"
#include "kernels/awq_gemm/plan.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::cli {

namespace {

using nlohmann::ordered_json;

// ---- diagnose ---------------------------------------------------------------------------

void printFinding(const DiagnosisFinding& f, std::size_t index) {
    std::cout << "[" << index + 1 << "] line " << f.line << ": " << verdictName(f.kind) << " - " << f.title;
    if (f.consequenceOf) std::cout << "  (consequence of [" << *f.consequenceOf + 1 << "])";
    std::cout << '\n';
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"    message", f.message});
    if (f.lines.size() > 1) {
        rows.push_back({"    seen on lines", occurrencesText(f.lines)});
    }
    rows.push_back({"    kernel", f.family.empty() ? "unknown (the log names no bundled kernel)"
                                                   : f.family + " / " + (f.variant.empty() ? "variant unknown" : f.variant)});
    if (!f.failingKernel.empty())
        rows.push_back(
            {"    named in log", f.failingKernel + " (" + f.failingKernelHow + ", line " + std::to_string(f.failingKernelLine) + ")"});
    if (!f.shape.empty()) {
        std::string shape;
        for (const auto& v : f.shape) shape += (shape.empty() ? "" : " ") + v.name + "=" + std::to_string(v.value);
        rows.push_back({"    shape", shape});
        // Where each value came from: a line of the log, or the model's config.
        for (const auto& v : f.shape)
            rows.push_back({"      " + v.name + "=" + std::to_string(v.value),
                            (v.line > 0 ? "line " + std::to_string(v.line) + ": " : std::string()) + v.source});
    }
    if (!f.candidates.empty()) {
        rows.push_back({"    readings", "the log gives more than one figure for " + f.candidates.front().name + ":"});
        for (const auto& c : f.candidates)
            rows.push_back({"      " + std::string(c.chosen ? "* " : "  ") + c.name + "=" + std::to_string(c.value),
                            "line " + std::to_string(c.line) + ": " + c.source + " (" + c.reading + ")"});
    }
    if (!f.unknown.empty()) rows.push_back({"    missing", f.unknown});
    if (!f.model.empty()) rows.push_back({"    model", f.model + " (" + f.modelSource + ")"});
    for (const auto& l : f.layers) {
        std::string shape;
        for (const auto& v : l.shape) shape += (shape.empty() ? "" : " ") + v.name + "=" + std::to_string(v.value);
        rows.push_back(
            {"      " + l.name, shape + ": " + std::string(verdictName(l.verdict)) + (l.message.empty() ? "" : " - " + l.message)});
    }
    // Several GPUs fit the name ("Pascal class", "RTX 3090, RTX 4090"): the name as written, not the arch alone.
    // An architecture of none ("Current capability: 52", Maxwell) says so.
    const std::string named = f.deviceText.empty() ? f.arch : f.deviceText;
    const bool inDatabase = !matchDeviceName(named, DeviceDatabase::embedded()).empty();
    std::string device = f.deviceId.empty()
                             ? (named.empty() ? "not named in the log"
                                              : named + (inDatabase ? " (more than one GPU in the database)" : " (no GPU of the database)"))
                             : f.deviceId + " (" + named + ")";
    rows.push_back({"    device", device});
    if (!f.impliedDevices.empty()) rows.push_back({"    implies", joinList(f.impliedDevices) + " (" + f.impliedBy + ")"});
    if (f.limit) rows.push_back({"    limit", describeLimit(*f.limit)});
    if (f.plan)
        rows.push_back(
            {"    planner", std::string(verdictName(f.plan->verdict)) + (f.plan->message.empty() ? "" : ": " + f.plan->message)});
    if (!f.planNote.empty()) rows.push_back({"    ", f.planNote});
    rows.push_back({"    why", f.explanation});
    rows.push_back({"    fix", f.fix});
    rows.push_back({"    run", f.command.empty() ? "none: recognised, but no Tilescope family models this kernel" : f.command});
    if (!f.sweepCommand.empty() && f.sweepCommand != f.command) rows.push_back({"    sweep", f.sweepCommand});
    if (f.boundary && !f.sweepAxis.empty()) {
        const auto eq = f.sweepAxis.find('=');
        rows.push_back({"    boundary", f.sweepAxis.substr(0, eq) + " = " + withThousands(*f.boundary) +
                                            " (the last passing value next to the failure); the sweep " + f.sweepAxis + " crosses it"});
    }
    printTable(std::cout, rows);
}

int runDiagnose(const std::string& path, const std::string& modelPath, bool json) {
    const std::string text = readInput(path);
    const std::string name = path == "-" ? "standard input" : path;
    // Held in an optional so that the lines below read it unchanged (they read a Result before).
    const std::optional<Diagnosis> diagnosis = frontend::diagnoseInput(text, name, modelPath);
    if (json) {
        std::cout << diagnosisToJson(*diagnosis, builtinKernels()).dump(2) << '\n';
    } else if (diagnosis->findings.empty()) {
        std::cout << name << ": no known signature in " << diagnosis->lineCount << " lines\n"
                  << "(known: " << knownSignaturesText(builtinKernels()) << ")\n";
    } else {
        const auto& findings = diagnosis->findings;
        std::cout << findings.size() << (findings.size() == 1 ? " finding" : " findings") << " in " << name << " (" << diagnosis->lineCount
                  << " lines)";
        if (findings.size() > 1) std::cout << "; the first is the cause, CUDA errors after it are its consequences";
        std::cout << "\n\n";
        for (std::size_t i = 0; i < findings.size(); ++i) {
            if (i > 0) std::cout << '\n';
            printFinding(findings[i], i);
        }
    }
    return diagnosis->findings.empty() ? kExitFails : kExitOk;
}

// ---- check-model ------------------------------------------------------------------------

using frontend::parseList;

std::string fixedShapeText(const ModelLayer& layer) {
    std::string out;
    for (const auto& [name, value] : layer.fixed) out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
    return out;
}

void printModelCheck(const ModelCheck& check) {
    const ModelConfig& m = check.model;
    std::vector<std::vector<std::string>> header;
    header.push_back({"model", m.name + (m.architecture.empty() ? "" : " (" + m.architecture + ")") + ", " + m.path});
    // The variant the linear layers were planned with: the stack's dispatch for a GEMM-packed checkpoint.
    const auto linear = std::find_if(check.layers.begin(), check.layers.end(), [](const ModelLayerCheck& l) { return !l.layer.attention; });
    const std::string linearVariant = linear != check.layers.end() ? linear->layer.variant : std::string(packingVariant(m.packing));
    header.push_back({"quantization", "AWQ " + std::to_string(m.bits) + "-bit, version \"" + m.version + "\" -> " +
                                          std::string(packingFamily(m.packing, builtinKernels())) + " / " + linearVariant +
                                          ", group_size " + std::to_string(m.groupSize) +
                                          (m.zeroPoint ? std::string(", zero_point ") + (*m.zeroPoint ? "true" : "false") : "") + " (" +
                                          m.quantSource + ")"});
    header.push_back({"architecture", "hidden " + std::to_string(m.hiddenSize) + ", intermediate " + std::to_string(m.intermediateSize) +
                                          ", heads " + std::to_string(m.heads) + " (kv " + std::to_string(m.kvHeads) + "), head_dim " +
                                          std::to_string(m.headDim) + (m.headDimExplicit ? "" : " (hidden_size / heads)")});
    if (m.packing == AwqPacking::Gemm)
        header.push_back({"stack", (!check.options.stack.empty() ? check.options.stack + " (--stack)"
                                    : !m.backend.empty()         ? m.backend + " (quantization_config.backend)"
                                                                 : std::string("autoawq (the default; --stack autoawq|vllm|llm-awq)")) +
                                       ": linear layers as awq_gemm / " + linearVariant});
    for (const auto& note : m.notes) header.push_back({"note", note});
    header.push_back({"device", check.device.id + " (" + check.device.name + ", " + check.device.archName() + ")"});
    printTable(std::cout, header);
    std::cout << '\n';

    const bool oneSeq = check.options.seqs.size() == 1 && check.options.seqs.front() == 1;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"layer", "kernel", "shape"};
    for (auto b : check.options.batches)
        for (auto s : check.options.seqs)
            head.push_back(oneSeq ? "b" + std::to_string(b) : "b" + std::to_string(b) + "/s" + std::to_string(s));
    rows.push_back(head);
    // "(d)": the stack dispatches this call (awq_gemm autoawq / vllm from their M): dequantize, then cuBLAS.
    bool dispatched = false;
    auto cell = [&](const LaunchPlan& p) {
        if (!p.ok()) return std::string(verdictName(p.verdict));
        const bool library =
            std::any_of(p.extraLaunches.begin(), p.extraLaunches.end(), [](const ExtraLaunch& e) { return e.chosenByLibrary(); });
        dispatched = dispatched || library;
        return std::string(library ? "ok (d)" : "ok");
    };
    for (const auto& l : check.layers) {
        std::vector<std::string> row{l.layer.name + (l.layer.note.empty() || l.layer.attention ? "" : " *"),
                                     l.layer.family + "/" + l.layer.variant, fixedShapeText(l.layer)};
        for (const auto& r : l.results) row.push_back(cell(r.plan));
        rows.push_back(row);
    }
    printTable(std::cout, rows);
    std::cout << "* fused by vLLM and SGLang; linear layers plan M = batch x seq, attention seqlen_q = seqlen_k = seq\n";
    if (dispatched)
        std::cout
            << "(d) the stack's dispatch: a dequantize kernel, then an fp16 GEMM by cuBLAS (tilescope-cli plan shows both launches)\n";

    // Layers that first fail at the same point with the same message share one entry.
    std::vector<std::pair<std::vector<std::string>, const ModelCheckResult*>> groups;
    for (const auto& l : check.layers) {
        if (!l.firstFailure) continue;
        const auto& r = l.results[*l.firstFailure];
        auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
            return g.second->batch == r.batch && g.second->seq == r.seq && g.second->plan.verdict == r.plan.verdict &&
                   g.second->plan.message == r.plan.message;
        });
        if (same == groups.end()) groups.push_back({{l.layer.name}, &r});
        else same->first.push_back(l.layer.name);
    }
    if (!groups.empty()) std::cout << "\nfirst failure per layer:\n";
    for (const auto& [names, r] : groups) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        std::cout << "  " << list << ": batch " << r->batch << (oneSeq ? "" : ", seq " + std::to_string(r->seq)) << ": "
                  << verdictName(r->plan.verdict) << ": " << r->plan.message << '\n';
        if (!r->plan.fix.empty())
            std::cout << "    fix" << (names.size() > 1 ? " (" + names.front() + ")" : "") << ": " << r->plan.fix << '\n';
    }
    std::cout << '\n';
    for (const auto& line : check.summary) std::cout << (check.allPass() ? "PASS: " : "FAIL: ") << line << '\n';
}

struct CheckModelOptions {
    std::string config;
    std::string device;
    std::string batches = "1,8,64";
    std::string seqs = "1";
    std::string attentionVariant;  // the default: the first variant of the family that plans the attention call
    std::string stack;             // autoawq, vllm or llm-awq; empty: the checkpoint's backend, else autoawq
    bool json = false;
    bool backends = false;  // --backends: the backend matrix (commands_backends.cpp) instead of the layer table
    std::string devices;    // --backends: device ids, comma-separated
    bool train = false;     // --backends: add the backward rules
    bool seqGiven = false;  // --seq on the command line (--backends defaults to a prompt length instead of 1)
};

int runCheckModel(const CheckModelOptions& o) {
    if (o.backends) {
        if (!o.device.empty() && !o.devices.empty()) throw UsageError{"--backends takes --devices (or one -d), not both"};
        // A prompt of 2,048 tokens unless --seq says otherwise: prefill rows plan seqlen_q = seqlen_k = 2048,
        // decode rows one new token against 2,048 cached ones (seq 1 would make every prefill a single token).
        return runBackendCheck(o.config, o.devices.empty() ? o.device : o.devices, parseList(o.batches, "--batch"),
                               parseList(o.seqGiven ? o.seqs : std::string("2048"), "--seq"), o.train, o.json);
    }
    if (!o.devices.empty() || o.train) throw UsageError{"--devices and --train apply to --backends"};
    const ModelCheck check = frontend::modelCheck(o.config, std::nullopt, o.device, o.batches, o.seqs, o.attentionVariant, o.stack);
    if (o.json) std::cout << modelCheckToJson(check).dump(2) << '\n';
    else printModelCheck(check);
    return check.allPass() ? kExitOk : kExitFails;
}

}  // namespace

void addDiagnoseCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("diagnose",
                                       "Find known kernel-failure signatures in a log or traceback: the kernel, the "
                                       "limit, the shape, the device, the fix and a ready plan/sweep command.\n"
                                       "Exit 0 with findings, 1 when no known signature, 2 for empty or binary input.");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto model = std::make_shared<std::string>();
    command->add_option("file", *path, "the log file, or - for standard input")->required();
    command->add_option("--model", *model,
                        "the checkpoint's config.json (or folder) when the log names no model Tilescope "
                        "knows: gives N, K, heads and head_dim per layer");
    command->add_flag("--json", *json,
                      "{\"findings\": [...]} with kind, family, variant, message, line, shape, device, fix, "
                      "command, consequence_of, ...");
    command->callback([=, &exitCode] { exitCode = runDiagnose(*path, *model, *json); });
}

void addCheckModelCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("check-model",
                                       "Plan every linear layer and the attention call of an AWQ checkpoint for "
                                       "each batch x seq on a device.\n"
                                       "Exit 0 when everything launches, 1 when anything fails, 2 for a bad config.");
    auto o = std::make_shared<CheckModelOptions>();
    std::string attentionHelp = "attention variant";
    o->attentionVariant = frontend::defaultAttentionVariant();
    if (const KernelFamily* planner = builtinKernels().planning(ModelCall::Attention)) {
        std::string names;
        for (const VariantInfo& v : planner->variants()) names += (names.empty() ? ": " : " or ") + v.name;
        attentionHelp += names;
    }
    command
        ->add_option("config", o->config, "a Hugging Face config.json, or the checkpoint folder (config.json and maybe quant_config.json)")
        ->required();
    command->add_option("-d,--device", o->device, "device id or device .json file (default: the database default)");
    command->add_option("-b,--batch", o->batches, "batch sizes, comma-separated")->capture_default_str();
    auto* seq = command->add_option("--seq", o->seqs, "sequence lengths, comma-separated (1 = decode; --backends: 2048 by default)")
                    ->capture_default_str();
    command->add_option("--attention", o->attentionVariant, attentionHelp)->capture_default_str();
    // The thresholds come from the planner, so the help cannot drift from what check-model plans.
    const auto from = [](int variant) { return std::to_string(AwqGemmFamily::stackDispatch(variant)->dequantizeFromM); };
    command->add_option("--stack", o->stack,
                        "the stack that runs a GEMM-packed checkpoint: autoawq (dequantize + cuBLAS from M = " +
                            from(AwqGemmFamily::AutoAwq) + "), vllm (from " + from(AwqGemmFamily::Vllm) +
                            " tokens) or llm-awq (the GEMM kernel at every M); default: quantization_config.backend, else autoawq");
    command->add_flag("--json", o->json, "{\"model\", \"device\", \"layers\": [...], \"summary\", \"pass\"}");
    command->add_flag("--backends", o->backends,
                      "the backend matrix instead: every attention backend and quantized GEMM that applies, by device, with the "
                      "rule that decides each cell (exit 1 when a device has no working backend of a kind)");
    command->add_option("--devices", o->devices,
                        "with --backends: device ids, comma-separated (default: t4,a10,rtx-4090,a100-80gb-sxm,h100-sxm,b200,rtx-5090)");
    command->add_flag("--train", o->train, "with --backends: training: add the backward rows, plan train=1 where a backend has it");
    command->callback([=, &exitCode] {
        o->seqGiven = seq->count() > 0;
        exitCode = runCheckModel(*o);
    });
}

}  // namespace tilescope::cli

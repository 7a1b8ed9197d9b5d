#include "core/diagnosis/model_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/model/fix_finder.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

using json = nlohmann::json;

constexpr std::int64_t kAwqBits = 4;  // AutoAWQ's kernels unpack 4-bit weights only
constexpr std::string_view kQuantConfigFile = "quant_config.json";
constexpr std::string_view kConfigFile = "config.json";

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// A field that may be absent or null; wrong types are errors collected by the caller.
struct FieldReader {
    const json& object;
    std::string where;  // "config.json", "quantization_config"
    std::vector<std::string>& problems;

    bool has(const char* key) const { return object.contains(key) && !object.at(key).is_null(); }
    std::optional<std::int64_t> integer(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = object.at(key);
        if (!v.is_number_integer()) {
            problems.push_back(where + "." + key + " is not an integer (" + v.dump() + ")");
            return std::nullopt;
        }
        return v.get<std::int64_t>();
    }
    std::optional<std::string> text(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = object.at(key);
        if (!v.is_string()) {
            problems.push_back(where + "." + key + " is not a string (" + v.dump() + ")");
            return std::nullopt;
        }
        return v.get<std::string>();
    }
    std::optional<bool> boolean(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = object.at(key);
        if (!v.is_boolean()) {
            problems.push_back(where + "." + key + " is not true or false (" + v.dump() + ")");
            return std::nullopt;
        }
        return v.get<bool>();
    }
};

struct QuantFields {
    std::string source;
    std::optional<std::string> method;
    std::optional<std::int64_t> bits;
    std::optional<std::int64_t> groupSize;
    std::optional<bool> zeroPoint;
    std::optional<std::string> version;
    std::optional<std::string> backend;
    std::string bitsKey, groupKey;  // the spelling each source uses, for messages
};

Result<AwqPacking> packingOf(const std::string& version, const std::string& where) {
    const std::string v = lowercase(version);
    if (v == "gemm") return AwqPacking::Gemm;
    if (v == "gemv") return AwqPacking::Gemv;
    if (v == "gemv_fast") return AwqPacking::GemvFast;
    return makeError(where + ".version = \"" + version + "\" has no bundled kernel; accepted: gemm, gemv, gemv_fast (any case)");
}

Result<json> parseJson(std::string_view text, std::string_view origin) {
    json parsed = json::parse(text.begin(), text.end(), nullptr, false);
    if (parsed.is_discarded()) return makeError(std::string(origin) + " is not valid JSON");
    if (!parsed.is_object()) return makeError(std::string(origin) + " is not a JSON object");
    return parsed;
}

std::optional<std::string> readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string comboText(std::int64_t batch, std::int64_t seq) {
    return seq == 1 ? "batch " + std::to_string(batch)
                    : "batch " + std::to_string(batch) + " x seq " + std::to_string(seq) + " (M = " + std::to_string(batch * seq) + ")";
}

}  // namespace

ModelCall packingCall(AwqPacking packing) {
    return packing == AwqPacking::Gemm ? ModelCall::AwqLinearGemmPacked : ModelCall::AwqLinearGemvPacked;
}

std::string_view packingFamily(AwqPacking packing, const KernelRegistry& kernels) {
    const KernelFamily* family = kernels.planning(packingCall(packing));
    return family ? family->name() : std::string_view();
}

std::optional<std::string> awqStackVariant(std::string_view stack, const ModelConfig& model) {
    const std::string name = !stack.empty() ? lowercase(stack) : !model.backend.empty() ? model.backend : "autoawq";
    if (name == "autoawq" || name == "vllm") return name;
    if (name == "llm-awq") return "gemm";
    // A checkpoint's backend Tilescope does not model: AutoAWQ's dispatch, as with none.
    if (stack.empty()) return std::string("autoawq");
    return std::nullopt;
}

std::string_view packingVariant(AwqPacking packing) {
    switch (packing) {
        case AwqPacking::Gemm: return "gemm";
        case AwqPacking::Gemv: return "gemv";
        case AwqPacking::GemvFast: return "gemv_fast";
    }
    return "gemm";
}

Result<ModelConfig> parseModelConfig(std::string_view configText, std::optional<std::string_view> quantConfigText,
                                     std::string_view origin) {
    auto root = parseJson(configText, origin);
    if (!root) return makeError(root.error());
    if (!root->contains("hidden_size") && !root->contains("text_config") && (root->contains("w_bit") || root->contains("q_group_size")))
        return makeError(std::string(origin) +
                         " is an AutoAWQ quant_config.json, not a config.json: pass the checkpoint folder "
                         "that holds both");
    ModelConfig model;
    model.path = std::string(origin);
    std::vector<std::string> problems;

    // Multimodal checkpoints keep the language model's figures under text_config.
    const json* arch = &*root;
    std::string archWhere = "config.json";
    if (!root->contains("hidden_size") && root->contains("text_config") && root->at("text_config").is_object()) {
        arch = &root->at("text_config");
        archWhere = "config.json text_config";
        model.notes.push_back("architecture read from text_config");
    }
    const FieldReader top{*root, "config.json", problems};
    const FieldReader fields{*arch, archWhere, problems};
    model.name = top.text("_name_or_path").value_or("");
    if (model.name.empty()) model.name = std::filesystem::path(std::string(origin)).filename().string();
    if (top.has("architectures") && root->at("architectures").is_array() && !root->at("architectures").empty() &&
        root->at("architectures").front().is_string())
        model.architecture = root->at("architectures").front().get<std::string>();
    model.modelType = fields.text("model_type").value_or(top.text("model_type").value_or(""));

    std::vector<std::string> missing;
    auto required = [&](const char* key) {
        auto v = fields.integer(key);
        if (!v && !fields.has(key)) missing.push_back(archWhere + "." + key);
        if (v && *v <= 0) problems.push_back(archWhere + "." + key + " = " + std::to_string(*v) + " must be positive");
        return v.value_or(0);
    };
    model.hiddenSize = required("hidden_size");
    model.intermediateSize = required("intermediate_size");
    model.heads = required("num_attention_heads");
    model.layers = fields.integer("num_hidden_layers");
    if (auto kv = fields.integer("num_key_value_heads")) {
        model.kvHeads = *kv;
    } else if (!fields.has("num_key_value_heads")) {
        model.kvHeads = model.heads;
        model.notes.push_back("no num_key_value_heads: multi-head attention, kv heads = heads (as transformers reads it)");
    }
    if (auto hd = fields.integer("head_dim")) {
        model.headDim = *hd;
        model.headDimExplicit = true;
    }

    // Quantization: config.json's quantization_config and/or an AutoAWQ quant_config.json.
    std::vector<QuantFields> sources;
    if (root->contains("quantization_config") && root->at("quantization_config").is_object()) {
        const FieldReader q{root->at("quantization_config"), "quantization_config", problems};
        QuantFields f;
        f.source = "config.json quantization_config";
        f.method = q.text("quant_method");
        f.bits = q.has("bits") ? q.integer("bits") : q.integer("w_bit");
        f.bitsKey = q.has("bits") ? "bits" : "w_bit";
        f.groupSize = q.has("group_size") ? q.integer("group_size") : q.integer("q_group_size");
        f.groupKey = q.has("group_size") ? "group_size" : "q_group_size";
        f.zeroPoint = q.boolean("zero_point");
        f.version = q.text("version");
        if (q.has("backend")) f.backend = q.text("backend");
        if (!q.has("quant_method")) missing.push_back("quantization_config.quant_method");
        if (!q.has("group_size") && !q.has("q_group_size")) missing.push_back("quantization_config.group_size");
        sources.push_back(f);
    }
    if (quantConfigText) {
        auto quantRoot = parseJson(*quantConfigText, kQuantConfigFile);
        if (!quantRoot) return makeError(quantRoot.error());
        const FieldReader q{*quantRoot, std::string(kQuantConfigFile), problems};
        QuantFields f;
        f.source = std::string(kQuantConfigFile);
        f.method = q.text("quant_method");
        if (!f.method) f.method = "awq";  // AutoAWQ writes quant_config.json for its own checkpoints only
        f.bits = q.has("w_bit") ? q.integer("w_bit") : q.integer("bits");
        f.bitsKey = q.has("w_bit") ? "w_bit" : "bits";
        f.groupSize = q.has("q_group_size") ? q.integer("q_group_size") : q.integer("group_size");
        f.groupKey = q.has("q_group_size") ? "q_group_size" : "group_size";
        f.zeroPoint = q.boolean("zero_point");
        f.version = q.text("version");
        if (!q.has("q_group_size") && !q.has("group_size")) missing.push_back("quant_config.json q_group_size");
        sources.push_back(f);
    }
    if (sources.empty())
        return makeError(std::string(origin) +
                         ": no AWQ quantization found: config.json has no quantization_config and "
                         "there is no quant_config.json beside it");
    if (!missing.empty()) return makeError(std::string(origin) + ": missing " + joinList(missing));
    if (!problems.empty()) return makeError(std::string(origin) + ": " + joinList(problems));

    const QuantFields& primary = sources.front();
    if (lowercase(*primary.method) != "awq")
        return makeError(std::string(origin) + ": " + primary.source + " quant_method = \"" + *primary.method +
                         "\": only AWQ checkpoints have bundled kernels");
    if (sources.size() == 2) {
        const QuantFields& a = sources[0];
        const QuantFields& b = sources[1];
        std::vector<std::string> contradictions;
        if (a.groupSize != b.groupSize)
            contradictions.push_back("quantization_config." + a.groupKey + " = " + std::to_string(*a.groupSize) + " but " + b.source + " " +
                                     b.groupKey + " = " + std::to_string(*b.groupSize));
        if (a.bits && b.bits && *a.bits != *b.bits)
            contradictions.push_back("quantization_config." + a.bitsKey + " = " + std::to_string(*a.bits) + " but " + b.source + " " +
                                     b.bitsKey + " = " + std::to_string(*b.bits));
        if (a.version && b.version && lowercase(*a.version) != lowercase(*b.version))
            contradictions.push_back("quantization_config.version = \"" + *a.version + "\" but " + b.source + " version = \"" + *b.version +
                                     "\"");
        if (a.zeroPoint && b.zeroPoint && *a.zeroPoint != *b.zeroPoint)
            contradictions.push_back("quantization_config.zero_point and " + b.source + " zero_point differ");
        if (!contradictions.empty())
            return makeError(std::string(origin) + ": contradictory quantization fields: " + joinList(contradictions));
    }
    model.quantSource = sources.size() == 2 ? sources[0].source + " and " + sources[1].source : primary.source;
    std::optional<std::string> version;
    for (const auto& s : sources)
        if (!version && s.version) version = s.version;
    if (!version) {
        version = "gemm";
        model.notes.push_back("no version given: gemm, the transformers AwqConfig default");
    }
    model.version = *version;
    auto packing = packingOf(*version, sources.size() == 2 && !sources[0].version ? sources[1].source : primary.source);
    if (!packing) return makeError(std::string(origin) + ": " + packing.error());
    model.packing = *packing;
    for (const auto& s : sources)
        if (s.bits) model.bits = *s.bits;
    if (model.bits != kAwqBits)
        return makeError(std::string(origin) + ": " + primary.source + " " + primary.bitsKey + " = " + std::to_string(model.bits) +
                         ": the AWQ kernels take 4-bit weights only");
    model.groupSize = *primary.groupSize;
    if (model.groupSize <= 0)
        return makeError(std::string(origin) + ": " + primary.source + " " + primary.groupKey + " = " + std::to_string(model.groupSize) +
                         " must be positive");
    for (const auto& s : sources) {
        if (s.zeroPoint) model.zeroPoint = s.zeroPoint;
        if (s.backend && model.backend.empty()) model.backend = lowercase(*s.backend);
    }

    // Architecture consistency.
    if (model.kvHeads <= 0)
        return makeError(std::string(origin) + ": " + archWhere + ".num_key_value_heads = " + std::to_string(model.kvHeads) +
                         " must be positive");
    if (model.heads % model.kvHeads != 0)
        return makeError(std::string(origin) + ": contradictory fields: num_attention_heads = " + std::to_string(model.heads) +
                         " is not a multiple of num_key_value_heads = " + std::to_string(model.kvHeads));
    if (!model.headDimExplicit) {
        if (model.hiddenSize % model.heads != 0)
            return makeError(std::string(origin) + ": no head_dim and hidden_size = " + std::to_string(model.hiddenSize) +
                             " is not a multiple of num_attention_heads = " + std::to_string(model.heads));
        model.headDim = model.hiddenSize / model.heads;
    } else if (model.headDim <= 0) {
        return makeError(std::string(origin) + ": " + archWhere + ".head_dim = " + std::to_string(model.headDim) + " must be positive");
    }
    return model;
}

Result<ModelConfig> loadModelConfig(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path input(path);
    if (!fs::exists(input, ec)) return makeError(path + ": no such file or folder");
    fs::path configPath = input;
    if (fs::is_directory(input, ec)) {
        configPath = input / kConfigFile;
        if (!fs::exists(configPath, ec))
            return makeError(path + ": the folder has no " + std::string(kConfigFile) + " (a Hugging Face checkpoint folder has one)");
    }
    const auto configText = readFile(configPath);
    if (!configText) return makeError(configPath.string() + ": cannot read");
    const fs::path quantPath = configPath.parent_path() / kQuantConfigFile;
    std::optional<std::string> quantText;
    if (fs::exists(quantPath, ec) && quantPath != configPath) {
        quantText = readFile(quantPath);
        if (!quantText) return makeError(quantPath.string() + ": cannot read");
    }
    auto model = parseModelConfig(*configText, quantText ? std::optional<std::string_view>(*quantText) : std::nullopt, path);
    // Without _name_or_path a folder names the checkpoint ("org__model/" as much as "model/").
    if (model && fs::is_directory(input, ec) && model->name == input.filename().string())
        model->name = (input / "").lexically_normal().parent_path().filename().string();
    return model;
}

std::vector<ModelLayer> expandModel(const ModelConfig& model, const KernelRegistry& kernels, std::string_view attentionVariant) {
    const std::string family(packingFamily(model.packing, kernels));
    const std::string variant(packingVariant(model.packing));
    const std::int64_t qWidth = model.heads * model.headDim;     // query heads x head_dim
    const std::int64_t kvWidth = model.kvHeads * model.headDim;  // key/value heads x head_dim
    const std::int64_t g = model.groupSize;
    auto linear = [&](std::string name, std::int64_t n, std::int64_t k, std::string note = {}) {
        return ModelLayer{std::move(name), family, variant, {{"N", n}, {"K", k}, {"group_size", g}}, false, std::move(note)};
    };
    const std::string fused = "fused by vLLM and SGLang";
    std::vector<ModelLayer> layers{
        linear("q_proj", qWidth, model.hiddenSize),
        linear("k_proj", kvWidth, model.hiddenSize),
        linear("v_proj", kvWidth, model.hiddenSize),
        linear("o_proj", model.hiddenSize, qWidth),
        linear("gate_proj", model.intermediateSize, model.hiddenSize),
        linear("up_proj", model.intermediateSize, model.hiddenSize),
        linear("down_proj", model.hiddenSize, model.intermediateSize),
        linear("qkv_proj", qWidth + 2 * kvWidth, model.hiddenSize, fused),
        linear("gate_up_proj", 2 * model.intermediateSize, model.hiddenSize, fused),
    };
    // Decoder-only models attend causally; FA2 takes the query head count (GQA shares K/V heads).
    const KernelFamily* planner = kernels.planning(ModelCall::Attention);
    layers.push_back(ModelLayer{"attention",
                                planner ? std::string(planner->name()) : std::string(),
                                std::string(attentionVariant),
                                {{"heads", model.heads}, {"head_dim", model.headDim}, {"head_dim_v", model.headDim}, {"causal", 1}},
                                true,
                                "seqlen_q = seqlen_k = seq"});
    return layers;
}

BackendModel backendModel(const ModelConfig& model, const KernelRegistry& kernels) {
    BackendModel out;
    out.name = model.name;
    out.heads = model.heads;
    out.kvHeads = model.kvHeads;
    out.headDim = model.headDim;
    out.headDimV = model.headDim;
    out.groupSize = model.groupSize;
    for (const auto& layer : expandModel(model, kernels)) {
        if (layer.attention) continue;
        BackendModel::Linear linear{layer.name, 0, 0};
        for (const auto& [name, value] : layer.fixed) {
            if (name == "N") linear.n = value;
            if (name == "K") linear.k = value;
        }
        out.linears.push_back(linear);
    }
    if (const std::string_view family = packingFamily(model.packing, kernels); !family.empty())
        out.ownGemm.push_back({std::string(family), std::string(packingVariant(model.packing))});
    return out;
}

bool ModelCheck::allPass() const {
    return std::all_of(layers.begin(), layers.end(), [](const ModelLayerCheck& l) { return !l.firstFailure; });
}

Result<ModelCheck> checkModel(const ModelConfig& model, const DeviceSpec& device, const ModelCheckOptions& options,
                              const KernelRegistry& kernels, const DeviceDatabase* database) {
    if (options.batches.empty()) return makeError("no batch sizes to check");
    if (options.seqs.empty()) return makeError("no sequence lengths to check");
    ModelCheck check;
    check.model = model;
    check.device = device;
    check.options = options;
    for (auto& layer : expandModel(model, kernels, options.attentionVariant)) {
        if (layer.family.empty()) return makeError(layer.name + ": no kernel family of this build plans it");
        if (!layer.attention && model.packing == AwqPacking::Gemm) {
            const auto stackVariant = awqStackVariant(options.stack, model);
            if (!stackVariant) return makeError("unknown stack '" + options.stack + "': expected autoawq, vllm or llm-awq");
            layer.variant = *stackVariant;
        }
        auto kernel = resolveKernel(kernels, layer.family, layer.variant);
        if (!kernel) return makeError(kernel.error());
        const auto& parameters = kernel->family->parameters();
        Shape base = Shape::defaults(parameters);
        auto set = [&](Shape& shape, const std::string& name, std::int64_t value) -> Result<void> {
            const int index = parameterIndex(parameters, name);
            if (index < 0) return makeError(layer.family + " has no parameter " + name);
            if (auto inRange = checkParameterValue(parameters[static_cast<std::size_t>(index)], value); !inRange)
                return makeError(layer.name + ": " + inRange.error());
            shape[index] = value;
            return {};
        };
        for (const auto& [name, value] : layer.fixed)
            if (auto r = set(base, name, value); !r) return makeError(r.error());
        ModelLayerCheck layerCheck;
        for (auto batch : options.batches) {
            for (auto seq : options.seqs) {
                Shape shape = base;
                if (layer.attention) {
                    for (const auto& [name, value] :
                         {std::pair<std::string, std::int64_t>{"batch", batch}, {"seqlen_q", seq}, {"seqlen_k", seq}})
                        if (auto r = set(shape, name, value); !r) return makeError(r.error());
                } else if (auto r = set(shape, "M", batch * seq); !r) {
                    return makeError(r.error());
                }
                LaunchPlan plan = kernel->family->plan(kernel->variant, shape, device, PlanDetail::Full);
                if (!plan.ok() && !layerCheck.firstFailure) {
                    attachFix(plan, *kernel, device, database);
                    layerCheck.firstFailure = layerCheck.results.size();
                }
                layerCheck.results.push_back({batch, seq, std::move(plan)});
            }
        }
        layerCheck.layer = std::move(layer);
        check.layers.push_back(std::move(layerCheck));
    }

    // Conclusions. The linear layers share one packing, so one line covers them when they all fail.
    const std::size_t combos = options.batches.size() * options.seqs.size();
    std::vector<const ModelLayerCheck*> linears;
    for (const auto& l : check.layers)
        if (!l.layer.attention) linears.push_back(&l);
    for (std::size_t c = 0; c < combos; ++c) {
        const bool allFail =
            std::all_of(linears.begin(), linears.end(), [&](const ModelLayerCheck* l) { return !l->results[c].plan.ok(); });
        if (!allFail || linears.empty()) continue;
        const auto& r = linears.front()->results[c];
        const std::string where = comboText(r.batch, r.seq);
        if (model.packing != AwqPacking::Gemm) {
            check.summary.push_back("this checkpoint is GEMV-packed (version \"" + model.version + "\"): " + where +
                                    " fails in every linear layer (" + std::string(verdictName(r.plan.verdict)) +
                                    "); use a GEMM-packed copy (quantization_config.version = \"gemm\")");
        } else {
            check.summary.push_back(where + " fails in every linear layer (" + std::string(verdictName(r.plan.verdict)) + ": " +
                                    r.plan.message + ")");
        }
        break;
    }
    std::size_t failing = 0;
    for (const auto& l : check.layers) {
        if (!l.firstFailure) continue;
        ++failing;
        const auto& r = l.results[*l.firstFailure];
        std::string line = l.layer.name + " (" + l.layer.family + "/" + l.layer.variant + "): first fails at " + comboText(r.batch, r.seq) +
                           ": " + std::string(verdictName(r.plan.verdict)) + ": " + r.plan.message;
        if (!line.empty() && line.back() == '.') line.pop_back();
        if (!r.plan.fix.empty()) line += "; fix: " + r.plan.fix;
        if (l.layer.attention || check.summary.empty()) check.summary.push_back(line);
    }
    if (failing == 0) {
        check.summary.push_back("every layer launches at every batch x seq on " + device.id);
    } else if (check.summary.size() == 1 && failing < check.layers.size() && !linears.empty()) {
        check.summary.push_back(std::to_string(failing) + " of " + std::to_string(check.layers.size()) + " layers fail somewhere");
    }
    return check;
}

nlohmann::ordered_json modelCheckToJson(const ModelCheck& check) {
    using nlohmann::ordered_json;
    const ModelConfig& m = check.model;
    // The family the linear layers were planned with (every linear layer has the packing's one).
    const auto linear = std::find_if(check.layers.begin(), check.layers.end(), [](const ModelLayerCheck& l) { return !l.layer.attention; });
    ordered_json model;
    model["name"] = m.name;
    model["path"] = m.path;
    model["architecture"] = m.architecture.empty() ? ordered_json(nullptr) : ordered_json(m.architecture);
    model["model_type"] = m.modelType.empty() ? ordered_json(nullptr) : ordered_json(m.modelType);
    model["quantization"] = {{"method", "awq"},
                             {"version", m.version},
                             {"kernel", linear != check.layers.end() ? linear->layer.family : std::string()},
                             {"variant", linear != check.layers.end() ? linear->layer.variant : std::string(packingVariant(m.packing))},
                             {"bits", m.bits},
                             {"group_size", m.groupSize},
                             {"zero_point", m.zeroPoint ? ordered_json(*m.zeroPoint) : ordered_json(nullptr)},
                             {"source", m.quantSource}};
    model["hidden_size"] = m.hiddenSize;
    model["intermediate_size"] = m.intermediateSize;
    model["num_attention_heads"] = m.heads;
    model["num_key_value_heads"] = m.kvHeads;
    model["head_dim"] = m.headDim;
    model["head_dim_explicit"] = m.headDimExplicit;
    model["num_hidden_layers"] = m.layers ? ordered_json(*m.layers) : ordered_json(nullptr);
    model["notes"] = m.notes;

    ordered_json layers = ordered_json::array();
    for (const auto& l : check.layers) {
        ordered_json layer;
        layer["name"] = l.layer.name;
        layer["kernel"] = l.layer.family;
        layer["variant"] = l.layer.variant;
        ordered_json shape = ordered_json::object();
        for (const auto& [name, value] : l.layer.fixed) shape[name] = value;
        layer["shape"] = shape;
        ordered_json results = ordered_json::array();
        for (const auto& r : l.results) {
            results.push_back({{"batch", r.batch},
                               {"seq", r.seq},
                               {"verdict", verdictName(r.plan.verdict)},
                               {"message", r.plan.message.empty() ? ordered_json(nullptr) : ordered_json(r.plan.message)}});
            // A stack's dispatch (awq_gemm autoawq / vllm from their M): the launches after the kernel, by role.
            for (const ExtraLaunch& e : r.plan.extraLaunches)
                if (e.chosenByLibrary()) results.back()["then"] = std::string(e.role) + " by " + std::string(e.library);
        }
        layer["results"] = results;
        if (l.firstFailure) {
            const auto& r = l.results[*l.firstFailure];
            layer["first_failure"] = {{"batch", r.batch},
                                      {"seq", r.seq},
                                      {"verdict", verdictName(r.plan.verdict)},
                                      {"message", r.plan.message},
                                      {"fix", r.plan.fix.empty() ? ordered_json(nullptr) : ordered_json(r.plan.fix)}};
        } else {
            layer["first_failure"] = nullptr;
        }
        layer["note"] = l.layer.note.empty() ? ordered_json(nullptr) : ordered_json(l.layer.note);
        layers.push_back(std::move(layer));
    }
    return ordered_json{{"model", model},
                        {"device", {{"id", check.device.id}, {"name", check.device.name}, {"arch", check.device.archName()}}},
                        {"batches", check.options.batches},
                        {"seqs", check.options.seqs},
                        {"layers", layers},
                        {"summary", check.summary},
                        {"pass", check.allPass()}};
}

}  // namespace tilescope

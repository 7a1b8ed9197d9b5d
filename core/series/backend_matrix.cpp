#include "core/series/backend_matrix.h"

#include <algorithm>

#include "core/model/launch_plan.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

struct Planned {
    LaunchPlan plan;
    std::string layer;
};

// The kinds of backend a device must have one working row of: attention (forward or decode),
// the quantized GEMM when the model is quantized, the backward pass with --train.
std::string_view requirementOf(BackendRole role) {
    switch (role) {
        case BackendRole::AttentionForward:
        case BackendRole::AttentionDecode: return "attention";
        case BackendRole::AttentionBackward: return "attention backward";
        case BackendRole::QuantizedGemm: return "quantized GEMM";
        case BackendRole::None: break;
    }
    return {};
}

// Sets `name` when the family has it; false (with `error`) when the value is out of its range.
bool setByName(Shape& shape, const ParameterList& parameters, std::string_view name, std::int64_t value, std::string& error) {
    const int index = parameterIndex(parameters, name);
    if (index < 0) return true;
    if (auto inRange = checkParameterValue(parameters[static_cast<std::size_t>(index)], value); !inRange) {
        error = inRange.error();
        return false;
    }
    shape[index] = value;
    return true;
}

std::string planCommand(const KernelFamily& family, std::string_view variant, const std::string& shape, const std::string& device) {
    return "tilescope-cli plan -k " + std::string(family.name()) + " -v " + std::string(variant) + " -d " + device + " -s " + shape;
}

// What the matrix sets itself on an attention row, never taken from a shape's other values.
bool setByMatrix(std::string_view name) {
    for (std::string_view own :
         {"batch", "seqlen_q", "seqlen_k", "heads", "kv_heads", "head_dim", "head_dim_v", "causal", "dropout", "train"})
        if (name == own) return true;
    return false;
}

}  // namespace

std::string_view backendRoleName(BackendRole role) {
    switch (role) {
        case BackendRole::AttentionForward: return "attention";
        case BackendRole::AttentionDecode: return "decode";
        case BackendRole::AttentionBackward: return "backward";
        case BackendRole::QuantizedGemm: return "quantized GEMM";
        case BackendRole::None: break;
    }
    return "none";
}

std::optional<BackendModel> backendModelFromShape(const KernelFamily& family, const Shape& shape) {
    const ParameterList& p = family.parameters();
    auto value = [&](std::string_view name) -> std::optional<std::int64_t> {
        const int i = parameterIndex(p, name);
        return i < 0 ? std::nullopt : std::optional<std::int64_t>(shape[i]);
    };
    if (!value("heads") || !value("head_dim")) return std::nullopt;
    BackendModel m;
    m.name = std::string(family.name()) + " shape";
    m.heads = *value("heads");
    m.kvHeads = value("kv_heads").value_or(m.heads);
    m.headDim = *value("head_dim");
    m.headDimV = value("head_dim_v").value_or(m.headDim);
    m.causal = value("causal").value_or(m.causal);
    m.dropout = value("dropout").value_or(m.dropout);
    m.shapeFamily = std::string(family.name());
    for (std::size_t i = 0; i < p.size(); ++i)
        if (!setByMatrix(p[i].name)) m.shapeValues.emplace_back(p[i].name, shape[static_cast<int>(i)]);
    return m;
}

bool BackendMatrix::everyDeviceServed() const {
    return std::all_of(missing.begin(), missing.end(), [](const auto& m) { return m.empty(); });
}

Result<BackendMatrix> backendMatrix(const BackendModel& model, const std::vector<DeviceSpec>& devices, const BackendMatrixOptions& options,
                                    const KernelRegistry& kernels) {
    if (devices.empty()) return makeError("no devices to check");
    if (options.batches.empty() || options.seqs.empty()) return makeError("no batch sizes or sequence lengths to check");
    BackendMatrix matrix;
    matrix.model = model.name;
    matrix.options = options;
    for (const auto& d : devices) matrix.devices.push_back(d.id);

    // Rows: the checkpoint's own GEMM first among the GEMM rows, then every family variant with a role.
    struct Candidate {
        const KernelFamily* family;
        int variant;
        BackendRole role;
    };
    std::vector<Candidate> candidates;
    for (const auto& family : kernels.families())
        for (int v = 0; v < static_cast<int>(family->variants().size()); ++v) {
            const BackendRole role = family->backendRole(v);
            if (role == BackendRole::None || (role == BackendRole::AttentionBackward && !options.train)) continue;
            if (role == BackendRole::QuantizedGemm && (model.groupSize == 0 || model.linears.empty())) continue;
            candidates.push_back({family.get(), v, role});
        }
    if (model.groupSize != 0 && !model.linears.empty()) {
        auto firstGemm =
            std::find_if(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.role == BackendRole::QuantizedGemm; });
        std::vector<Candidate> own;
        for (const auto& k : model.ownGemm) {
            auto choice = resolveKernel(kernels, k.family, k.variant);
            if (!choice) return makeError(choice.error());
            own.push_back({choice->family, choice->variant, BackendRole::QuantizedGemm});
        }
        candidates.insert(firstGemm, own.begin(), own.end());
    }

    for (const auto& c : candidates) {
        const ParameterList& parameters = c.family->parameters();
        const std::string_view variant = c.family->variants()[static_cast<std::size_t>(c.variant)].name;
        BackendRow row{std::string(c.family->name()), std::string(variant), c.role, std::string(c.family->title()), {}};
        const bool attention = c.role != BackendRole::QuantizedGemm;
        for (const auto& device : devices) {
            BackendCell cell;
            cell.deviceId = device.id;
            std::optional<Planned> first;
            std::optional<Planned> failure;
            for (auto batch : options.batches) {
                for (auto seq : options.seqs) {
                    std::string error;
                    std::vector<std::pair<std::string, Shape>> shapes;  // (layer, shape)
                    Shape base = Shape::defaults(parameters);
                    if (attention && c.family->name() == model.shapeFamily)
                        for (const auto& [name, value] : model.shapeValues)
                            if (!setByName(base, parameters, name, value, error))
                                return makeError(row.family + "/" + row.variant + ": " + error);
                    if (attention) {
                        const bool decode = c.role == BackendRole::AttentionDecode;
                        const std::pair<std::string_view, std::int64_t> values[] = {{"batch", batch},
                                                                                    {"seqlen_q", decode ? 1 : seq},
                                                                                    {"seqlen_k", seq},
                                                                                    {"heads", model.heads},
                                                                                    {"kv_heads", model.kvHeads},
                                                                                    {"head_dim", model.headDim},
                                                                                    {"head_dim_v", model.headDimV},
                                                                                    {"causal", model.causal},
                                                                                    {"dropout", model.dropout},
                                                                                    {"train", options.train ? 1 : 0}};
                        for (const auto& [name, value] : values)
                            if (!setByName(base, parameters, name, value, error))
                                return makeError(row.family + "/" + row.variant + ": " + error);
                        shapes.push_back({"attention", base});
                    } else {
                        for (const auto& linear : model.linears) {
                            Shape s = base;
                            const std::pair<std::string_view, std::int64_t> values[] = {
                                {"M", batch * seq}, {"N", linear.n}, {"K", linear.k}, {"group_size", model.groupSize}};
                            for (const auto& [name, value] : values)
                                if (!setByName(s, parameters, name, value, error))
                                    return makeError(row.family + "/" + row.variant + " " + linear.name + ": " + error);
                            shapes.push_back({linear.name, s});
                        }
                    }
                    for (const auto& [layer, shape] : shapes) {
                        LaunchPlan plan = c.family->plan(c.variant, shape, device, PlanDetail::Full);
                        if (!first) first = Planned{plan, layer};
                        if (!plan.ok()) {
                            failure = Planned{std::move(plan), layer};
                            cell.failBatch = batch;
                            cell.failSeq = seq;
                            break;
                        }
                    }
                    if (failure) break;
                }
                if (failure) break;
            }
            const Planned& shown = failure ? *failure : *first;
            cell.verdict = shown.plan.verdict;
            cell.rule = failure ? shown.plan.message : shown.plan.note;
            if (failure && shown.plan.limit)
                cell.limit =
                    std::string(shown.plan.limit->name) + " " + str(shown.plan.limit->limit) + " / " + str(shown.plan.limit->actual);
            if (!attention && failure) cell.layer = shown.layer;
            cell.shape = formatShape(shown.plan.shape, parameters);
            cell.command = planCommand(*c.family, variant, cell.shape, device.id);
            row.cells.push_back(std::move(cell));
        }
        matrix.rows.push_back(std::move(row));
    }

    // Per device: the kinds of backend without a working row.
    for (std::size_t d = 0; d < devices.size(); ++d) {
        std::vector<std::string> kinds, served;
        for (const auto& row : matrix.rows) {
            const std::string kind(requirementOf(row.role));
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
            if (row.cells[d].ok()) served.push_back(kind);
        }
        std::vector<std::string> missing;
        for (const auto& kind : kinds)
            if (std::find(served.begin(), served.end(), kind) == served.end()) missing.push_back(kind);
        matrix.missing.push_back(std::move(missing));
    }
    return matrix;
}

nlohmann::ordered_json backendMatrixToJson(const BackendMatrix& matrix) {
    using nlohmann::ordered_json;
    ordered_json rows = ordered_json::array();
    for (const auto& row : matrix.rows) {
        ordered_json cells = ordered_json::array();
        for (const auto& cell : row.cells) {
            ordered_json first = nullptr;
            if (cell.failBatch)
                first = {{"batch", *cell.failBatch},
                         {"seq", *cell.failSeq},
                         {"layer", cell.layer.empty() ? ordered_json(nullptr) : ordered_json(cell.layer)}};
            cells.push_back({{"device", cell.deviceId},
                             {"verdict", verdictName(cell.verdict)},
                             {"rule", cell.rule.empty() ? ordered_json(nullptr) : ordered_json(cell.rule)},
                             {"limit", cell.limit.empty() ? ordered_json(nullptr) : ordered_json(cell.limit)},
                             {"first_failure", first},
                             {"command", cell.command}});
        }
        rows.push_back({{"kernel", row.family}, {"variant", row.variant}, {"role", backendRoleName(row.role)}, {"cells", cells}});
    }
    ordered_json missing = ordered_json::object();
    for (std::size_t d = 0; d < matrix.devices.size(); ++d) missing[matrix.devices[d]] = matrix.missing[d];
    return ordered_json{{"model", matrix.model},       {"batches", matrix.options.batches},
                        {"seqs", matrix.options.seqs}, {"train", matrix.options.train},
                        {"devices", matrix.devices},   {"rows", rows},
                        {"missing", missing},          {"pass", matrix.everyDeviceServed()}};
}

}  // namespace tilescope

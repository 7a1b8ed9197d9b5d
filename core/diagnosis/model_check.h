// ModelCheck: a Hugging Face checkpoint's config.json (AWQ quantization_config, or an older
// AutoAWQ quant_config.json beside it) expands into every linear layer and the attention call
// of the model; each is planned for a list of batch sizes and sequence lengths on one device:
// "will this checkpoint serve batch 8 on an RTX 5090?".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/backend_model.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"
#include "core/model/result.h"

namespace tilescope {

// AutoAWQ's packings: which kernel family and variant serve the checkpoint's linear layers.
enum class AwqPacking { Gemm, Gemv, GemvFast };

struct ModelConfig {
    std::string name;          // _name_or_path, else the folder or file name
    std::string path;          // what was read
    std::string architecture;  // architectures[0]: "MistralForCausalLM"
    std::string modelType;     // "mistral"

    // Quantization
    std::string quantSource;  // "config.json quantization_config" or "quant_config.json"
    std::string version;      // as written: "gemm", "GEMV"
    AwqPacking packing = AwqPacking::Gemm;
    std::int64_t bits = 4;
    std::int64_t groupSize = 0;
    std::optional<bool> zeroPoint;
    // quantization_config.backend (transformers' AwqConfig: "autoawq" or "llm-awq"): the stack that runs it,
    // empty when the checkpoint does not say.
    std::string backend;

    // Architecture
    std::int64_t hiddenSize = 0;
    std::int64_t intermediateSize = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t headDim = 0;
    bool headDimExplicit = false;        // head_dim set in the config, not hidden_size / heads
    std::optional<std::int64_t> layers;  // num_hidden_layers

    std::vector<std::string> notes;  // defaults taken, fields read from elsewhere
};

ModelCall packingCall(AwqPacking packing);  // the linear-layer call of a checkpoint of that packing
// The name of the family in `kernels` that plans that packing's linear layers; empty when none does.
std::string_view packingFamily(AwqPacking packing, const KernelRegistry& kernels);
std::string_view packingVariant(AwqPacking packing);  // "gemm", "gemv", "gemv_fast"
// The awq_gemm variant a stack runs a GEMM-packed checkpoint with: "autoawq" and "vllm" (their dispatch:
// dequantize + cuBLAS from M = 1024 / 256), "llm-awq" -> "gemm" (the kernel at every M); nullopt for
// another name. An empty stack is the checkpoint's (quantization_config.backend), else AutoAWQ's.
std::optional<std::string> awqStackVariant(std::string_view stack, const ModelConfig& model);

// Parses config.json text, with the optional text of a quant_config.json beside it. The error
// names every missing or contradictory field. `origin` names the input in messages.
Result<ModelConfig> parseModelConfig(std::string_view configText, std::optional<std::string_view> quantConfigText, std::string_view origin);
// Reads a config.json file, or a checkpoint folder holding config.json (and maybe quant_config.json).
Result<ModelConfig> loadModelConfig(const std::string& path);

// One kernel call of the model at a batch of 1: a linear layer (M from batch x seq) or attention.
struct ModelLayer {
    std::string name;                                         // "q_proj", "qkv_proj (fused)", "attention"
    std::string family;                                       // the family that plans it (KernelFamily::modelCall); empty: none
    std::string variant;                                      // "gemm"
    std::vector<std::pair<std::string, std::int64_t>> fixed;  // parameters that do not depend on batch/seq
    bool attention = false;
    std::string note;  // "fused by vLLM and SGLang"
};

// Every distinct linear layer (q, k, v, o, gate, up, down, and the fused qkv and gate_up that
// vLLM and SGLang run) and the attention call, each with the family in `kernels` that plans it.
// `attentionVariant` picks the attention kernel.
std::vector<ModelLayer> expandModel(const ModelConfig& model, const KernelRegistry& kernels, std::string_view attentionVariant = "fa2");

// The checkpoint's figures for the backend matrix (`check-model --backends`, the Backends page):
// its attention call, every linear layer expandModel() lists, and its own quantized kernel.
BackendModel backendModel(const ModelConfig& model, const KernelRegistry& kernels);

struct ModelCheckResult {
    std::int64_t batch = 0;
    std::int64_t seq = 0;
    LaunchPlan plan;  // Full detail; fix attached for the layer's first failure only
};

struct ModelLayerCheck {
    ModelLayer layer;
    std::vector<ModelCheckResult> results;    // batch-major, then seq
    std::optional<std::size_t> firstFailure;  // index into results
};

struct ModelCheckOptions {
    std::vector<std::int64_t> batches{1};
    std::vector<std::int64_t> seqs{1};
    std::string attentionVariant = "fa2";
    // The stack that runs a GEMM-packed checkpoint (awqStackVariant): "autoawq", "vllm" or "llm-awq";
    // empty: the checkpoint's own, else AutoAWQ.
    std::string stack;
};

struct ModelCheck {
    ModelConfig model;
    DeviceSpec device;
    ModelCheckOptions options;
    std::vector<ModelLayerCheck> layers;
    std::vector<std::string> summary;  // one line per conclusion, most important first
    bool allPass() const;
};

// Plans every layer at every batch x seq. Errors: an unknown kernel or variant, a batch or seq
// out of range. `database` (may be null) lets fixes name other devices.
Result<ModelCheck> checkModel(const ModelConfig& model, const DeviceSpec& device, const ModelCheckOptions& options,
                              const KernelRegistry& kernels, const DeviceDatabase* database);

// {"model", "device", "layers": [{"name", "kernel", "variant", "shape", "results": [{"batch", "seq",
// "verdict", "message"}], ...}], "summary", "pass"}
nlohmann::ordered_json modelCheckToJson(const ModelCheck& check);

}  // namespace tilescope

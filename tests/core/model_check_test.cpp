// check-model: config parsing, layer expansion of every shipped config (shapes worked out by
// hand from each architecture), planning per batch x seq, and the errors for bad configs.
#include <gtest/gtest.h>

#include <map>

#include "core/model/device_spec.h"
#include "core/diagnosis/model_check.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

const std::string kModels = std::string(TILESCOPE_SOURCE_DIR) + "/resources/models/";
const std::string kGemvFolder = std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/casperhansen__mistral-7b-instruct-awq-gemv";

ModelConfig load(const std::string& path) {
    auto model = loadModelConfig(path);
    EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error());
    return model.ok() ? *model : ModelConfig{};
}

// name -> "N=...,K=..." (linear) or "heads=...,head_dim=..." (attention)
std::map<std::string, std::string> shapes(const ModelConfig& model) {
    std::map<std::string, std::string> out;
    for (const auto& layer : expandModel(model, builtinKernels())) {
        std::string text;
        for (const auto& [name, value] : layer.fixed)
            if (name != "group_size" && name != "head_dim_v" && name != "causal")
                text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
        out[layer.name] = text;
    }
    return out;
}

std::string errorOf(std::string_view config, std::optional<std::string_view> quant = std::nullopt) {
    auto model = parseModelConfig(config, quant, "config.json");
    return model.ok() ? std::string() : model.error();
}

TEST(ModelExpansion, MistralGemm) {
    const ModelConfig m = load(kModels + "TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json");
    EXPECT_EQ(m.packing, AwqPacking::Gemm);
    EXPECT_EQ(m.groupSize, 128);
    EXPECT_EQ(m.headDim, 128);  // no head_dim: 4096 / 32
    EXPECT_FALSE(m.headDimExplicit);
    // hidden 4096, heads 32 x 128 = 4096, kv 8 x 128 = 1024, intermediate 14336
    const std::map<std::string, std::string> expected{
        {"q_proj", "N=4096,K=4096"},
        {"k_proj", "N=1024,K=4096"},
        {"v_proj", "N=1024,K=4096"},
        {"o_proj", "N=4096,K=4096"},
        {"gate_proj", "N=14336,K=4096"},
        {"up_proj", "N=14336,K=4096"},
        {"down_proj", "N=4096,K=14336"},
        {"qkv_proj", "N=6144,K=4096"},       // 4096 + 2 x 1024
        {"gate_up_proj", "N=28672,K=4096"},  // 2 x 14336
        {"attention", "heads=32,head_dim=128"},
    };
    EXPECT_EQ(shapes(m), expected);
    for (const auto& layer : expandModel(m, builtinKernels()))
        if (!layer.attention) {
            EXPECT_EQ(layer.family + "/" + layer.variant, "awq_gemm/gemm");
        }
}

TEST(ModelExpansion, Gemma2ExplicitHeadDimDiffersFromHiddenOverHeads) {
    const ModelConfig m = load(kModels + "hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json");
    EXPECT_EQ(m.headDim, 256);  // explicit; 3584 / 16 would be 224
    EXPECT_TRUE(m.headDimExplicit);
    // q: 16 x 256 = 4096 from hidden 3584; kv: 8 x 256 = 2048; o maps 4096 back to 3584
    const std::map<std::string, std::string> expected{
        {"q_proj", "N=4096,K=3584"},
        {"k_proj", "N=2048,K=3584"},
        {"v_proj", "N=2048,K=3584"},
        {"o_proj", "N=3584,K=4096"},
        {"gate_proj", "N=14336,K=3584"},
        {"up_proj", "N=14336,K=3584"},
        {"down_proj", "N=3584,K=14336"},
        {"qkv_proj", "N=8192,K=3584"},       // 4096 + 2 x 2048
        {"gate_up_proj", "N=28672,K=3584"},  // 2 x 14336
        {"attention", "heads=16,head_dim=256"},
    };
    EXPECT_EQ(shapes(m), expected);
    EXPECT_EQ(m.name, "hugging-quants--gemma-2-9b-it-AWQ-INT4");  // _name_or_path
}

TEST(ModelExpansion, Qwen3ShapeHeadDimTwiceHiddenOverHeads) {
    const ModelConfig m = load(kModels + "Wfiles__awq_quantized__config.json");
    EXPECT_EQ(m.headDim, 128);  // explicit; 1024 / 16 would be 64
    // q: 16 x 128 = 2048 from hidden 1024; kv: 8 x 128 = 1024; intermediate 3072
    const std::map<std::string, std::string> expected{
        {"q_proj", "N=2048,K=1024"},
        {"k_proj", "N=1024,K=1024"},
        {"v_proj", "N=1024,K=1024"},
        {"o_proj", "N=1024,K=2048"},
        {"gate_proj", "N=3072,K=1024"},
        {"up_proj", "N=3072,K=1024"},
        {"down_proj", "N=1024,K=3072"},
        {"qkv_proj", "N=4096,K=1024"},      // 2048 + 2 x 1024
        {"gate_up_proj", "N=6144,K=1024"},  // 2 x 3072
        {"attention", "heads=16,head_dim=128"},
    };
    EXPECT_EQ(shapes(m), expected);
}

TEST(ModelExpansion, Gemma1MultiQuery) {
    const ModelConfig m = load(kModels + "TechxGenus__gemma-1.1-2b-it-AWQ__config.json");
    EXPECT_EQ(m.kvHeads, 1);
    // q: 8 x 256 = 2048 (= hidden); one kv head: 1 x 256 = 256; intermediate 16384
    const std::map<std::string, std::string> expected{
        {"q_proj", "N=2048,K=2048"},           {"k_proj", "N=256,K=2048"},      {"v_proj", "N=256,K=2048"},
        {"o_proj", "N=2048,K=2048"},           {"gate_proj", "N=16384,K=2048"}, {"up_proj", "N=16384,K=2048"},
        {"down_proj", "N=2048,K=16384"},       {"qkv_proj", "N=2560,K=2048"},  // 2048 + 2 x 256
        {"gate_up_proj", "N=32768,K=2048"},                                    // 2 x 16384
        {"attention", "heads=8,head_dim=256"},
    };
    EXPECT_EQ(shapes(m), expected);
}

TEST(ModelExpansion, AutoAwqQuantConfigFolderIsGemv) {
    const ModelConfig m = load(kGemvFolder);
    EXPECT_EQ(m.packing, AwqPacking::Gemv);
    EXPECT_EQ(m.version, "GEMV");
    EXPECT_EQ(m.groupSize, 128);  // q_group_size
    EXPECT_EQ(m.zeroPoint, true);
    EXPECT_EQ(m.quantSource, "quant_config.json");
    EXPECT_EQ(m.name, "casperhansen__mistral-7b-instruct-awq-gemv");
    // Mistral-7B's architecture, as above, on the GEMV kernel.
    EXPECT_EQ(shapes(m).at("qkv_proj"), "N=6144,K=4096");
    for (const auto& layer : expandModel(m, builtinKernels()))
        if (!layer.attention) {
            EXPECT_EQ(layer.family + "/" + layer.variant, "awq_gemv/gemv");
        }
    // The folder's config.json read directly finds the quant_config.json beside it.
    EXPECT_EQ(load(kGemvFolder + "/config.json").packing, AwqPacking::Gemv);
}

// The families say which model call they plan (KernelFamily::modelCall); a registry without them
// plans nothing, and the check says so instead of naming a family.
TEST(ModelExpansion, EachCallIsPlannedByTheFamilyThatSaysSo) {
    const ModelConfig m = load(kModels + "TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json");
    const KernelFamily* linear = builtinKernels().planning(ModelCall::AwqLinearGemmPacked);
    const KernelFamily* attention = builtinKernels().planning(ModelCall::Attention);
    ASSERT_TRUE(linear && attention);
    EXPECT_EQ(packingFamily(AwqPacking::Gemm, builtinKernels()), linear->name());
    for (const auto& layer : expandModel(m, builtinKernels()))
        EXPECT_EQ(layer.family, layer.attention ? attention->name() : linear->name()) << layer.name;
    const KernelRegistry none;
    EXPECT_EQ(packingFamily(AwqPacking::Gemm, none), "");
    for (const auto& layer : expandModel(m, none)) EXPECT_EQ(layer.family, "") << layer.name;
    const auto& db = DeviceDatabase::embedded();
    const auto check = checkModel(m, *db.find("rtx-5090"), ModelCheckOptions{}, none, &db);
    ASSERT_FALSE(check.ok());
    EXPECT_EQ(check.error(), "q_proj: no kernel family of this build plans it");
}

TEST(ModelCheckPlans, GemvCheckpointFailsBatch8InEveryLinearLayer) {
    const ModelConfig m = load(kGemvFolder);
    ModelCheckOptions options;
    options.batches = {1, 8, 64};
    const auto& db = DeviceDatabase::embedded();
    auto check = checkModel(m, *db.find("rtx-5090"), options, builtinKernels(), &db);
    ASSERT_TRUE(check.ok()) << check.error();
    EXPECT_FALSE(check->allPass());
    for (const auto& layer : check->layers) {
        if (layer.layer.attention) {
            EXPECT_FALSE(layer.firstFailure);
            continue;
        }
        ASSERT_TRUE(layer.firstFailure) << layer.layer.name;
        EXPECT_EQ(layer.results[*layer.firstFailure].batch, 8);
        EXPECT_EQ(layer.results[*layer.firstFailure].plan.verdict, Verdict::UnsupportedShape);
        EXPECT_TRUE(layer.results[0].plan.ok());  // batch 1
    }
    ASSERT_FALSE(check->summary.empty());
    EXPECT_NE(check->summary[0].find("GEMV-packed"), std::string::npos);
    EXPECT_NE(check->summary[0].find("batch 8 fails in every linear layer"), std::string::npos);
    EXPECT_NE(check->summary[0].find("GEMM-packed copy"), std::string::npos);
}

TEST(ModelCheckPlans, MistralGemmDecodePassesOnRtx5090) {
    const ModelConfig m = load(kModels + "TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json");
    ModelCheckOptions options;
    options.batches = {1, 8, 64};
    const auto& db = DeviceDatabase::embedded();
    auto check = checkModel(m, *db.find("rtx-5090"), options, builtinKernels(), &db);
    ASSERT_TRUE(check.ok()) << check.error();
    EXPECT_TRUE(check->allPass());
    const auto j = modelCheckToJson(*check);
    EXPECT_EQ(j["layers"].size(), 10u);
    EXPECT_EQ(j["layers"][0]["name"], "q_proj");
    EXPECT_EQ(j["layers"][0]["kernel"], "awq_gemm");
    EXPECT_EQ(j["layers"][0]["shape"]["N"], 4096);
    EXPECT_EQ(j["layers"][0]["results"].size(), 3u);
    EXPECT_EQ(j["layers"][0]["results"][1]["batch"], 8);
    EXPECT_EQ(j["layers"][0]["results"][1]["verdict"], "ok");
    EXPECT_EQ(j["device"]["id"], "rtx-5090");
    EXPECT_EQ(j["pass"], true);
}

TEST(ModelCheckPlans, AttentionOnT4AndSeqAxis) {
    const ModelConfig m = load(kModels + "TechxGenus__gemma-1.1-2b-it-AWQ__config.json");
    ModelCheckOptions options;
    options.batches = {1, 8};
    options.seqs = {1, 2048};
    const auto& db = DeviceDatabase::embedded();
    auto check = checkModel(m, *db.find("t4"), options, builtinKernels(), &db);
    ASSERT_TRUE(check.ok());
    const auto& attention = check->layers.back();
    ASSERT_TRUE(attention.layer.attention);
    ASSERT_EQ(attention.results.size(), 4u);  // 2 batches x 2 seqs
    EXPECT_EQ(attention.results[1].seq, 2048);
    EXPECT_EQ(attention.results[1].plan.shape[1], 2048);  // seqlen_q
    EXPECT_EQ(attention.results[0].plan.verdict, Verdict::UnsupportedDevice);
    // Linear layers plan M = batch x seq: 8 x 2048 rows.
    EXPECT_EQ(check->layers.front().results[3].plan.shape[0], 16384);
}

TEST(ModelConfigErrors, NameTheFields) {
    EXPECT_NE(errorOf(R"({"hidden_size": 4096})").find("no AWQ quantization"), std::string::npos);
    const std::string missing = errorOf(R"({"quantization_config": {"quant_method": "awq", "group_size": 128}})");
    EXPECT_NE(missing.find("hidden_size"), std::string::npos);
    EXPECT_NE(missing.find("intermediate_size"), std::string::npos);
    EXPECT_NE(missing.find("num_attention_heads"), std::string::npos);
    const std::string arch = R"("hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8)";
    EXPECT_NE(errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "awq"}})").find("group_size"), std::string::npos);
    EXPECT_NE(errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "gptq", "group_size": 128}})").find("gptq"),
              std::string::npos);
    EXPECT_NE(
        errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": 128, "version": "marlin"}})").find("marlin"),
        std::string::npos);
    EXPECT_NE(errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": 128, "bits": 8}})").find("bits"),
              std::string::npos);
    EXPECT_NE(errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": "128"}})").find("not an integer"),
              std::string::npos);
    // Contradictions: heads vs kv heads, and the two quantization files.
    EXPECT_NE(errorOf(R"({"hidden_size": 4096, "intermediate_size": 1, "num_attention_heads": 32, "num_key_value_heads": 5,
                         "quantization_config": {"quant_method": "awq", "group_size": 128}})")
                  .find("not a multiple of num_key_value_heads"),
              std::string::npos);
    const std::string both =
        errorOf("{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": 128, "version": "gemm"}})",
                R"({"q_group_size": 64, "w_bit": 4, "version": "GEMV"})");
    EXPECT_NE(both.find("contradictory"), std::string::npos);
    EXPECT_NE(both.find("q_group_size = 64"), std::string::npos);
    EXPECT_NE(both.find("GEMV"), std::string::npos);
    EXPECT_NE(errorOf(R"({"q_group_size": 128, "w_bit": 4})").find("quant_config.json"), std::string::npos);
    EXPECT_NE(errorOf("not json").find("not valid JSON"), std::string::npos);
    EXPECT_FALSE(loadModelConfig(kModels + "does-not-exist.json").ok());
}

TEST(ModelConfigErrors, VersionAnyCaseAndDefaults) {
    const std::string arch = R"("hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32)";
    auto m = parseModelConfig(
        "{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": 128, "version": "GEMV_Fast"}})", std::nullopt, "x");
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->packing, AwqPacking::GemvFast);
    EXPECT_EQ(m->kvHeads, 32);  // no num_key_value_heads: multi-head attention
    m = parseModelConfig("{" + arch + R"(, "quantization_config": {"quant_method": "awq", "group_size": 128}})", std::nullopt, "x");
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->packing, AwqPacking::Gemm);  // transformers' AwqConfig default
    EXPECT_FALSE(m->notes.empty());
}

}  // namespace
}  // namespace tilescope

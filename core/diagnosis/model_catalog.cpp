#include "core/diagnosis/model_catalog.h"

#include <filesystem>

#include "core/diagnosis/diagnosis_text.h"
#include "core/diagnosis/embedded_models.h"

namespace tilescope {

namespace {

constexpr std::string_view kConfigSuffix = "__config.json";

// "TheBloke__Mixtral-8x7B-Instruct-v0.1-AWQ__config.json" -> "TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ"
std::string idFromFileName(std::string_view name) {
    if (name.size() > kConfigSuffix.size() && name.substr(name.size() - kConfigSuffix.size()) == kConfigSuffix)
        name.remove_suffix(kConfigSuffix.size());
    std::string id(name);
    if (const auto split = id.find("__"); split != std::string::npos) id.replace(split, 2, "/");
    return id;
}

bool isNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'; }

// `needle` in `text` with no name character on either side (a trailing '.' ends a sentence).
bool wholeName(std::string_view text, std::string_view needle) {
    if (needle.size() < 4) return false;  // too short to name a model
    for (std::size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
        const bool before = at == 0 || !isNameChar(text[at - 1]);
        const std::size_t end = at + needle.size();
        const bool after =
            end == text.size() || !isNameChar(text[end]) || (text[end] == '.' && (end + 1 == text.size() || !isNameChar(text[end + 1])));
        if (before && after) return true;
    }
    return false;
}

}  // namespace

const std::vector<CatalogModel>& embeddedModels() {
    static const std::vector<CatalogModel> models = [] {
        std::vector<CatalogModel> out;
        for (const auto& file : embeddedModelConfigs()) {
            const std::string origin = "resources/models/" + std::string(file.name) + " (embedded)";
            auto config = parseModelConfig(file.text, std::nullopt, origin);
            if (!config) continue;
            out.push_back({idFromFileName(file.name), origin, std::move(*config)});
        }
        return out;
    }();
    return models;
}

Result<CatalogModel> catalogModelFromPath(const std::string& path) {
    auto config = loadModelConfig(path);
    if (!config) return makeError(config.error());
    std::string id = config->name;
    if (id.empty()) id = std::filesystem::path(path).filename().string();
    // Without _name_or_path: "org__repo__config.json" (resources/models' naming) names the Hub id.
    if (id.size() > kConfigSuffix.size() && id.compare(id.size() - kConfigSuffix.size(), kConfigSuffix.size(), kConfigSuffix) == 0)
        id = idFromFileName(id);
    return CatalogModel{id, path, std::move(*config)};
}

std::size_t modelNameLength(const CatalogModel& model, std::string_view lowerText) {
    const std::string id = lowercaseAscii(model.id);
    if (wholeName(lowerText, id)) return id.size();
    const auto slash = id.rfind('/');
    const std::string repo = slash == std::string::npos ? id : id.substr(slash + 1);
    if (wholeName(lowerText, repo)) return repo.size();
    return 0;
}

}  // namespace tilescope

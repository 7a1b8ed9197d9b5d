// The model configs Tilescope knows without being told: resources/models, embedded at build
// time, plus any the user adds (diagnose --model, the GUI's model folder). A log that names one
// of them (a Hugging Face id or a local checkpoint path) gives the diagnosis N, K, heads and
// head_dim per layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/diagnosis/model_check.h"
#include "core/model/result.h"

namespace tilescope {

struct CatalogModel {
    std::string id;      // Hugging Face id, "TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ"; for a user's file, its folder or file name
    std::string source;  // where the config was read: "resources/models/...json (embedded)"
    ModelConfig config;
};

// The embedded resources/models/*__config.json, parsed once; a file that does not parse is left out.
const std::vector<CatalogModel>& embeddedModels();

// A user's config.json or checkpoint folder as a catalog entry (its id: `_name_or_path`, else the
// folder or file name).
Result<CatalogModel> catalogModelFromPath(const std::string& path);

// Whether `lowerText` (lowercase) names the model: its id, or its repository name as a whole path
// component or word ("/data/models/Mixtral-8x7B-Instruct-v0.1-AWQ"). The matched text's length, 0 when none.
std::size_t modelNameLength(const CatalogModel& model, std::string_view lowerText);

}  // namespace tilescope

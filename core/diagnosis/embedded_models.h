// resources/models/*__config.json compiled into libtilescope_core (see core/CMakeLists.txt).
#pragma once

#include <string_view>
#include <vector>

namespace tilescope {

struct EmbeddedFile {
    std::string_view name;  // file name in resources/models
    std::string_view text;
};

std::vector<EmbeddedFile> embeddedModelConfigs();

}  // namespace tilescope

// libFuzzer harness: the model-config reader. The input is split at the first NUL byte into
// config.json text and an optional quant_config.json text, so both parsers and their
// cross-checks see hostile data.
#include "core/diagnosis/model_check.h"
#include "kernels/builtin_kernels.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const auto split = all.find('\0');
    const std::string_view config = all.substr(0, split);
    std::optional<std::string_view> quant;
    if (split != std::string_view::npos) quant = all.substr(split + 1);
    auto model = tilescope::parseModelConfig(config, quant, "fuzz");
    if (model) (void)tilescope::expandModel(*model, tilescope::builtinKernels());
    return 0;
}

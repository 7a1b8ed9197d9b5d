// libFuzzer harness: the log diagnoser on arbitrary text (and its JSON report).
#include "core/model/device_spec.h"
#include "core/diagnosis/diagnosis.h"
#include "kernels/builtin_kernels.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto& kernels = tilescope::builtinKernels();
    auto diagnosis = tilescope::diagnoseText(text, kernels, tilescope::DeviceDatabase::embedded());
    if (diagnosis) (void)tilescope::diagnosisToJson(*diagnosis, kernels);
    return 0;
}

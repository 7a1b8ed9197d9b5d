// libFuzzer harness: the device-file loader (DeviceDatabase::fromJsonText) and the validation
// every loaded device goes through.
#include "core/model/device_spec.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto database = tilescope::DeviceDatabase::fromJsonText(text, "fuzz");
    if (database) {
        for (const auto& device : database->devices()) (void)tilescope::validateDevice(device);
    }
    return 0;
}

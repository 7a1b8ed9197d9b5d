// Resources compiled into libtilescope_core so the binaries run from any folder.
#pragma once

#include <string_view>

namespace tilescope {

std::string_view embeddedDevicesJson();  // resources/devices.json

}  // namespace tilescope

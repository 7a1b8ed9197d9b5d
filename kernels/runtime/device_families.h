// The families with device code, as kernels/CMakeLists.txt registers them from each
// <family>/family.cmake (DEVICE_TABLES, INPUTS_FACTORY): their device-kernel tables and the factory
// of their launch inputs. Defined in the generated device_families.cpp; the runtime names no family.
#pragma once

#include <string_view>
#include <vector>

#include "kernels/device_kernels.h"
#include "kernels/runtime/family_inputs.h"

namespace tilescope {

struct DeviceFamily {
    std::string_view name;                 // KernelFamily::name()
    std::vector<DeviceKernelList> tables;  // every device function of the family (each .cu's table)
    LaunchInputsFactory prepareInputs = nullptr;
};

const std::vector<DeviceFamily>& deviceFamilies();
const DeviceFamily* findDeviceFamily(std::string_view name);  // nullptr: no device code registered

}  // namespace tilescope

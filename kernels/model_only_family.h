// ModelOnlyFamily: the base of a family that models another stack's rules with no device code of
// ours (fa3, flashinfer, marlin, sdpa, xformers): no kernel symbols unless it names upstream's, and
// nothing to run (`run` and GPU > Run refuse it).
#pragma once

#include "core/model/kernel_family.h"

namespace tilescope {

class ModelOnlyFamily : public KernelFamily {
public:
    std::vector<std::string_view> kernelSymbols() const override { return {}; }
    bool hasDeviceCode() const final { return false; }
};

}  // namespace tilescope

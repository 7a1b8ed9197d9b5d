// custom: any kernel's launch, described by its figures alone (grid, block, registers, shared memory),
// checked against a device like the bundled families' launches. It has no device code: nothing to run.
#pragma once

#include "core/model/kernel_family.h"

namespace tilescope {

class CustomFamily final : public KernelFamily {
public:
    enum Parameter { GridX, GridY, GridZ, BlockX, BlockY, BlockZ, Registers, StaticSmem, DynamicSmem, SmemOptin };
    enum Variant { Launch };

    std::string_view name() const override { return "custom"; }
    std::string_view title() const override { return "Custom launch (any kernel's grid, block, registers, smem)"; }
    const std::vector<VariantInfo>& variants() const override;
    const ParameterList& parameters() const override;
    LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const override;
    std::vector<std::string_view> kernelSymbols() const override;
    const DiagnosisSignatures* diagnosisSignatures() const override;  // diagnosis.cpp
    bool hasDeviceCode() const override { return false; }
    const LaunchFigureParameters* launchFigureParameters() const override;
    // ptxas' refusal of static shared memory past the cap, naming `function` (tooMuchSharedDataText).
    std::string refusalFor(const LaunchPlan& plan, std::string_view function) const override;
};

// The symbol every custom plan names: not a device function of this build, only the launch's label.
inline constexpr std::string_view kCustomKernelSymbol = "custom_kernel";

// ptxas' refusal of a kernel whose static shared memory passes the per-block cap, as it prints it
// (sglang issue #25484 on an H20: "ptxas error   : Entry function '...' uses too much shared data
// (0xc980 bytes, 0xc000 max)"): `function` in the quotes, the figures in hex.
std::string tooMuchSharedDataText(std::string_view function, std::int64_t bytes, std::int64_t cap);

}  // namespace tilescope

// Helpers the core tests share: a device from the embedded database and one plan in Full detail.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "core/model/launch_checks.h"
#include "core/model/launch_plan.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::test {

inline const DeviceSpec& device(std::string_view id) {
    const DeviceSpec* spec = DeviceDatabase::embedded().find(id);
    if (!spec) throw std::logic_error("no device " + std::string(id) + " in the embedded database");
    return *spec;
}

inline KernelChoice kernel(std::string_view family, std::string_view variant) {
    auto choice = resolveKernel(builtinKernels(), family, variant);
    if (!choice) throw std::logic_error(choice.error());
    return *choice;
}

inline Shape shape(const KernelChoice& k, std::string_view text) {
    auto parsed = parseShape(text, k.family->parameters());
    if (!parsed) throw std::logic_error(parsed.error());
    return *parsed;
}

// What a grid or block over its limit raises on the runtime database devices default to (this
// build's toolkit); cuda_runtime_test.cpp checks each runtime's name and text.
inline LaunchRejection defaultLaunchRejection() { return launchConfigurationRejection(toolkitCudaRuntime()); }

// What `tilescope-cli plan` computes: Full detail and the fix, devices from the embedded database.
inline LaunchPlan plan(std::string_view family, std::string_view variant, std::string_view shapeText, std::string_view deviceId) {
    const KernelChoice k = kernel(family, variant);
    return planWithFix(k, shape(k, shapeText), device(deviceId), &DeviceDatabase::embedded());
}

inline LaunchPlan planOn(std::string_view family, std::string_view variant, std::string_view shapeText, const DeviceSpec& spec) {
    const KernelChoice k = kernel(family, variant);
    return planWithFix(k, shape(k, shapeText), spec, nullptr);
}

// The register count a launching plan reports is the compiler's (the generated ptxas table) for
// its kernel on this device's arch, and with it the plan has an occupancy.
inline void expectCompilerRegisters(const LaunchPlan& p, const DeviceSpec& spec) {
    const auto resources = compiledKernelResources().find(p.kernelSymbol, spec.computeCapability);
    ASSERT_TRUE(resources) << p.kernelSymbol << " on " << spec.archName();
    ASSERT_TRUE(p.registers);
    EXPECT_EQ(*p.registers, resources->registers);
    EXPECT_GT(*p.registers, 0);
    if (p.ok()) {
        ASSERT_TRUE(p.occupancy);
        EXPECT_GT(p.occupancy->activeBlocksPerSm, 0);
    }
}

// A variant with no device code in a family that has some: attention's fa2_bwd (issue 29) plans
// upstream's backward kernel, which this build does not compile, so no register table or device
// function has its symbol.
inline bool modelOnlyVariant(const KernelFamily& family, std::size_t variant) {
    return family.hasDeviceCode() && !family.variantHasDeviceCode(static_cast<int>(variant));
}

inline std::string limitName(const LaunchPlan& p) { return p.limit ? std::string(p.limit->name) : std::string(); }

}  // namespace tilescope::test

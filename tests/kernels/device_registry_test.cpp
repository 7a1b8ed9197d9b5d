// The registration every GPU run depends on, checked without a GPU: each family with device code
// has its device-kernel tables and an inputs factory registered (kernels/<family>/family.cmake),
// and every kernel its planner can name (every variant, extra launches such as split-KV's combine,
// the bf16 instantiation where the family has one) resolves to a launchable function. Without
// this a forgotten table or factory only shows as "no device function ... in this build" on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/shape.h"
#include "kernels/builtin_kernels.h"
#include "kernels/device_kernels.h"
#include "kernels/runtime/device_families.h"
#include "kernels/runtime/gpu_launcher.h"

namespace tilescope {
namespace {

// The symbols a run of this family may launch for a planner symbol: the symbol, and with --dtype bf16
// its bf16 instantiation.
std::vector<std::string> launchedSymbols(const KernelFamily& family, std::string_view symbol) {
    std::vector<std::string> symbols{std::string(symbol)};
    if (family.hasBf16Kernels()) symbols.push_back(std::string(symbol) + kBf16SymbolSuffix);
    return symbols;
}

TEST(DeviceRegistry, EveryFamilyWithDeviceCodeHasTablesAndAnInputsFactory) {
    int withDeviceCode = 0;
    for (const auto& family : builtinKernels().families()) {
        const DeviceFamily* device = findDeviceFamily(family->name());
        if (!family->hasDeviceCode()) {
            EXPECT_EQ(device, nullptr) << family->name() << " models launches only but registers device code";
            continue;
        }
        ++withDeviceCode;
        ASSERT_NE(device, nullptr) << family->name() << ": no DEVICE / DEVICE_TABLES in its family.cmake";
        EXPECT_NE(device->prepareInputs, nullptr) << family->name() << ": no INPUTS_FACTORY";
        EXPECT_FALSE(device->tables.empty()) << family->name();
    }
    EXPECT_GT(withDeviceCode, 0);
}

TEST(DeviceRegistry, EveryRegisteredDeviceFamilyIsABuiltinFamily) {
    for (const DeviceFamily& device : deviceFamilies()) {
        const KernelFamily* family = builtinKernels().find(device.name);
        ASSERT_NE(family, nullptr) << device.name << " registers device code but is no family of the registry";
        EXPECT_TRUE(family->hasDeviceCode()) << device.name;
    }
}

TEST(DeviceRegistry, EveryTableEntryIsLaunchable) {
    for (const DeviceFamily& device : deviceFamilies())
        for (const DeviceKernelList list : device.tables) {
            EXPECT_GT(list.count, 0u) << device.name;
            for (std::size_t i = 0; i < list.count; ++i) {
                ASSERT_NE(list.entries[i].symbol, nullptr) << device.name << " entry " << i;
                EXPECT_NE(list.entries[i].function, nullptr) << device.name << ": " << list.entries[i].symbol;
            }
        }
}

TEST(DeviceRegistry, EverySymbolThePlannerNamesResolves) {
    for (const auto& family : builtinKernels().families()) {
        if (!family->hasDeviceCode()) continue;
        const std::vector<std::string_view> symbols = family->kernelSymbols();
        EXPECT_FALSE(symbols.empty()) << family->name();
        for (std::string_view symbol : symbols)
            for (const std::string& launched : launchedSymbols(*family, symbol))
                EXPECT_NE(findDeviceKernel(launched), nullptr) << family->name() << ": no device function " << launched;
    }
}

// What each variant plans on every device of the database, at the family's default shape and with
// each Log2 parameter in turn at 1 (a decode step: attention's split-KV and its combine): its main
// and extra launches are among kernelSymbols() (which the test above resolves) and resolve.
TEST(DeviceRegistry, EveryVariantsPlannedKernelsResolveOnEveryDevice) {
    for (const auto& family : builtinKernels().families()) {
        if (!family->hasDeviceCode()) continue;
        const std::vector<std::string_view> known = family->kernelSymbols();
        auto check = [&](std::string_view symbol, const std::string& where) {
            EXPECT_NE(std::find(known.begin(), known.end(), symbol), known.end()) << where << ": " << symbol << " not in kernelSymbols()";
            for (const std::string& launched : launchedSymbols(*family, symbol))
                EXPECT_NE(findDeviceKernel(launched), nullptr) << where << ": no device function " << launched;
        };
        const ParameterList& parameters = family->parameters();
        std::vector<Shape> shapes{Shape::defaults(parameters)};
        for (int p = 0; p < static_cast<int>(parameters.size()); ++p)
            if (parameters[static_cast<std::size_t>(p)].scale == AxisScale::Log2) {
                shapes.push_back(shapes.front());
                shapes.back()[p] = std::max<std::int64_t>(parameters[static_cast<std::size_t>(p)].minimum, 1);
            }
        int extras = 0;
        for (int variant = 0; variant < static_cast<int>(family->variants().size()); ++variant)
            // attention's fa2_bwd (issue 29) models upstream's backward kernel, which this build does not compile.
            for (const Shape& shape : shapes)
                if (family->variants()[static_cast<std::size_t>(variant)].name != "fa2_bwd")
                    for (const DeviceSpec& device : DeviceDatabase::embedded().devices()) {
                        const LaunchPlan plan = family->plan(variant, shape, device, PlanDetail::Full);
                        const std::string where = std::string(family->name()) + " " +
                                                  family->variants()[static_cast<std::size_t>(variant)].name + " " +
                                                  formatShape(shape, parameters) + " on " + device.id;
                        if (!plan.kernelSymbol.empty()) check(plan.kernelSymbol, where);
                        for (const ExtraLaunch& extra : plan.extraLaunches) {
                            if (extra.chosenByLibrary()) continue;  // cuBLAS's kernel, loaded at run time
                            check(extra.kernelSymbol, where + " (" + std::string(extra.role) + ")");
                            ++extras;
                        }
                    }
        if (family->name() == "attention") {
            EXPECT_GT(extras, 0) << "no shape reached split-KV's combine";
        }
    }
}

}  // namespace
}  // namespace tilescope

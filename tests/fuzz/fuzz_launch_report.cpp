// libFuzzer harness: the launch-report readers (ptxas resource reports, Nsight Compute CSV) on arbitrary text,
// and every entry they return checked as a custom launch, as check-launch does.
#include "core/model/device_spec.h"
#include "core/diagnosis/launch_report.h"
#include "kernels/builtin_kernels.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

void planEach(const tilescope::LaunchReport& report) {
    const auto* family = tilescope::builtinKernels().find("custom");
    if (!family) return;
    const auto& parameters = family->parameters();
    const auto& device = tilescope::DeviceDatabase::embedded().defaultDevice();
    for (const auto& launch : report.launches) {
        tilescope::Shape shape = tilescope::Shape::defaults(parameters);
        const std::int64_t values[] = {launch.grid ? launch.grid->x : 1,   launch.grid ? launch.grid->y : 1,
                                       launch.grid ? launch.grid->z : 1,   launch.block ? launch.block->x : 256,
                                       launch.block ? launch.block->y : 1, launch.block ? launch.block->z : 1,
                                       launch.registers.value_or(32),      launch.staticSmem.value_or(0),
                                       launch.dynamicSmem.value_or(0),     0};
        bool inRange = true;
        for (int p = 0; p < static_cast<int>(parameters.size()); ++p) {
            shape[p] = values[p];
            inRange = inRange && tilescope::checkParameterValue(parameters[static_cast<std::size_t>(p)], shape[p]).ok();
        }
        if (inRange) (void)family->plan(0, shape, device, tilescope::PlanDetail::Full);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)tilescope::detectLaunchReportKind(text);
    if (auto ptxas = tilescope::readPtxasReport(text)) planEach(*ptxas);
    if (auto ncu = tilescope::readNcuCsv(text)) planEach(*ncu);
    (void)tilescope::demangleKernelName(text.substr(0, 256));
    return 0;
}

// libFuzzer harness: the planners at any shape their parameters accept. Byte 0 picks the kernel
// family, byte 1 the variant and byte 2 the device; then either the rest is shape text for
// parseShape ("M=32768,N=5376", byte 3 even), or each following 8 bytes are one parameter's value,
// folded into that parameter's accepted range, so the extremes (0, 2^24 x 2^20 x 2^20 products)
// come up as often as ordinary shapes. Every plan runs at Full detail with its fix (nearest
// passing value, other devices), under UBSan: an overflow in a launch formula is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "core/model/shape.h"
#include "kernels/builtin_kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace tilescope;
    if (size < 4) return 0;
    const auto& families = builtinKernels().families();
    const KernelFamily& family = *families[data[0] % families.size()];
    const KernelChoice kernel{&family, static_cast<int>(data[1] % family.variants().size())};
    const auto& devices = DeviceDatabase::embedded().devices();
    const DeviceSpec& device = devices[data[2] % devices.size()];
    const ParameterList& parameters = family.parameters();

    Shape shape = Shape::defaults(parameters);
    if (data[3] % 2 == 0) {
        auto parsed = parseShape(std::string_view(reinterpret_cast<const char*>(data + 4), size - 4), parameters);
        if (!parsed) return 0;
        shape = *parsed;
    } else {
        std::size_t at = 4;
        for (int p = 0; p < static_cast<int>(parameters.size()) && at + 8 <= size; ++p, at += 8) {
            std::uint64_t raw = 0;
            std::memcpy(&raw, data + at, sizeof raw);
            const ParameterSpec& spec = parameters[static_cast<std::size_t>(p)];
            const auto span = static_cast<std::uint64_t>(spec.maximum - spec.minimum) + 1;
            shape[p] = spec.minimum + static_cast<std::int64_t>(raw % span);
        }
    }
    (void)family.plan(kernel.variant, shape, device, PlanDetail::Brief);
    (void)planWithFix(kernel, shape, device, &DeviceDatabase::embedded());
    return 0;
}

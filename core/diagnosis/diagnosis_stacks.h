// What errors from stacks Tilescope does not bundle (ptxas, the CuTe DSL, a compiler's resource
// check, vLLM's kernel checks) tell beyond their own text: the database GPUs a printed limit
// implies, what a limit printed under another vendor's stack means, ptxas' hex figures and the
// multiples a divisibility check wants. The stacks' own readings live with the family that
// replays them (kernels/<family>/diagnosis.*).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/device_spec.h"
#include "core/diagnosis/device_names.h"
#include "core/diagnosis/diagnosis_text.h"

namespace tilescope {

// The database GPUs whose opt-in shared memory per block is exactly `bytes` (Triton prints that
// limit as "Hardware limit"; 101,376 B -> every cc 8.6 / 8.9 / 12.0 GPU).
std::vector<std::string> devicesWithOptinLimit(const DeviceDatabase& devices, std::int64_t bytes);
// The database GPUs of one compute capability ("sm_89" in a CuTe DSL message -> every cc 8.9 GPU).
std::vector<std::string> devicesOfArchitecture(const DeviceDatabase& devices, ComputeCapability cc);
// The database GPUs whose opt-in limit holds `bytes` (where the same launch would fit).
std::vector<std::string> devicesWithOptinAtLeast(const DeviceDatabase& devices, std::int64_t bytes);

// A capability as stacks print it, major x 10 + minor (vLLM's "Current capability: 70", 120 for sm_120).
inline ComputeCapability capabilityOfVersion(std::int64_t version) {
    return {static_cast<int>(version / 10), static_cast<int>(version % 10)};
}

// PyTorch's warning that its build holds no code for the GPU, printed when CUDA initialises, often
// far before the error it explains (torch/cuda/__init__.py's incompatible_device_warn: "{device} with
// CUDA capability sm_{cc} is not compatible with the current PyTorch installation." then "The current
// PyTorch install supports CUDA capabilities {torch.cuda.get_arch_list()}."). The first one in the log.
struct BuildArchWarning {
    int line = -1;                   // 0-based: the "is not compatible" line
    std::string device;              // the GPU as torch names it ("NVIDIA TITAN Xp"); "" when the line cuts it
    ComputeCapability cc;            // the GPU's: sm_61 -> 6.1
    int listLine = -1;               // the supported list's line; -1 when the log does not show it
    std::vector<std::string> archs;  // that list as printed: "sm_70", ..., "sm_90a", "compute_37"
};
std::optional<BuildArchWarning> findBuildArchWarning(const LogText& log);

// PyTorch's warning that the GPU is below (or, in the range form, outside) the capabilities its build
// supports (torch/cuda/__init__.py's _check_capability, old_gpu_warn), printed when CUDA initialises:
// "Found GPU0 {name} which is of cuda capability 6.1." then, by version, "PyTorch no longer supports
// this GPU because it is too old." and "The minimum cuda capability supported by this library is
// 7.0." ("that we support is 3.5." before), or "Minimum and Maximum cuda capability supported by this
// version of PyTorch is" "(7.0) - (12.0)". The first one at or after line `from`.
struct OldGpuWarning {
    int line = -1;                             // 0-based: the "Found GPU" line
    int gpuIndex = 0;                          // the N of "GPU N"
    std::string device;                        // as torch names it ("Tesla P100-PCIE-16GB")
    ComputeCapability cc;                      // the GPU's
    int rangeLine = -1;                        // the line of the build's minimum; -1 when the log does not show it
    std::optional<ComputeCapability> minimum;  // the oldest capability the build supports
    std::optional<ComputeCapability> maximum;  // the newest, in the range form
};
std::optional<OldGpuWarning> findOldGpuWarning(const LogText& log, int from = 0);

// What a finding says of a limit printed under another vendor's stack (`line` is the log line that
// shows the stack): the limit is that vendor's GPU's, no NVIDIA GPU is implied, nothing is planned.
std::string otherVendorText(const VendorMention& vendor, std::string_view line);

// "0xc980" -> 51,584; nullopt for anything else.
std::optional<std::int64_t> parseHexBytes(std::string_view text);

// "10,944 = 85 x 128 + 64: the nearest multiples of 128 are 10,880 and 11,008".
std::string divisibilityText(std::int64_t value, std::int64_t divisor);

}  // namespace tilescope

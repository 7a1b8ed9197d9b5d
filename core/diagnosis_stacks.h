// What errors from stacks Tilescope does not bundle (Triton, ptxas, the CuTe DSL, vLLM's kernel
// checks) tell beyond their own text: the database GPUs a printed limit implies, a Triton autotuner
// config quoted in the log, and the `plan -k triton` / `plan -k custom` commands that replay the failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_spec.h"
#include "core/diagnosis_text.h"

namespace tilescope {

// The database GPUs whose opt-in shared memory per block is exactly `bytes` (Triton prints that
// limit as "Hardware limit"; 101,376 B -> every cc 8.6 / 8.9 / 12.0 GPU).
std::vector<std::string> devicesWithOptinLimit(const DeviceDatabase& devices, std::int64_t bytes);
// The database GPUs of one compute capability ("sm_89" in a CuTe DSL message -> every cc 8.9 GPU).
std::vector<std::string> devicesOfArchitecture(const DeviceDatabase& devices, ComputeCapability cc);
// The database GPUs whose opt-in limit holds `bytes` (where the same launch would fit).
std::vector<std::string> devicesWithOptinAtLeast(const DeviceDatabase& devices, std::int64_t bytes);

// The first line (0-based) of a log that shows it runs on AMD GPUs through ROCm / HIP, where Triton's
// "Hardware limit" is an AMD GPU's LDS and implies no NVIDIA GPU; -1 when none.
int findRocmMention(const LogText& log);

// One Triton autotuner parameter quoted in the log: "'BLOCK_SIZE_K': 64", "num_stages=4".
struct TritonConfigValue {
    std::string parameter;  // the triton family's name: BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps
    std::int64_t value = 0;
    int line = 0;  // 0-based
    std::string text;  // the line as the log gives it
};
// The config values quoted on the error's line or up to `window` lines before it, nearest first per
// parameter (a triton.Config(...) line, a kwargs dump, "BLOCK_M=128" in a message).
std::vector<TritonConfigValue> findTritonConfig(const LogText& log, int errorLine, int window);

// "0xc980" -> 51,584; nullopt for anything else.
std::optional<std::int64_t> parseHexBytes(std::string_view text);

// `tilescope-cli plan -k custom ...` for a launch the text gives only shared memory of: the custom
// family's other figures keep their defaults. `device` may be empty (the database default).
std::string customSharedMemoryCommand(std::string_view parameter, std::int64_t bytes, bool optIn, std::string_view device);

// "10,944 = 85 x 128 + 64: the nearest multiples of 128 are 10,880 and 11,008".
std::string divisibilityText(std::int64_t value, std::int64_t divisor);

}  // namespace tilescope

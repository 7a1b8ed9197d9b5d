// The GPUs a log names, as stacks and people write them: torch's get_device_name() strings
// ("NVIDIA GeForce RTX 3090 Ti", "Tesla V100-SXM2-32GB"), nvidia-smi rows, run-together and
// lowercase spellings ("RTX2080Ti", "rtx2080ti", "3090 TI"), counts ("2x RTX2080Ti", "x 8",
// "八卡3090"), architectures ("sm_86", "compute capability 8.6", "Pascal class") and the GPUs of
// other vendors (ROCm / HIP, Intel XPU, Apple MPS), whose limits are not an NVIDIA GPU's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnosis/diagnosis_text.h"
#include "core/model/device_spec.h"

namespace tilescope {

// An architecture named in text: "sm_89", "sm_100a", "SM120", "has compute capability 7.5",
// "Compute Capability: 9.0", xformers' "your GPU has capability (8, 9)".
std::optional<ComputeCapability> findArchitecture(std::string_view text);

// Whether `lower` (a lowercase line) lists the architectures a build supports rather than the GPU it
// runs on: PyTorch's "The current PyTorch install supports CUDA capabilities sm_70 sm_75 ..." and
// "Minimum and Maximum cuda capability supported by this version of PyTorch is (7.0) - (12.0)".
bool listsBuildArchitectures(std::string_view lower);

// The GPUs named on one line of a log.
struct DeviceMention {
    int line = 0;                         // 0-based
    std::vector<std::string> ids;         // database ids the names fit (empty: an architecture only)
    std::optional<ComputeCapability> cc;  // from an arch name on the line, or shared by every id
    std::string text;                     // the names as written ("2x RTX2080Ti"), then why some were dropped
    int count = 0;                        // how many GPUs the line says ("8x", "x 8", "八卡"); 0 when it does not
    bool architectureOnly = false;        // an architecture ("Pascal class", "sm_86") and no product
    // GPUs the text names as a requirement ("... requires A100/A800 or H100/H800", "only supports H100"),
    // in the same sentence, a wrapped one included: GPUs that would pass, never the log's own. A line
    // that names both makes two mentions, this one flagged.
    bool required = false;
};

// Every GPU the log names, in line order. Several products on one line make one mention (those it
// requires one more, flagged `required`); when the log prints an opt-in shared-memory limit
// ("Hardware limit: 101376"), products whose limit differs are dropped if another named product has
// it, and the mention's text says so.
std::vector<DeviceMention> findDeviceMentions(const LogText& log, const DeviceDatabase& devices);

// The database ids one piece of text names (see matchDeviceName in diagnosis.h); `matched` gets
// the names as written.
std::vector<std::string> matchProductName(std::string_view text, const DeviceDatabase& devices, std::string* matched);

// A GPU stack of another vendor in the log: its printed limits are that vendor's (an AMD GPU's
// LDS, an Intel GPU's SLM), so no NVIDIA GPU is implied and nothing is planned on one.
struct VendorMention {
    int line = -1;       // 0-based
    std::string vendor;  // "AMD ROCm / HIP"
    std::string memory;  // what its shared memory is called: "LDS"
};
std::optional<VendorMention> findOtherVendor(const LogText& log);

}  // namespace tilescope

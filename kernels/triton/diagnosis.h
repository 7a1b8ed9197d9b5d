// What `diagnose` knows of Triton: its OutOfResources texts (shared memory, threads), the
// autotuner config a log quotes, and how a failure is replayed as the triton family's plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_text.h"

namespace tilescope {

// One Triton autotuner parameter quoted in the log: "'BLOCK_SIZE_K': 64", "num_stages=4".
struct TritonConfigValue {
    std::string parameter;  // the triton family's name: BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps
    std::int64_t value = 0;
    int line = 0;      // 0-based
    std::string text;  // the line as the log gives it
};
// The config values quoted on the error's line or up to `window` lines before it, nearest first per
// parameter (a triton.Config(...) line, a kwargs dump, "BLOCK_M=128" in a message).
std::vector<TritonConfigValue> findTritonConfig(const LogText& log, int errorLine, int window);

}  // namespace tilescope

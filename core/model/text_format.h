// Number and list formatting shared by the planners' messages, the diagnosis and the CLI's tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope {

inline std::string str(std::int64_t value) { return std::to_string(value); }  // 4096 -> "4096"
std::string withThousands(std::int64_t value);                                // 101376 -> "101,376"
std::string joinList(const std::vector<std::string>& items);                  // {"a", "b"} -> "a, b"

}  // namespace tilescope

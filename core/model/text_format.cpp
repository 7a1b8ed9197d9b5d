#include "core/model/text_format.h"

namespace tilescope {

std::string withThousands(std::int64_t value) {
    const std::string digits = std::to_string(value);  // keeps INT64_MIN whole, unlike -value
    const std::size_t sign = value < 0 ? 1 : 0;
    std::string out = digits.substr(0, sign);
    for (std::size_t i = sign; i < digits.size(); ++i) {
        if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string joinList(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace tilescope

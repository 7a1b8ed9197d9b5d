#include "kernels/common/reference_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tilescope {

ReferenceCheck compareWithReference(const std::vector<double>& reference, const std::vector<float>& output, double bound) {
    ReferenceCheck check;
    check.bound = bound;
    if (reference.size() != output.size() || reference.empty()) {
        check.maxRelativeError = std::numeric_limits<double>::infinity();
        return check;
    }
    double scale = 0.0, worst = 0.0;
    bool finite = true;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double out = output[i];
        if (!std::isfinite(out)) finite = false;
        scale = std::max(scale, std::abs(reference[i]));
        worst = std::max(worst, std::abs(out - reference[i]));
    }
    check.maxRelativeError = finite ? worst / std::max(scale, std::numeric_limits<double>::min()) : std::numeric_limits<double>::infinity();
    check.passed = finite && check.maxRelativeError <= bound;
    return check;
}

}  // namespace tilescope

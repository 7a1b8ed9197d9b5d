#include "ui/shape_spin_box.h"

#include <limits>

namespace tilescope {

ShapeSpinBox::ShapeSpinBox(ParameterSpec parameter, QWidget* parent) : QSpinBox(parent), m_parameter(std::move(parameter)) {}

void ShapeSpinBox::stepBy(int steps) {
    // QSpinBox's own stepBy adds steps x singleStep; here a step is a move to the next accepted value.
    const std::int64_t next = steppedValue(m_parameter, value(), steps);
    constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
    setValue(static_cast<int>(std::min(next, kIntMax)));
    selectAll();
}

}  // namespace tilescope

// A parameter's spin box that steps by what the kernel accepts (core steppedValue): powers of two along
// Log2 parameters, multiples of the alignment along Linear ones, PageUp / PageDown double and halve.
#pragma once

#include <QSpinBox>
#include <utility>

#include "core/model/shape.h"

namespace tilescope {

class ShapeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit ShapeSpinBox(ParameterSpec parameter, QWidget* parent = nullptr);
    void stepBy(int steps) override;
    // A box whose parameter changes (a Boundaries or Tiles axis end) steps by the new one's rule.
    void setParameter(ParameterSpec parameter) { m_parameter = std::move(parameter); }

private:
    ParameterSpec m_parameter;
};

}  // namespace tilescope

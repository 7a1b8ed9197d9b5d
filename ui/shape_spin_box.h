// A parameter's spin box that steps by what the kernel accepts (core steppedValue): powers of two along
// Log2 parameters, multiples of the alignment along Linear ones, PageUp / PageDown double and halve.
#pragma once

#include <QSpinBox>

#include "core/shape.h"

namespace tilescope {

class ShapeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit ShapeSpinBox(ParameterSpec parameter, QWidget* parent = nullptr);
    void stepBy(int steps) override;

private:
    ParameterSpec m_parameter;
};

}  // namespace tilescope

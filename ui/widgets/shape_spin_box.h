// A parameter's spin box that steps by what the kernel accepts (core steppedValue): powers of two along
// Log2 parameters, multiples of the alignment along Linear ones, PageUp / PageDown double and halve.
// Typed input is committed on Enter or focus-out only (one plan, one undo step per edit), and a value
// outside the parameter's range is refused visibly (refused(), a tooltip at the box) instead of being
// clamped or losing the keystroke that took it out of range (issue 31 items 6 and 7).
#pragma once

#include <QSpinBox>
#include <utility>

#include "core/model/shape.h"

namespace tilescope {

// A parameter's 64-bit value as a QSpinBox's int, clamped to int's range.
int spinBoxValue(std::int64_t value);

class ShapeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit ShapeSpinBox(ParameterSpec parameter, QWidget* parent = nullptr);
    void stepBy(int steps) override;
    // A box whose parameter changes (a Boundaries or Tiles axis end) steps by the new one's rule and
    // takes its range.
    void setParameter(ParameterSpec parameter);
    // Any integer the user types stays in the editor until it is committed, in range or not.
    QValidator::State validate(QString& input, int& pos) const override;
    // The refusal shown now, empty when the last commit was accepted.
    QString refusal() const { return m_refusal; }

signals:
    // A committed text that is not a value of the parameter: the box went back to its value.
    void refused(const QString& message);
    void refusalCleared();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    void checkCommit();  // before QSpinBox commits (and would clamp or revert) the editor's text
    void setRefusal(const QString& message);
    ParameterSpec m_parameter;
    QString m_refusal;
};

}  // namespace tilescope

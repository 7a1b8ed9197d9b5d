#include "ui/widgets/shape_spin_box.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QLocale>
#include <QToolTip>
#include <algorithm>
#include <limits>

namespace tilescope {

namespace {

// The editor's text as a number: group separators and spaces go; nullopt when it is not an integer.
std::optional<std::int64_t> typedInteger(QString text, const QLocale& locale) {
    text.remove(locale.groupSeparator()).remove(QLatin1Char(',')).remove(QLatin1Char(' ')).remove(QChar(0x202F));
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    return ok ? std::optional<std::int64_t>(v) : std::nullopt;
}

}  // namespace

int spinBoxValue(std::int64_t value) {
    return static_cast<int>(std::clamp<std::int64_t>(value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

ShapeSpinBox::ShapeSpinBox(ParameterSpec parameter, QWidget* parent) : QSpinBox(parent), m_parameter(std::move(parameter)) {
    // valueChanged on Enter, focus-out and arrow steps, not on each keystroke: typing 9999999 was seven
    // plans and seven undo steps.
    setKeyboardTracking(false);
    setGroupSeparatorShown(true);
}

void ShapeSpinBox::setParameter(ParameterSpec parameter) {
    m_parameter = std::move(parameter);
    setRange(spinBoxValue(m_parameter.minimum), spinBoxValue(m_parameter.maximum));
}

void ShapeSpinBox::stepBy(int steps) {
    // QSpinBox's own stepBy adds steps x singleStep; here a step is a move to the next accepted value.
    setValue(spinBoxValue(steppedValue(m_parameter, value(), steps)));
    setRefusal({});
    selectAll();
}

QValidator::State ShapeSpinBox::validate(QString& input, int& pos) const {
    const QValidator::State own = QSpinBox::validate(input, pos);
    if (own != QValidator::Invalid) return own;
    // QSpinBox refuses the keystroke that leaves the range (300 in 0..255 stayed "30", a minus sign
    // vanished); keep it as intermediate so the commit can say why it is refused.
    const QString bare = input.trimmed();
    if (bare == QLatin1String("-") || bare == QLatin1String("+")) return QValidator::Intermediate;
    return typedInteger(bare, locale()) ? QValidator::Intermediate : QValidator::Invalid;
}

void ShapeSpinBox::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) checkCommit();
    QSpinBox::keyPressEvent(event);
}

void ShapeSpinBox::focusOutEvent(QFocusEvent* event) {
    checkCommit();
    QSpinBox::focusOutEvent(event);
}

void ShapeSpinBox::checkCommit() {
    QString text = lineEdit()->text();
    int pos = 0;
    if (QSpinBox::validate(text, pos) == QValidator::Acceptable) {
        setRefusal({});
        return;
    }
    const QString bare = text.trimmed();
    if (bare.isEmpty()) return;  // an emptied box goes back to its value, as QSpinBox does
    const QString name = QString::fromStdString(m_parameter.name);
    const QString range = QStringLiteral("%1 … %2").arg(QLocale().toString(minimum()), QLocale().toString(maximum()));
    const auto typed = typedInteger(bare, locale());
    setRefusal(typed ? tr("%1 = %2 refused: out of range (%3); still %4.").arg(name, bare, range, QLocale().toString(value()))
                     : tr("%1 = %2 refused: not a whole number (%3); still %4.").arg(name, bare, range, QLocale().toString(value())));
}

void ShapeSpinBox::setRefusal(const QString& message) {
    const bool wasRefused = !m_refusal.isEmpty();
    m_refusal = message;
    if (message.isEmpty()) {
        if (wasRefused) emit refusalCleared();
        return;
    }
    if (isVisible()) QToolTip::showText(mapToGlobal(QPoint(0, height())), message, this);
    emit refused(message);
}

}  // namespace tilescope

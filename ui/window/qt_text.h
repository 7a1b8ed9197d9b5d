// Conversions from core strings and colours to Qt ones, shared by every view.
#pragma once

#include <QColor>
#include <QLocale>
#include <QString>
#include <string_view>

#include "core/series/boundary_colours.h"

namespace tilescope {

inline QString toQString(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
inline QColor toQColor(Rgb colour) { return QColor(colour.r, colour.g, colour.b); }
// "86,016": figures as the CLI prints them, whatever the user's locale.
inline QString groupedNumber(double value) { return QLocale(QLocale::English, QLocale::UnitedStates).toString(value, 'f', 0); }

}  // namespace tilescope

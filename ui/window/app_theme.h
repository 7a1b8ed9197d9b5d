// The app's colours: the system's palette (what the platform theme gave at start), or Tilescope's
// own light or dark one. Plots and the verdict banner take their colours from the palette and
// redraw on QEvent::PaletteChange, so switching needs nothing else.
#pragma once

#include <QPalette>
#include <QString>
#include <QStringList>

namespace tilescope {

enum class AppTheme { System, Light, Dark };

QStringList appThemeNames();  // "system", "light", "dark" (settings, --theme)
QString appThemeName(AppTheme theme);
bool appThemeFromName(const QString& name, AppTheme* theme);  // false for an unknown name
QPalette darkPalette();
// Applies the theme to the whole application. The first call records the palette the platform
// gave, which System restores (Qt 6.4 has no colour-scheme query to follow it live).
void applyAppTheme(AppTheme theme);
AppTheme currentAppTheme();

}  // namespace tilescope

#include "ui/window/app_theme.h"

#include <QApplication>
#include <QStyle>

namespace tilescope {

namespace {

AppTheme g_current = AppTheme::System;

const QPalette& systemPalette() {
    static const QPalette palette = QApplication::palette();  // before any theme of ours is applied
    return palette;
}

}  // namespace

QStringList appThemeNames() { return {QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")}; }

QString appThemeName(AppTheme theme) { return appThemeNames().at(static_cast<int>(theme)); }

bool appThemeFromName(const QString& name, AppTheme* theme) {
    const auto index = appThemeNames().indexOf(name.trimmed().toLower());
    if (index < 0) return false;
    *theme = static_cast<AppTheme>(index);
    return true;
}

QPalette darkPalette() {
    // Greys far enough apart that alternating table rows, disabled text and the plots' grid stay
    // distinct; the highlight is the light theme's blue lifted so bars keep their contrast.
    const QColor window(0x2B, 0x2B, 0x2E), base(0x1E, 0x1E, 0x21), alternate(0x27, 0x27, 0x2B);
    const QColor text(0xE6, 0xE6, 0xE6), disabledText(0x80, 0x80, 0x85), highlight(0x3D, 0x8E, 0xD8);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(0x3A, 0x3A, 0x3F));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabledText);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xFF, 0x6B, 0x6B));
    p.setColor(QPalette::Light, QColor(0x45, 0x45, 0x4A));
    p.setColor(QPalette::Midlight, QColor(0x3A, 0x3A, 0x3F));
    p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x34));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x1A));
    p.setColor(QPalette::Shadow, QColor(0x0A, 0x0A, 0x0A));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, QColor(0xFF, 0xFF, 0xFF));
    p.setColor(QPalette::Link, QColor(0x6C, 0xB4, 0xF5));
    p.setColor(QPalette::LinkVisited, QColor(0xB0, 0x8C, 0xF0));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x55));
    return p;
}

void applyAppTheme(AppTheme theme) {
    const QPalette& system = systemPalette();
    switch (theme) {
        case AppTheme::System: QApplication::setPalette(system); break;
        case AppTheme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
        case AppTheme::Dark: QApplication::setPalette(darkPalette()); break;
    }
    g_current = theme;
}

AppTheme currentAppTheme() { return g_current; }

}  // namespace tilescope

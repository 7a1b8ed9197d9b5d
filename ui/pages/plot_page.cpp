#include "ui/pages/plot_page.h"

#include <QEvent>

namespace tilescope {

PlotPage::PlotPage(QWidget* parent) : QWidget(parent) {}

void PlotPage::scheduleRefresh() {
    if (isVisible()) refreshNow();
    else m_stale = true;
}

void PlotPage::refreshNow() {
    m_stale = false;
    refreshPlots();
}

void PlotPage::recolour() { refreshNow(); }

void PlotPage::showEvent(QShowEvent* event) {
    if (m_stale) refreshNow();
    QWidget::showEvent(event);
}

void PlotPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        // Queued: the page hears of a new palette before its plots do, and a redraw at once took their
        // old text colour (black labels on the dark theme restored at start, issue 31 item 8).
        if (!isVisible()) m_stale = true;
        else
            QMetaObject::invokeMethod(
                this,
                [this] {
                    if (isVisible()) recolour();
                    else m_stale = true;
                },
                Qt::QueuedConnection);
    }
    QWidget::changeEvent(event);
}

}  // namespace tilescope

#include "ui/plot_page.h"

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
        if (isVisible()) recolour();
        else m_stale = true;
    }
    QWidget::changeEvent(event);
}

}  // namespace tilescope

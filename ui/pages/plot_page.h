// PlotPage: the refresh lifecycle the plot pages share (kcachegrind's updateView -> doUpdate).
// A page draws its plots only while it is shown: a change to a hidden page marks it stale and it
// catches up when shown, so a held spin box costs the GUI thread the visible page alone. A palette
// change (light/dark) redraws too, because series colours come from the palette.
#pragma once

#include <QWidget>

namespace tilescope {

class PlotPage : public QWidget {
    Q_OBJECT
protected:
    explicit PlotPage(QWidget* parent = nullptr);

    // Draws now when the page is visible, else when it is next shown.
    void scheduleRefresh();
    // Draws now, shown or not (the first draw, the page's own controls).
    void refreshNow();

    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;  // palette changes recolour the plots

private:
    // The page's plots, and what is drawn with them, from the current inputs.
    virtual void refreshPlots() = 0;
    // A palette change on a shown page; the whole draw unless a page can recolour for less.
    virtual void recolour();

    bool m_stale = false;
};

}  // namespace tilescope

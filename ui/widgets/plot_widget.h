// PlotWidget: a QCustomPlot that follows the application palette (light or dark) and saves
// itself as PNG or PDF from its context menu. Pages copy ready series into it.
#pragma once

#include <QHash>
#include <qcustomplot.h>

namespace tilescope {

class PlotWidget : public QCustomPlot {
    Q_OBJECT
public:
    explicit PlotWidget(QWidget* parent = nullptr);

    // Saves by the file's suffix (.png or .pdf); false on an unknown suffix or a write error. Either
    // carries the export key (setExportKey) under the plot.
    bool exportTo(const QString& fileName);
    // Rich text outside the plot that explains its colours (the Boundaries page's verdict legend, its
    // swatches as coloured spans): an exported PNG or a report's figure without it showed colours
    // nobody could read (issue #31). Empty: the plot alone.
    void setExportKey(const QString& html) { m_exportKey = html; }
    // The plot at width x height (scaled by `scale`) with the export key laid out under it at that width.
    QImage imageWithKey(int width, int height, qreal scale = 1.0);
    // Text and grid colours from the current palette; called again on palette changes.
    void applyPalette();
    QColor textColour() const;
    // An axis's titles, longest first: the axis shows the longest its length holds, chosen again after
    // each replot (a title longer than its axis is cut at both ends; a dock can shorten an axis to
    // ~150 px). A plain setLabel() stays as it is.
    void setAxisTitles(QCPAxis* axis, const QStringList& longestFirst);
    // Shows the legend in a row of its own under the axis rect, filled row by row, at most entriesPerRow
    // to a row (fewer where the plot is too narrow for them), so it never covers a curve or a label.
    void placeLegendBelow(int entriesPerRow);

protected:
    void changeEvent(QEvent* event) override;

private:
    void showContextMenu(const QPoint& position);
    void styleAxis(QCPAxis* axis);
    bool savePngWithKey(const QString& fileName);
    bool savePdfWithKey(const QString& fileName);

    void fitLegendColumns();
    bool fitAxisTitles();  // true when a title changed

    QString m_exportKey;
    QHash<QCPAxis*, QStringList> m_axisTitles;
    int m_legendColumns = 0;  // placeLegendBelow's entries a row at most; 0: the legend is not below
};

// The compare-device's curves and capacity lines (the main device's colour comes from the palette).
inline const QColor kCompareDeviceColour{0xE6, 0x9F, 0x00};

// A plain legend text for QCustomPlot items with the palette's text colour.
QCPItemText* addPlotLabel(PlotWidget* plot, const QString& text);

}  // namespace tilescope

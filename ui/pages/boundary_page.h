// BoundaryPage: a 2-D verdict map over any two parameters (1-D with one), hover for the
// message, click to move the shape there, the current shape as a crosshair, the
// compare-device's ok boundary as an outline, and the planner's split-count regions as dotted
// lines with their counts. Maps are computed off the GUI thread; a
// generation counter drops results older than the one on screen.
#pragma once

#include <QFutureWatcher>
#include <QImage>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/series/boundary_colours.h"
#include "core/model/sweep.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QCPItemPixmap;
class QCPItemStraightLine;
class QCPCurve;
class QCPItemText;

namespace tilescope {

class ExplorerState;
class PlotWidget;
class ShapeSpinBox;

// Everything one background evaluation needs, copied so the GUI may change meanwhile.
struct BoundaryJob {
    quint64 generation = 0;
    KernelChoice kernel;
    DeviceSpec device;
    std::optional<DeviceSpec> compare;
    Shape base;
    SweepAxis x;
    std::optional<SweepAxis> y;
};

struct BoundaryResult {
    quint64 generation = 0;
    BoundaryMap map;
    QImage image;  // one pixel per cell, from core verdictImage()
    // Where the planner's split count (split-KV num_splits, split-K) changes between ok cells,
    // and one label per large region of one count (core splitBoundaryOutline / splitRegionLabels).
    std::vector<OutlineSegment> splitOutline;
    std::vector<SplitRegionLabel> splitLabels;
    std::pair<int, int> splitRange{1, 1};
    // Where a stack's dispatch switches to dequantize + cuBLAS (core dispatchBoundaryOutline).
    std::vector<OutlineSegment> dispatchOutline;
    std::vector<OutlineSegment> compareOutline;
    std::optional<std::array<std::int64_t, kAllVerdicts.size()>> compareCounts;
};

std::shared_ptr<const BoundaryResult> computeBoundary(const BoundaryJob& job);

class BoundaryPage : public QWidget {
    Q_OBJECT
public:
    explicit BoundaryPage(ExplorerState* state, QWidget* parent = nullptr);
    ~BoundaryPage() override;

    // Axes over whole default ranges; yParameter < 0 selects the 1-D mode.
    void setAxes(int xParameter, int yParameter, int cells);
    // An exact axis (from --x / --y); its parameter must belong to the current family.
    void setAxis(bool isY, const SweepAxis& axis);
    void clearYAxis();  // the 1-D mode, keeping the X axis as it is
    const SweepAxis& xAxis() const { return m_x; }
    const std::optional<SweepAxis>& yAxis() const { return m_y; }

    const BoundaryResult* result() const { return m_result.get(); }
    bool isBusy() const;                      // a map for the current inputs is not on screen yet
    QPoint cellCentre(int ix, int iy) const;  // in plot-widget pixels
    QString cellDescription(int ix, int iy) const;
    PlotWidget* plot() const { return m_plot; }
    QCPCurve* splitOutlineCurve() const { return m_splitOutline; }
    QCPCurve* dispatchOutlineCurve() const { return m_dispatchOutline; }
    QStringList splitLabelTexts() const;  // the region labels on the plot, largest region first
    QString legendText() const;
    QComboBox* xParameterBox() const { return m_xParameter; }
    QComboBox* yParameterBox() const { return m_yParameter; }
    QSpinBox* xFromBox() const;
    QSpinBox* xToBox() const;
    QSpinBox* yFromBox() const;
    QSpinBox* yToBox() const;
    QSpinBox* cellsBox() const { return m_cells; }
    QString cellTotalText() const;       // "128 x 128 = 16,384 cells", and why an axis holds fewer
    double compareOutlineWidth() const;  // pixels: thinner than a cell, so dense maps keep an outline

signals:
    void mapShown(quint64 generation);
    // The page needs another height to show its legend and axis titles whole (the main window
    // gives a page that cannot scroll what it needs; issue 31 item 4).
    void minimumHeightChanged();

protected:
    void changeEvent(QEvent* event) override;  // after the plot was replotted with a new map
    void resizeEvent(QResizeEvent* event) override;

private:
    void resetAxesForFamily();
    void rebuildParameterBoxes();
    void axisControlsEdited();
    void axisParameterChosen(bool isY, int parameter);
    void syncAxisControls();
    void updateCellTotal();
    void fitOutlineToCells();  // before each replot: outline width from the cell size in pixels
    // An axis over `parameter` with the range the user last gave it in this family, else its default.
    SweepAxis explorerAxis(int parameter, int cells) const;
    const std::pair<std::int64_t, std::int64_t>* rememberedRange(int parameter) const;
    void rememberRange(const SweepAxis& axis);
    void requestMap();
    void startJob();
    void jobFinished();
    void showResult();
    void updateCrosshair();
    void showSplitRegions();
    void updateLegend();
    void fitMinimumHeight();  // the legend's wrapped height
    std::optional<std::pair<int, int>> cellAt(const QPoint& pixel) const;
    void hover(QMouseEvent* event);
    void click(QMouseEvent* event);

    ExplorerState* m_state;
    PlotWidget* m_plot;
    QCPItemPixmap* m_pixmap;
    QCPItemStraightLine* m_crossX;
    QCPItemStraightLine* m_crossY;
    QCPCurve* m_outline;
    QCPCurve* m_splitOutline;
    QCPCurve* m_dispatchOutline;
    std::vector<QCPItemText*> m_splitLabels;
    QLabel* m_legend;
    QComboBox* m_xParameter;
    QComboBox* m_yParameter;
    ShapeSpinBox* m_xFrom;
    ShapeSpinBox* m_xTo;
    ShapeSpinBox* m_yFrom;
    ShapeSpinBox* m_yTo;
    QSpinBox* m_cells;
    QLabel* m_cellTotal;
    QString m_fewerNote;  // why an axis holds fewer cells than asked for; the legend repeats it
    // Axis ranges the user set, per "family/parameter": they survive variant, axis and family changes.
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> m_ranges;

    SweepAxis m_x;
    std::optional<SweepAxis> m_y;
    QFutureWatcher<std::shared_ptr<const BoundaryResult>>* m_watcher;
    quint64 m_generation = 0;       // the newest request
    quint64 m_shownGeneration = 0;  // the map on screen
    bool m_pending = false;         // a request arrived while a job was running
    std::shared_ptr<const BoundaryResult> m_result;
    std::optional<BoundaryJob> m_lastJob;  // inputs of the newest request, to skip no-op recomputes
};

}  // namespace tilescope

// TilesPage: the tile or bucket the planner chooses along one parameter (e.g. M -> a bucketed
// planner's cell staircase with its padding waste, head_dim -> the tile an attention planner picks).
#pragma once

#include "core/series/tile_series.h"
#include "ui/pages/plot_page.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace tilescope {

class ExplorerState;
class KernelFamily;
class PlotWidget;
class ShapeSpinBox;

class TilesPage : public PlotPage {
    Q_OBJECT
public:
    explicit TilesPage(ExplorerState* state, QWidget* parent = nullptr);

    void setParameter(int parameter);
    const TileSeries& series() const { return m_series; }
    PlotWidget* plot() const { return m_plot; }
    QLabel* figuresLabel() const { return m_figures; }
    QSpinBox* fromBox() const;
    QSpinBox* toBox() const;
    QString summaryText() const;

private:
    void resetForFamily();
    // The series along the chosen axis, its plot and the figures and summary under it.
    void refreshPlots() override;

    ExplorerState* m_state;
    const KernelFamily* m_family = nullptr;  // a new variant of it keeps the parameter and range
    PlotWidget* m_plot;
    QComboBox* m_parameter;
    ShapeSpinBox* m_from;
    ShapeSpinBox* m_to;
    QLabel* m_summary;
    QLabel* m_figures;  // per tile / cell: tiles, swap, CTAs against the SM count (TileSeries::figures)
    TileSeries m_series;
};

}  // namespace tilescope

// PerformancePage: the open trace's measured sweep (1-D, or a line per value of a second
// parameter; a line per GPU where two GPUs' sweeps are loaded) as time, TFLOP/s, GB/s or % of
// roofline against the swept parameter, with the model-mode estimate dashed, the plan changes as
// dotted lines and each cliff marked with the plan change that explains it, or "unexplained".
// The series comes ready from core/performance_series; this page only draws it.
#pragma once

#include <vector>

#include "core/series/performance_series.h"
#include "ui/pages/plot_page.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableWidget;
class QCPGraph;

namespace tilescope {

class CalibrationStore;
class ExplorerState;
class PlotWidget;
class TraceDocument;

class PerformancePage : public PlotPage {
    Q_OBJECT
public:
    PerformancePage(TraceDocument* document, CalibrationStore* calibrations, QWidget* parent = nullptr);

    PlotWidget* plot() const { return m_plot; }
    QComboBox* sweepBox() const { return m_sweep; }
    QComboBox* metricBox() const { return m_metric; }
    QComboBox* estimateBox() const { return m_estimate; }
    QLabel* rooflineLabel() const { return m_roofline; }
    QLabel* cliffsLabel() const { return m_cliffs; }
    QLabel* emptyLabel() const { return m_empty; }
    QLineEdit* sweepCommandBox() const { return m_command; }  // the empty page's command to paste
    QTableWidget* table() const { return m_table; }
    const PerformanceSeries& series() const { return m_series; }
    bool isEmptyState() const;
    // The empty page's advice: a `tilescope-cli sweep --run` command to paste (empty: the generic form).
    void setSweepSuggestion(const QString& command);
    // Keeps that command on the Shape panel's kernel, variant, device and shape.
    void followShapePanel(const ExplorerState* state);
    void setMetric(PerformanceMetric metric);

private:
    void rebuildSweeps();          // the trace changed: find its sweeps
    void refreshPlots() override;  // the series of the chosen sweep
    void recolour() override;      // the palette changed: redraw() the same series
    void redraw();                 // the plot and table in the chosen metric
    void fillTable();
    void showPointTip(QMouseEvent* event);

    TraceDocument* m_document;
    CalibrationStore* m_calibrations;
    std::vector<MeasuredSweep> m_sweeps;
    PerformanceSeries m_series;
    QStackedWidget* m_stack;
    QWidget* m_emptyPage;
    QLabel* m_empty;
    QLineEdit* m_command;
    QComboBox* m_sweep;
    QComboBox* m_metric;
    QComboBox* m_estimate;
    QLabel* m_roofline;
    PlotWidget* m_plot;
    QLabel* m_cliffs;
    QLabel* m_notes;
    QTableWidget* m_table;
    std::vector<QCPGraph*> m_lineGraphs;  // the measured graph of each series line, for the hover tip
};

}  // namespace tilescope

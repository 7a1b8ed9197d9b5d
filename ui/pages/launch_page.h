// LaunchPage: grid, block, threads, shared memory, registers and waves, each as a bar against
// its device limit (red where over, limits named), above the same figures as a table; a call
// of two kernels (a split-KV combine after the main one) shows the second launch's bars below the first's.
#pragma once

#include "ui/pages/plot_page.h"

class QLabel;
class QStackedWidget;
class QTableView;
class QCPBars;

namespace tilescope {

class ExplorerState;
class LaunchModel;
class PlotWidget;

class LaunchPage : public PlotPage {
    Q_OBJECT
public:
    explicit LaunchPage(ExplorerState* state, QWidget* parent = nullptr);

    LaunchModel* model() const { return m_model; }
    // Shown instead of the chart and table when the plan has no launch (refused before a kernel was
    // chosen): says why, so no default 1x1x1 launch is drawn as if it were one.
    QLabel* noLaunchLabel() const { return m_noLaunch; }
    bool showsNoLaunch() const;
    PlotWidget* plot() const { return m_plot; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The model follows every change; the plot is rebuilt only while the page is visible.
    void updateModel();
    void refreshPlots() override;

    ExplorerState* m_state;
    LaunchModel* m_model;
    PlotWidget* m_plot;
    QCPBars* m_within;
    QCPBars* m_over;
    QTableView* m_table;
    QStackedWidget* m_stack;
    QLabel* m_noLaunch;
};

}  // namespace tilescope

// SharedMemoryPage: every tile candidate the planner tried, its bytes against the shared-memory
// capacity line of each device, the chosen one highlighted.
#pragma once

#include "ui/pages/plot_page.h"

class QLabel;
class QTableView;

namespace tilescope {

class CandidateModel;
class ExplorerState;
class PlotWidget;

class SharedMemoryPage : public PlotPage {
    Q_OBJECT
public:
    explicit SharedMemoryPage(ExplorerState* state, QWidget* parent = nullptr);

    CandidateModel* model() const { return m_model; }
    PlotWidget* plot() const { return m_plot; }

private:
    // The model follows every change; the plot is rebuilt only while the page is visible.
    void updateModel();
    void refreshPlots() override;

    ExplorerState* m_state;
    CandidateModel* m_model;
    PlotWidget* m_plot;
    QTableView* m_table;
    QLabel* m_note;
};

}  // namespace tilescope

// OccupancyPage: the CUDA occupancy calculator's three graphs — active warps per SM against
// block size, registers per thread and shared memory per block — with the current
// configuration marked, the limiter named and the compare-device as a second series.
#pragma once

#include "ui/pages/plot_page.h"

class QLabel;
class QSpinBox;

namespace tilescope {

class ExplorerState;
class PlotWidget;
struct DeviceSpec;
struct OccupancyCurveInput;

class OccupancyPage : public PlotPage {
    Q_OBJECT
public:
    explicit OccupancyPage(ExplorerState* state, QWidget* parent = nullptr);

    PlotWidget* blockSizePlot() const { return m_plots[0]; }
    PlotWidget* registersPlot() const { return m_plots[1]; }
    PlotWidget* sharedMemoryPlot() const { return m_plots[2]; }
    QSpinBox* assumedRegistersBox() const { return m_assumedRegisters; }
    QString summary() const;

private:
    // The plots and the summary beside them.
    void refreshPlots() override;

    ExplorerState* m_state;
    PlotWidget* m_plots[3];
    QSpinBox* m_assumedRegisters;
    QLabel* m_summary;
    QLabel* m_key;  // the three plots' shared legend: each device's curve colour and its current point
};

}  // namespace tilescope

// MainWindow: the shape panel (dock), the verdict banner and the five pages over one
// ExplorerState; menus, status bar, settings and the offscreen screenshot.
#pragma once

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace tilescope {

class BoundaryPage;
class DiagnoseDock;
class ExplorerState;
class LaunchPage;
class OccupancyPage;
class ShapePanelWidget;
class SharedMemoryPage;
class TilesPage;
class VerdictBannerWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // useSettings = false: neither read nor write QSettings (tests, scripted screenshots).
    explicit MainWindow(bool useSettings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    ExplorerState* state() const { return m_state; }
    ShapePanelWidget* shapePanel() const { return m_shapePanel; }
    VerdictBannerWidget* banner() const { return m_banner; }
    LaunchPage* launchPage() const { return m_launch; }
    OccupancyPage* occupancyPage() const { return m_occupancy; }
    SharedMemoryPage* sharedMemoryPage() const { return m_sharedMemory; }
    BoundaryPage* boundaryPage() const { return m_boundary; }
    TilesPage* tilesPage() const { return m_tiles; }
    QTabWidget* pages() const { return m_pages; }
    DiagnoseDock* diagnoseDock() const { return m_diagnoseDock; }

    // launch, occupancy, shared-memory, boundaries, tiles
    static QStringList pageNames();
    bool showPage(const QString& name);
    QString statusText() const;

    // Waits (events running) until the boundary map is current, at most timeoutMs.
    bool waitUntilIdle(int timeoutMs);
    // Renders the window at `size` and writes a PNG; false on a write error.
    bool saveScreenshot(const QString& fileName, QSize size);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void refreshTitle();
    void loadSettings();
    void saveSettings() const;
    void exportCurrentPlot();
    void addDiagnoseDock();  // the Diagnose dock, File > Open Model Config and its View toggle

    bool m_useSettings;
    ExplorerState* m_state;
    ShapePanelWidget* m_shapePanel;
    VerdictBannerWidget* m_banner;
    QTabWidget* m_pages;
    LaunchPage* m_launch;
    OccupancyPage* m_occupancy;
    SharedMemoryPage* m_sharedMemory;
    BoundaryPage* m_boundary;
    TilesPage* m_tiles;
    QLabel* m_statusLabel;
    DiagnoseDock* m_diagnoseDock = nullptr;
};

}  // namespace tilescope

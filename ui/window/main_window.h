// MainWindow: the shape panel (dock), the verdict banner and the pages over one
// ExplorerState (eight with the trace side: Runs, Timeline and Perf, main_window_trace.cpp); menus, status bar, settings, screenshot.
#pragma once

#include <QMainWindow>
#include <QMessageBox>

#include "ui/window/app_theme.h"
#include <functional>
#include <vector>

class QLabel;
class QMenu;
class QAction;
class QProgressDialog;
class QScreen;
class QShortcut;
class QTabWidget;

namespace tilescope {

class BoundaryPage;
class CalibrationStore;
class DiagnoseDock;
class GpuRunController;
class RunsPage;
class TimelinePage;
class TraceDocument;
struct Run;
class ExplorerState;
class LaunchPage;
class OccupancyPage;
class PerformancePage;
class ShapePanelWidget;
class SharedMemoryPage;
class TilesPage;
class BackendsPage;
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
    BackendsPage* backendsPage() const { return m_backends; }
    QTabWidget* pages() const { return m_pages; }
    DiagnoseDock* diagnoseDock() const { return m_diagnoseDock; }

    // launch, occupancy, shared-memory, boundaries, tiles, runs, timeline, performance
    static QStringList pageNames();
    bool showPage(const QString& name);
    QString statusText() const;
    // View > Theme: applies the palette to the app, ticks the menu entry and (with settings) keeps it.
    void setTheme(AppTheme theme);

    // --- Traces, GPU runs and reports (main_window_trace.cpp) ---
    TraceDocument* document() const { return m_document; }
    RunsPage* runsPage() const { return m_runs; }
    TimelinePage* timelinePage() const { return m_timeline; }
    PerformancePage* performancePage() const { return m_performance; }
    CalibrationStore* calibrations() const { return m_calibrations; }
    GpuRunController* gpuRuns() const { return m_gpu; }
    // Where errors go: a warning dialog by default; tests capture them instead of blocking.
    using MessageSink = std::function<void(const QString& title, const QString& text)>;
    void setMessageSink(MessageSink sink) { m_messageSink = std::move(sink); }
    // Asked before unsaved runs would be lost (the window closes, another trace opens): Save,
    // Discard or Cancel. A question box by default; tests answer it instead of blocking.
    using UnsavedRunsQuestion = std::function<QMessageBox::StandardButton(const QString& text)>;
    void setUnsavedRunsQuestion(UnsavedRunsQuestion question) { m_unsavedRunsQuestion = std::move(question); }
    // True when nothing unsaved would be lost, or the user saved or chose to discard it.
    bool confirmUnsavedRuns();
    // Reads a native or a PyTorch profiler trace off the GUI thread (progress, cancel); on an
    // error the reader's message goes to the sink and the open trace stays. Asks first when the
    // open trace has unsaved runs.
    void openTrace(const QString& path);
    // File > Open Build Log…: the kernels of a ptxas report, an Nsight Compute CSV or a profiler trace;
    // the chosen one opens, with its figures, as the family that takes a launch's own figures. False when
    // nothing was opened.
    bool openBuildLog(const QString& path);
    bool isLoading() const { return m_loading != nullptr; }
    bool saveTraceTo(const QString& path);
    // What File > Save Trace As offers: the open trace's name as a *.tilescope.json.
    QString defaultTraceFileName() const;
    bool exportReportTo(const QString& path);
    // The bundled folders, next to the install prefix, else in the source tree: example traces
    // (File > Open Example) and checkpoint configs (File > Open Model Config).
    static QString samplesFolder();
    static QString modelsFolder();
    QAction* runAction() const { return m_runAction; }
    QAction* undoAction() const { return m_undoAction; }
    QAction* sweepAction() const { return m_sweepAction; }
    QAction* calibrateAction() const { return m_calibrateAction; }
    void runOnGpu();
    void sweepOnGpu();
    // GPU > Calibrate: measures this GPU's roofline in the worker; kept per GPU + driver (CalibrationStore).
    void calibrateGpu();

    // Waits (events running) until the boundary map is current, at most timeoutMs.
    bool waitUntilIdle(int timeoutMs);
    // Renders the window at `size` and writes a PNG; false on a write error.
    bool saveScreenshot(const QString& fileName, QSize size);

    // The window's smallest size, bounded by the screen's: it never outgrows the screen it is on.
    static constexpr QSize kMinimumWindowSize{800, 500};
    // The pages' smallest size, and more when the current page asks for more (fitPagesMinimum).
    static constexpr QSize kPagesMinimumSize{480, 180};
    static constexpr int kPlotPageMinimumHeight = 320;  // a page that does not scroll (all but Launch)

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    static QString bundledFolder(const QString& name);
    void fitToScreen(const QScreen* screen);
    void fitPagesMinimum();  // the page area's minimum: the current page's, not the tallest page's
    void buildMenus();
    void refreshTitle();
    void loadSettings();
    void saveSettings() const;
    void exportCurrentPlot();
    void addDiagnoseDock();  // the Diagnose dock, File > Open Model Config and its View toggle

    // Traces, GPU runs and reports (main_window_trace.cpp).
    void buildTracePages();
    void buildTraceMenus();
    void showMessage(const QString& title, const QString& text);
    // Hides a progress dialog at once (its error box comes next) and deletes it later; sets it to null.
    static void closeProgress(QProgressDialog*& dialog);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void refreshGpuActions();
    void onGpuFinished(std::vector<Run> runs, const QString& failure);
    void refreshCalibrateAction();
    void openTraceDialog();
    void saveTrace();
    void saveTraceAs();
    void exportReportDialog();

    TraceDocument* m_document = nullptr;
    RunsPage* m_runs = nullptr;
    TimelinePage* m_timeline = nullptr;
    PerformancePage* m_performance = nullptr;
    CalibrationStore* m_calibrations = nullptr;
    GpuRunController* m_gpu = nullptr;
    MessageSink m_messageSink;
    UnsavedRunsQuestion m_unsavedRunsQuestion;
    QObject* m_loading = nullptr;  // the running open's watcher
    QProgressDialog* m_loadProgress = nullptr;
    QProgressDialog* m_gpuProgress = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_undoAction = nullptr;
    QAction* m_sweepAction = nullptr;
    QAction* m_calibrateAction = nullptr;
    QShortcut* m_runUnavailableShortcut = nullptr;  // Ctrl+G while Run is off: says why
    // First entry of the GPU menu while no run is possible: why, in the menu itself (not only a tooltip).
    QAction* m_gpuStateAction = nullptr;
    QLabel* m_traceLabel = nullptr;

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
    BackendsPage* m_backends = nullptr;
    QLabel* m_statusLabel;
    DiagnoseDock* m_diagnoseDock = nullptr;
    bool m_diagnoseDockSized = false;  // the dock got its first height (two fifths of the window)
    bool m_followsScreen = false;      // fitToScreen() is connected to the native window's screenChanged
};

}  // namespace tilescope

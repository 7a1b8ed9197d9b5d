// MainWindow's trace side: the Runs and Timeline pages, File > Open / Save / Import / Open
// Example / Export Report, recent files, drag and drop, and the GPU menu (runs through the worker).
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QtConcurrent>
#include <atomic>
#include <memory>

#include "core/trace/kineto_import.h"
#include "ui/pages/boundary_page.h"
#include "ui/docks/build_log_dialog.h"
#include "ui/window/calibration_store.h"
#include "ui/window/explorer_state.h"
#include "ui/window/gpu_run_controller.h"
#include "ui/window/main_window.h"
#include "ui/pages/performance_page.h"
#include "ui/window/qt_text.h"
#include "ui/window/report_exporter.h"
#include "ui/models/run_model.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/timeline_page.h"
#include "ui/window/trace_document.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {

namespace {

constexpr int kMaxRecentFiles = 8;
const QString kRecentKey = QStringLiteral("trace/recent");
const QString kTraceFilter = QStringLiteral("Traces (*.tilescope.json *.json *.json.gz *.jsonl *.jsonl.gz);;All files (*)");

// What the import thread reports: progress in per mille (the bar's range), and its result.
struct LoadState {
    std::atomic<int> perMille{0};
    std::atomic<bool> cancelled{false};  // a profiler-trace import stops at its next read
};

}  // namespace

void MainWindow::buildTracePages() {
    m_document = new TraceDocument(this);
    m_gpu = new GpuRunController(this);
    m_runs = new RunsPage(m_state, m_document);
    m_timeline = new TimelinePage(m_document);
    m_pages->addTab(m_runs, tr("&Runs"));
    m_pages->addTab(m_timeline, tr("T&imeline"));
    // Measured performance of a sweep in the trace against the roofline (issue 14).
    m_calibrations = new CalibrationStore(m_useSettings, this);
    m_performance = new PerformancePage(m_document, m_calibrations);
    m_performance->followShapePanel(m_state);
    // "Perf": with "Performance" the eight tabs were ~30 px wider than the pages at 1,024 px, and the
    // Launch tab hid behind scroll arrows (eliding every tab left "R…" for Runs).
    const int performanceTab = m_pages->addTab(m_performance, tr("&Perf"));
    m_pages->setTabToolTip(performanceTab,
                           tr("Performance: a measured sweep's time, TFLOP/s, GB/s and % of roofline against the swept parameter"));
    auto useCalibrations = [this] { m_runs->model()->setCalibrations(m_calibrations->calibrations()); };
    connect(m_calibrations, &CalibrationStore::changed, this, useCalibrations);
    useCalibrations();
    m_traceLabel = new QLabel;
    statusBar()->addPermanentWidget(m_traceLabel);
    setAcceptDrops(true);
    auto refreshLabel = [this] {
        const QString mark = m_document->isModified() ? QStringLiteral(" *") : m_document->isImported() ? tr(" (imported)") : QString();
        m_traceLabel->setText(m_document->isEmpty() ? tr("no trace") : tr("trace: %1%2").arg(m_document->displayName(), mark));
    };
    connect(m_document, &TraceDocument::traceChanged, this, refreshLabel);
    connect(m_document, &TraceDocument::pathChanged, this, refreshLabel);
    refreshLabel();
    connect(m_gpu, &GpuRunController::availabilityChanged, this, &MainWindow::refreshGpuActions);
    connect(m_state, &ExplorerState::kernelChanged, this, &MainWindow::refreshGpuActions);  // a family may have nothing to run
    connect(m_gpu, &GpuRunController::finished, this, &MainWindow::onGpuFinished);
    connect(m_gpu, &GpuRunController::progress, this, [this](int done, int total) {
        if (!m_gpuProgress) return;
        m_gpuProgress->setMaximum(total);
        m_gpuProgress->setValue(done);
        m_gpuProgress->setLabelText(tr("Running on the GPU: %1 of %2 finished").arg(done).arg(total));
    });
}

void MainWindow::buildTraceMenus() {
    QMenu* file = menuBar()->actions().front()->menu();
    QAction* first = file->actions().front();
    auto add = [&](const QString& text, auto slot, QKeySequence key = {}) {
        auto* action = new QAction(text, this);
        connect(action, &QAction::triggered, this, slot);
        if (!key.isEmpty()) action->setShortcut(key);
        file->insertAction(first, action);
        return action;
    };
    add(tr("&Open Trace…"), &MainWindow::openTraceDialog, QKeySequence::Open);
    m_recentMenu = new QMenu(tr("Open &Recent"), this);
    file->insertMenu(first, m_recentMenu);
    QMenu* examples = new QMenu(tr("Open E&xample"), this);
    const QDir samples(samplesFolder());
    for (const QString& name :
         samples.entryList({QStringLiteral("*.json.gz"), QStringLiteral("*.tilescope.json")}, QDir::Files, QDir::Name))
        examples->addAction(name, this, [this, path = samples.filePath(name)] { openTrace(path); });
    if (examples->isEmpty()) examples->addAction(tr("(no samples found)"))->setEnabled(false);
    file->insertMenu(first, examples);
    add(tr("&Import PyTorch Profiler Trace…"), [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import PyTorch profiler trace"), {},
                                                          tr("Chrome traces (*.json *.json.gz *.pt.trace.json);;All files (*)"));
        if (!path.isEmpty()) openTrace(path);
    });
    add(tr("Open &Build Log…"), [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open build log or profile"), {},
            tr("ptxas reports, Nsight Compute CSV, profiler traces (*.log *.txt *.csv *.json *.json.gz);;All files (*)"));
        if (!path.isEmpty()) openBuildLog(path);
    });
    add(tr("&Save Trace"), &MainWindow::saveTrace, QKeySequence::Save);
    add(tr("Save Trace &As…"), &MainWindow::saveTraceAs, QKeySequence::SaveAs);
    add(tr("Export &Report…"), &MainWindow::exportReportDialog, QKeySequence(Qt::CTRL | Qt::Key_R));
    file->insertSeparator(first);
    rebuildRecentMenu();

    auto* gpu = new QMenu(tr("&GPU"), this);
    menuBar()->insertMenu(menuBar()->actions().back(), gpu);  // before Help
    m_gpuStateAction = gpu->addAction(QString());
    m_gpuStateAction->setObjectName(QStringLiteral("gpuStateAction"));
    m_gpuStateAction->setEnabled(false);
    gpu->addSeparator();
    m_runAction = gpu->addAction(tr("&Run This Shape on the GPU"), this, &MainWindow::runOnGpu);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    m_runUnavailableShortcut = new QShortcut(m_runAction->shortcut(), this);
    m_runUnavailableShortcut->setObjectName(QStringLiteral("runUnavailableShortcut"));
    connect(m_runUnavailableShortcut, &QShortcut::activated, this, [this] {
        statusBar()->showMessage(tr("GPU > Run is off: %1").arg(m_runUnavailableShortcut->property("why").toString()), 10000);
    });
    m_sweepAction = gpu->addAction(tr("&Sweep the Boundary Map on the GPU"), this, &MainWindow::sweepOnGpu);
    gpu->addSeparator();
    m_calibrateAction = gpu->addAction(tr("&Calibrate the Roofline"), this, &MainWindow::calibrateGpu);
    m_calibrateAction->setObjectName(QStringLiteral("calibrateAction"));
    connect(m_gpu, &GpuRunController::availabilityChanged, this, &MainWindow::refreshCalibrateAction);
    connect(m_gpu, &GpuRunController::calibrationStep, this, [this](const QString& step) {
        if (m_gpuProgress) m_gpuProgress->setLabelText(tr("Calibrating the roofline of this GPU: %1").arg(step));
    });
    connect(m_gpu, &GpuRunController::calibrationFinished, this, [this](std::optional<Calibration> calibration, const QString& failure) {
        if (m_gpuProgress) m_gpuProgress->disconnect(m_gpu);
        closeProgress(m_gpuProgress);
        refreshCalibrateAction();
        if (!calibration) {
            statusBar()->showMessage(tr("Calibration failed: %1").arg(failure));
            showMessage(tr("Calibration failed"), failure);
            return;
        }
        m_calibrations->add(*calibration);
        const Roofline& r = calibration->roofline;
        auto figure = [](const std::optional<double>& v) { return v ? QString::number(*v, 'f', 0) : tr("unknown"); };
        statusBar()->showMessage(tr("Roofline of %1 (driver %2) measured: %3 GB/s, %4 TFLOP/s fp16, %5 TFLOP/s bf16")
                                     .arg(QString::fromStdString(calibration->gpuName), QString::fromStdString(calibration->driverVersion),
                                          figure(r.bandwidthGBps), figure(r.fp16Tflops), figure(r.bf16Tflops)),
                                 10000);
    });
    refreshCalibrateAction();
    gpu->setToolTipsVisible(true);
    refreshGpuActions();
    m_gpu->probe();
}

QString MainWindow::bundledFolder(const QString& name) {
    // Installed: <prefix>/bin/tilescope beside <prefix>/share/tilescope/<name>; in a build tree, the sources.
    const QDir app(QCoreApplication::applicationDirPath());
    const QStringList candidates{app.filePath(QStringLiteral("../share/tilescope/") + name),
                                 QStringLiteral(TILESCOPE_RESOURCES_DIR "/") + name};
    for (const QString& candidate : candidates)
        if (QFileInfo(candidate).isDir()) return QDir::cleanPath(candidate);
    return candidates.front();
}

QString MainWindow::samplesFolder() { return bundledFolder(QStringLiteral("samples")); }

QString MainWindow::modelsFolder() { return bundledFolder(QStringLiteral("models")); }

void MainWindow::closeProgress(QProgressDialog*& dialog) {
    if (!dialog) return;
    dialog->reset();  // stops the minimum-duration timer that would show it later
    dialog->hide();
    dialog->deleteLater();
    dialog = nullptr;
}

void MainWindow::showMessage(const QString& title, const QString& text) {
    if (m_messageSink) m_messageSink(title, text);
    else QMessageBox::warning(this, title, text);
}

bool MainWindow::openBuildLog(const QString& path) {
    BuildLogDialog dialog(path, this);
    if (!dialog.loaded()) {
        showMessage(tr("Cannot open build log"), dialog.error());
        return false;
    }
    if (dialog.exec() != QDialog::Accepted) return false;
    const QString shape = dialog.chosenShapeText();
    const KernelFamily* family = m_state->registry().launchFiguresFamily();
    if (shape.isEmpty() || !family || !m_state->setKernel(toQString(family->name()), toQString(family->variants().front().name)) ||
        !m_state->setShapeText(shape))
        return false;
    statusBar()->showMessage(tr("%1 opened as a %2 launch").arg(dialog.chosenName(), toQString(family->name())), 5000);
    return true;
}

void MainWindow::openTraceDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), {}, kTraceFilter);
    if (!path.isEmpty()) openTrace(path);
}

bool MainWindow::confirmUnsavedRuns() {
    const int unsaved = m_document->unsavedRuns();
    if (unsaved == 0) return true;
    const QString text = tr("%n run(s) in %1 are not saved. GPU measurements cannot be recomputed without that GPU.", "", unsaved)
                             .arg(m_document->displayName());
    const QMessageBox::StandardButton answer =
        m_unsavedRunsQuestion ? m_unsavedRunsQuestion(text)
                              : QMessageBox::question(this, tr("Unsaved runs"), text,
                                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Discard) return true;
    if (answer != QMessageBox::Save) return false;
    saveTrace();
    return m_document->unsavedRuns() == 0;  // a cancelled or failed save keeps the window
}

void MainWindow::openTrace(const QString& path) {
    if (m_loading) {
        showMessage(tr("Open trace"), tr("Another trace is still loading."));
        return;
    }
    if (!confirmUnsavedRuns()) return;
    auto state = std::make_shared<LoadState>();
    auto* watcher = new QFutureWatcher<Result<Trace>>(this);
    m_loading = watcher;
    m_loadProgress = new QProgressDialog(tr("Reading %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 1000, this);
    m_loadProgress->setWindowModality(Qt::NonModal);
    m_loadProgress->setMinimumDuration(300);
    auto* poll = new QTimer(watcher);
    connect(poll, &QTimer::timeout, m_loadProgress, [dialog = m_loadProgress, state] { dialog->setValue(state->perMille.load()); });
    poll->start(100);
    // Cancelling stops waiting at once; a profiler-trace import also stops reading at its next
    // 8 MB read (a native trace is read to its end), and whatever it returns is dropped.
    connect(m_loadProgress, &QProgressDialog::canceled, watcher, [this, watcher, state, poll] {
        poll->stop();
        state->cancelled.store(true);
        watcher->disconnect(this);
        m_loading = nullptr;
        closeProgress(m_loadProgress);
        statusBar()->showMessage(tr("Import cancelled; the open trace is unchanged."), 5000);
        connect(watcher, &QFutureWatcher<Result<Trace>>::finished, watcher, &QObject::deleteLater);
    });
    connect(watcher, &QFutureWatcher<Result<Trace>>::finished, this, [this, watcher, path, poll] {
        // The poll's setValue() would show the dialog again while the error box is open.
        poll->stop();
        Result<Trace> result = watcher->result();
        watcher->deleteLater();
        m_loading = nullptr;
        if (m_loadProgress) m_loadProgress->disconnect(watcher);
        // Closed before the error box: a deleteLater()'d dialog stayed on screen, and its show timer
        // still fired, over the message box ("Reading bogus.json… 0 %", issue 31 item 9).
        closeProgress(m_loadProgress);
        if (!result) {
            showMessage(tr("Cannot open trace"), QString::fromStdString(result.error()));
            return;
        }
        m_document->setTrace(std::move(*result), path, looksLikeNativeTrace(path.toStdString()));
        addRecentFile(path);
        statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
        if (m_pages->currentWidget() != m_timeline) m_pages->setCurrentWidget(m_runs);
    });
    const std::string file = path.toStdString();
    watcher->setFuture(QtConcurrent::run([file, state]() -> Result<Trace> {
        KinetoImportOptions options;
        options.cancel = &state->cancelled;
        options.progress = [state](std::uint64_t done, std::uint64_t total) {
            if (total > 0) state->perMille.store(static_cast<int>(done * 1000 / total));
        };
        return openTraceFile(file, builtinKernels(), options);
    }));
}

bool MainWindow::saveTraceTo(const QString& path) {
    auto written = m_document->saveAs(path);
    if (!written) {
        showMessage(tr("Cannot save trace"), QString::fromStdString(written.error()));
        return false;
    }
    addRecentFile(path);
    return true;
}

void MainWindow::saveTrace() {
    if (m_document->path().isEmpty()) saveTraceAs();
    else saveTraceTo(m_document->path());
}

QString MainWindow::defaultTraceFileName() const {
    // The trace's name without its reader's suffixes: "hta_alexnet_a100.json.gz" gave
    // "hta_alexnet_a100.json.tilescope.json" (issue 31, smaller items).
    QString base = QFileInfo(m_document->displayName()).fileName();
    for (const QString& suffix : {QStringLiteral(".gz"), QStringLiteral(".jsonl"), QStringLiteral(".json"), QStringLiteral(".tilescope")})
        if (base.endsWith(suffix) && base.size() > suffix.size()) base.chop(suffix.size());
    return (base.isEmpty() || base == QLatin1String("untitled") ? QStringLiteral("trace") : base) + QStringLiteral(".tilescope.json");
}

void MainWindow::saveTraceAs() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save trace"), defaultTraceFileName(), tr("Tilescope traces (*.tilescope.json)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".tilescope.json"))) path += QStringLiteral(".tilescope.json");
    saveTraceTo(path);
}

bool MainWindow::exportReportTo(const QString& path) {
    // The explorer (kernel, shape, devices, verdict, boundary map) and the trace, as the window shows them.
    auto written =
        ReportExporter::exportReport(ReportExporter::contentFor(m_state, m_boundary, m_document->trace(), m_document->displayName()), path);
    if (!written) {
        showMessage(tr("Cannot export report"), QString::fromStdString(written.error()));
        return false;
    }
    statusBar()->showMessage(tr("Report written to %1").arg(path), 5000);
    return true;
}

void MainWindow::exportReportDialog() {
    const QString name = ReportExporter::defaultFileName(*m_state, m_document->trace(), m_document->displayName(), QStringLiteral("html"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), name,
                                                      tr("HTML, one file (*.html);;PDF (*.pdf);;Markdown and PNG folder (*.md)"));
    if (!path.isEmpty()) exportReportTo(path);
}

void MainWindow::addRecentFile(const QString& path) {
    if (!m_useSettings) return;
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles) recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = m_useSettings ? QSettings().value(kRecentKey).toStringList() : QStringList{};
    for (const QString& path : recent) m_recentMenu->addAction(path, this, [this, path] { openTrace(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile()) return;
    openTrace(urls.front().toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::refreshGpuActions() {
    const bool gpuAvailable = m_gpu->availability() == GpuRunController::Availability::Available;
    const KernelChoice kernel = m_state->kernel();
    // A family or variant that only models launches (triton, attention fa2_bwd) has no device code to
    // run, whatever the GPU.
    const bool runnable = kernel.hasDeviceCode();
    const bool available = gpuAvailable && !m_gpu->isBusy() && runnable;
    const QString why = !runnable ? tr("%1 has no device code: it checks a launch from its figures only, there is nothing to run.")
                                        .arg(toQString(kernel.family->name()) + QLatin1Char(' ') + toQString(kernel.variantName()))
                        : gpuAvailable ? (m_gpu->isBusy() ? tr("A GPU run is in progress.") : QString())
                                       : m_gpu->unavailableReason();
    m_runAction->setEnabled(available);
    m_sweepAction->setEnabled(available);
    // A disabled action's shortcut does nothing; Ctrl+G then says why in the status bar (issue 31).
    m_runUnavailableShortcut->setEnabled(!available);
    m_runUnavailableShortcut->setProperty("why", why);
    m_runAction->setToolTip(available ? tr("Run the current kernel and shape on the local GPU (worker: %1)").arg(m_gpu->workerPath())
                                      : why);
    m_sweepAction->setToolTip(available ? tr("Run every cell of the boundary map on the local GPU") : why);
    const QString state = m_gpu->isBusy() ? tr("a GPU run is in progress") : m_gpu->shortState();
    m_gpuStateAction->setText(state.isEmpty() ? QString() : tr("Unavailable: %1").arg(state));
    m_gpuStateAction->setToolTip(why);
    m_gpuStateAction->setVisible(!state.isEmpty());
    refreshTitle();  // the status bar names the GPU state
}

void MainWindow::runOnGpu() {
    if (!m_state->kernel().hasDeviceCode()) return;  // the action is disabled; a shortcut may still arrive
    if (!m_gpu->startRun(m_state->kernel(), m_state->shape(), m_state->plan())) return;
    m_gpuProgress = new QProgressDialog(tr("Running on the GPU…"), tr("Cancel"), 0, m_gpu->total(), this);
    m_gpuProgress->setWindowModality(Qt::NonModal);
    m_gpuProgress->setMinimumDuration(0);
    connect(m_gpuProgress, &QProgressDialog::canceled, m_gpu, &GpuRunController::cancel);
    refreshGpuActions();
}

void MainWindow::sweepOnGpu() {
    if (!m_state->kernel().hasDeviceCode()) return;
    if (!m_gpu->startSweep(m_state->kernel(), m_state->shape(), m_boundary->xAxis(), m_boundary->yAxis(), m_state->device())) return;
    m_gpuProgress = new QProgressDialog(tr("Sweeping on the GPU…"), tr("Cancel"), 0, m_gpu->total(), this);
    m_gpuProgress->setWindowModality(Qt::NonModal);
    m_gpuProgress->setMinimumDuration(0);
    connect(m_gpuProgress, &QProgressDialog::canceled, m_gpu, &GpuRunController::cancel);
    refreshGpuActions();
}

void MainWindow::refreshCalibrateAction() {
    if (!m_calibrateAction) return;
    const bool gpuAvailable = m_gpu->availability() == GpuRunController::Availability::Available;
    m_calibrateAction->setEnabled(gpuAvailable && !m_gpu->isBusy());
    m_calibrateAction->setToolTip(!gpuAvailable ? m_gpu->unavailableReason()
                                  : m_gpu->isBusy()
                                      ? tr("A GPU run is in progress.")
                                      : tr("Measure this GPU's copy bandwidth and cuBLAS fp16 / bf16 peak; the Performance and "
                                           "Runs pages then measure runs against it instead of the datasheet"));
}

void MainWindow::calibrateGpu() {
    if (!m_gpu->startCalibration()) return;
    m_gpuProgress =
        new QProgressDialog(tr("Calibrating the roofline of this GPU (copy bandwidth, cuBLAS peaks)…"), tr("Cancel"), 0, 0, this);
    m_gpuProgress->setWindowModality(Qt::NonModal);
    m_gpuProgress->setMinimumDuration(0);
    connect(m_gpuProgress, &QProgressDialog::canceled, m_gpu, &GpuRunController::cancel);
    refreshCalibrateAction();
}

void MainWindow::onGpuFinished(std::vector<Run> runs, const QString& failure) {
    if (m_gpuProgress) m_gpuProgress->disconnect(m_gpu);
    closeProgress(m_gpuProgress);
    const auto count = runs.size();
    m_document->addRuns(std::move(runs), {});
    refreshGpuActions();
    if (failure.isEmpty()) {
        statusBar()->showMessage(tr("%1 GPU runs added to the trace").arg(count), 5000);
        return;
    }
    statusBar()->showMessage(tr("GPU run failed: %1").arg(failure));
    showMessage(tr("GPU run failed"), tr("%1\n\nThe runs it did not report are recorded as failed in the Runs page.").arg(failure));
}

}  // namespace tilescope

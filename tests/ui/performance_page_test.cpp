// Issue 14, offscreen: the Performance page on the real H200 runs of tests/data/gpu_check (the
// gemm_bucket M sweep with its three bucket cliffs), the empty state, the metric chooser, the
// labels inside the chart at 1,024 px, the Runs page's achieved-figure columns, a calibration
// replacing the datasheet, and GPU > Calibrate without a GPU.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "core/model/sweep.h"
#include "core/trace/kineto_import.h"
#include "kernels/builtin_kernels.h"
#include "tests/ui/measured_calibration.h"
#include "ui/window/calibration_store.h"
#include "ui/window/explorer_state.h"
#include "ui/window/gpu_run_controller.h"
#include "ui/window/main_window.h"
#include "ui/pages/performance_page.h"
#include "ui/widgets/plot_widget.h"
#include "ui/models/run_model.h"
#include "ui/pages/runs_page.h"
#include "ui/window/trace_document.h"

using namespace tilescope;

namespace {

const QString kH200Runs = QStringLiteral(TILESCOPE_SOURCE_DIR "/tests/data/gpu_check/h200_after_runs.jsonl.gz");

bool openAndWait(MainWindow& window, const QString& path) {
    window.openTrace(path);
    QElapsedTimer timer;
    timer.start();
    while (window.isLoading() && timer.elapsed() < 60'000) QTest::qWait(20);
    return !window.isLoading();
}

QList<QCPItemText*> cliffLabels(PlotWidget* plot) {
    QList<QCPItemText*> labels;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->objectName() == QLatin1String("cliffLabel"))
            labels << text;
    return labels;
}

Calibration h200Calibration() {
    return measuredCalibration("NVIDIA H200", "580.159.04", "2026-12-01T10:30:00Z", 4100.0, 720.0,
                               "calibrate 2026-12-01, driver 580.159.04");
}

}  // namespace

class PerformancePageTest : public QObject {
    Q_OBJECT
private slots:
    void emptyStateSaysWhatToDo();
    void emptyStateCommandFollowsTheShapePanel();
    void recordedH200Sweep();
    void labelsInsideTheChartAt1024();
    void runsColumns();
    void calibrationReplacesTheDatasheet();
    void compareOverlayAndTwoDimensionalSweep();
    void calibrateDisabledWithoutAGpu();
    void calibrateThroughTheWorker_data();
    void calibrateThroughTheWorker();
};

void PerformancePageTest::emptyStateSaysWhatToDo() {
    MainWindow window(false);
    QVERIFY(window.showPage(QStringLiteral("performance")));
    PerformancePage* page = window.performancePage();
    QCOMPARE(window.pages()->currentWidget(), page);
    QVERIFY(page->isEmptyState());
    QVERIFY2(page->sweepCommandBox()->text().startsWith(QStringLiteral("tilescope-cli sweep --run")),
             qPrintable(page->sweepCommandBox()->text()));
    QVERIFY(page->emptyLabel()->text().contains(QStringLiteral("open a trace holding one")));
    // A trace of predicted runs only still has nothing measured to draw.
    QVERIFY(openAndWait(window, QStringLiteral(TILESCOPE_SOURCE_DIR "/tests/data/trace_golden.tilescope.json")));
    QVERIFY(page->isEmptyState());
}

void PerformancePageTest::emptyStateCommandFollowsTheShapePanel() {
    MainWindow window(false);
    QVERIFY(window.showPage(QStringLiteral("performance")));
    PerformancePage* page = window.performancePage();
    ExplorerState* state = window.state();
    QVERIFY(state->setKernel(QStringLiteral("gemm_bucket"), QStringLiteral("oproj")));
    QVERIFY(state->setShapeText(QStringLiteral("M=64")));
    const QString text = page->sweepCommandBox()->text();
    const QString head = QStringLiteral("tilescope-cli sweep --run -k gemm_bucket -v oproj -d h100-sxm -s M=64,N=7168,K=8192 --x M=");
    QVERIFY2(text.contains(head), qPrintable(text));
    // The axis as printed parses as the CLI parses it, and crosses the bucket limit (M 512 -> 513+).
    const qsizetype from = text.indexOf(head) + head.size() - 2;
    const QString axisText = text.mid(from, text.indexOf(QLatin1Char(' '), from) - from);
    const auto axis = parseSweepAxis(axisText.toStdString(), state->parameters());
    QVERIFY2(axis.ok(), qPrintable(axisText));
    QVERIFY(axis.value().values.front() <= 512 && axis.value().values.back() > 512);
    // Another device in the Shape panel is in the command too.
    QVERIFY(state->setDevice(QStringLiteral("a100-80gb-sxm")));
    QVERIFY(page->sweepCommandBox()->text().contains(QStringLiteral("-d a100-80gb-sxm -s M=64,")));
    // A family with no device code has nothing to run: the generic form, not a command that fails.
    for (const auto& family : builtinKernels().families()) {
        if (family->hasDeviceCode()) continue;
        QVERIFY(state->setKernel(QString::fromUtf8(family->name().data(), static_cast<qsizetype>(family->name().size()))));
        QVERIFY2(page->sweepCommandBox()->text().contains(QStringLiteral("-k FAMILY")), qPrintable(page->sweepCommandBox()->text()));
    }
}

void PerformancePageTest::recordedH200Sweep() {
    MainWindow window(false);
    window.resize(1440, 900);
    window.show();
    QVERIFY(openAndWait(window, kH200Runs));
    QVERIFY(window.showPage(QStringLiteral("performance")));
    PerformancePage* page = window.performancePage();
    QVERIFY(!page->isEmptyState());
    QVERIFY(page->sweepBox()->count() >= 2);
    QVERIFY2(page->sweepBox()->currentText().startsWith(QStringLiteral("gemm_bucket / oproj along M")),
             qPrintable(page->sweepBox()->currentText()));
    const PerformanceSeries& series = page->series();
    QCOMPARE(series.lines.size(), std::size_t{1});
    QCOMPARE(series.lines[0].points.size(), std::size_t{14});

    // The measured line with its 14 points, and the estimate dashed and named so.
    PlotWidget* plot = page->plot();
    QCOMPARE(plot->graphCount(), 2);
    QCOMPARE(plot->graph(0)->data()->size(), 14);
    QCOMPARE(plot->graph(0)->scatterStyle().shape(), QCPScatterStyle::ssCircle);
    QVERIFY(plot->graph(1)->name().startsWith(QStringLiteral("estimate")));
    QCOMPARE(plot->graph(1)->pen().style(), Qt::DashLine);
    QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot->graph(0)->data()->at(12)->value, 69.216);  // M = 257, the recorded CUPTI median
    QVERIFY(plot->yAxis->label().contains(QStringLiteral("time")));

    // A label per cliff (64 -> 65, 128 -> 129, 256 -> 257), each naming the bucket cell change.
    const auto labels = cliffLabels(plot);
    QCOMPARE(labels.size(), 3);
    for (QCPItemText* label : labels) QVERIFY2(label->text().contains(QStringLiteral("bucket cell")), qPrintable(label->text()));
    QVERIFY2(page->cliffsLabel()->text().contains(QStringLiteral("M 256 \u2192 257")), qPrintable(page->cliffsLabel()->text()));
    QVERIFY2(page->rooflineLabel()->text().contains(QStringLiteral("NVIDIA H200: datasheet")), qPrintable(page->rooflineLabel()->text()));

    // The table: a row per point, the measured/estimated ratio of each.
    QCOMPARE(page->table()->rowCount(), 14);
    for (int row = 0; row < 14; ++row) QVERIFY(page->table()->item(row, 7)->text().toDouble() > 0);

    // Another metric redraws the same points in it.
    page->setMetric(PerformanceMetric::Tflops);
    QCOMPARE(plot->yAxis->label(), QStringLiteral("TFLOP/s"));
    QCOMPARE(plot->graph(0)->data()->at(0)->value, *series.lines[0].points[0].achieved.tflops);
    page->setMetric(PerformanceMetric::PctOfRoofline);
    QCOMPARE(plot->graph(0)->data()->at(13)->value, *series.lines[0].points[13].achieved.pctOfRoofline);

    // The prefill sweep: its cliffs at the tile buckets (M 32 -> 33, 128 -> 129) and the second wave (193 -> 1000), each explained.
    const int prefill = page->sweepBox()->findText(QStringLiteral("awq_gemm / prefill along M"), Qt::MatchStartsWith);
    QVERIFY(prefill >= 0);
    page->sweepBox()->setCurrentIndex(prefill);
    QCOMPARE(page->series().lines[0].points.size(), std::size_t{7});
    QCOMPARE(cliffLabels(plot).size(), 3);
    for (QCPItemText* label : cliffLabels(plot))
        QVERIFY2(!label->text().contains(QStringLiteral("unexplained")), qPrintable(label->text()));

    // The estimate re-planned on a device the user does not have.
    page->estimateBox()->setCurrentIndex(page->estimateBox()->findData(QStringLiteral("a100-80gb-sxm")));
    QVERIFY2(page->rooflineLabel()->text().contains(QStringLiteral("Estimate (dashed): on a100-80gb-sxm, re-planned there")),
             qPrintable(page->rooflineLabel()->text()));
}

void PerformancePageTest::labelsInsideTheChartAt1024() {
    MainWindow window(false);
    QVERIFY(openAndWait(window, kH200Runs));
    QVERIFY(window.showPage(QStringLiteral("performance")));
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    PlotWidget* plot = window.performancePage()->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QRect rect = plot->axisRect()->rect();
    const auto labels = cliffLabels(plot);
    QCOMPARE(labels.size(), 3);
    for (QCPItemText* label : labels) {
        const QPointF anchor = label->position->pixelPosition();
        const int width = QFontMetrics(label->font()).horizontalAdvance(label->text()) + 4;
        const double left = label->positionAlignment() & Qt::AlignRight ? anchor.x() - width : anchor.x();
        QVERIFY2(left >= rect.left() - 1 && left + width <= rect.right() + 1,
                 qPrintable(QStringLiteral("'%1' spans %2..%3, the chart %4..%5")
                                .arg(label->text())
                                .arg(left)
                                .arg(left + width)
                                .arg(rect.left())
                                .arg(rect.right())));
        QVERIFY(anchor.y() >= rect.top() && anchor.y() < rect.bottom());
    }
}

void PerformancePageTest::runsColumns() {
    MainWindow window(false);
    QVERIFY(openAndWait(window, kH200Runs));
    RunModel* model = window.runsPage()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->headerData(RunModel::Gbps, Qt::Horizontal).toString(), QStringLiteral("GB/s"));
    QCOMPARE(model->headerData(RunModel::PctOfRoofline, Qt::Horizontal).toString(), QStringLiteral("% of roofline"));
    auto read = openTraceFile(kH200Runs.toStdString(), builtinKernels());
    QVERIFY(read);
    int measured = 0, dashes = 0;
    for (int row = 0; row < static_cast<int>(read->runs.size()); ++row) {
        const auto time = measuredTimeUs(read->runs[static_cast<std::size_t>(row)]);
        const QString gbps = model->index(row, RunModel::Gbps).data().toString();
        if (!time) {
            QCOMPARE(gbps, QStringLiteral("\u2014"));
            QCOMPARE(model->index(row, RunModel::PctOfRoofline).data().toString(), QStringLiteral("\u2014"));
            ++dashes;
            continue;
        }
        ++measured;
        const LaunchPlan& plan = read->runs[static_cast<std::size_t>(row)].plan;
        QCOMPARE(model->index(row, RunModel::Gbps).data(RunModel::SortRole).toDouble(), plan.bytesMoved / (*time * 1e-6) / 1e9);
        QCOMPARE(model->index(row, RunModel::Roofline).data().toString(), QStringLiteral("datasheet"));
        QVERIFY(model->index(row, RunModel::PctOfRoofline).data(RunModel::SortRole).toDouble() > 0);
    }
    QVERIFY(measured > 80);
    QVERIFY(dashes > 0);
}

void PerformancePageTest::calibrationReplacesTheDatasheet() {
    MainWindow window(false);
    window.show();
    QVERIFY(openAndWait(window, kH200Runs));
    QVERIFY(window.showPage(QStringLiteral("performance")));
    QVERIFY(!window.performancePage()->series().lines.empty());
    const double datasheetPct = *window.performancePage()->series().lines[0].points[0].achieved.pctOfRoofline;
    window.calibrations()->add(h200Calibration());
    PerformancePage* page = window.performancePage();
    QVERIFY2(page->rooflineLabel()->text().contains(QStringLiteral("NVIDIA H200: measured 2026-12-01")),
             qPrintable(page->rooflineLabel()->text()));
    QVERIFY(*page->series().lines[0].points[0].achieved.pctOfRoofline != datasheetPct);
    RunModel* model = window.runsPage()->model();
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, RunModel::Gbps).data().toString() != QStringLiteral("\u2014"))
            QCOMPARE(model->index(row, RunModel::Roofline).data().toString(), QStringLiteral("measured 2026-12-01"));
    // The settings key names the GPU and the driver, so another driver is measured again.
    QCOMPARE(CalibrationStore::settingsKey(h200Calibration()), QStringLiteral("calibration/NVIDIA H200 | 580.159.04"));
}

// Two GPUs' sweeps of the same cells: a line each on one axis; a second swept parameter: a line per
// value. The second GPU's and the second N's cells are the recorded H200 cells relabelled.
void PerformancePageTest::compareOverlayAndTwoDimensionalSweep() {
    auto read = openTraceFile(kH200Runs.toStdString(), builtinKernels());
    QVERIFY(read);
    const auto sweeps = findMeasuredSweeps(*read);
    QVERIFY(!sweeps.empty());
    Trace bucket;
    for (std::size_t r : sweeps.front().runs) bucket.runs.push_back(read->runs[r]);
    Trace compare = bucket;
    for (tilescope::Run run : bucket.runs) {
        run.gpu->deviceName = "NVIDIA H100 80GB HBM3";
        run.gpu->timing->medianUs *= 1.5;
        compare.runs.push_back(run);
    }
    MainWindow window(false);
    window.resize(1440, 900);
    window.show();
    window.document()->setTrace(compare, QStringLiteral("compare.jsonl"), false);
    QVERIFY(window.showPage(QStringLiteral("performance")));
    PlotWidget* plot = window.performancePage()->plot();
    QCOMPARE(window.performancePage()->series().lines.size(), std::size_t{2});
    QCOMPARE(plot->graphCount(), 4);  // measured and estimate for each GPU
    QCOMPARE(plot->graph(2)->name(), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QVERIFY(plot->graph(0)->pen().color() != plot->graph(2)->pen().color());
    QVERIFY2(window.performancePage()->rooflineLabel()->text().contains(QStringLiteral("NVIDIA H100 80GB HBM3: datasheet")),
             qPrintable(window.performancePage()->rooflineLabel()->text()));
    QCOMPARE(window.performancePage()->table()->rowCount(), 28);

    Trace grid = bucket;
    const int n = parameterIndex(bucket.runs.front().parameters, "N");
    for (tilescope::Run run : bucket.runs) {
        run.plan.shape[n] = 4096;
        grid.runs.push_back(run);
    }
    window.document()->setTrace(grid, QStringLiteral("grid.jsonl"), false);
    QComboBox* box = window.performancePage()->sweepBox();
    const int twoD = box->findText(QStringLiteral("gemm_bucket / oproj along M, a line per N"), Qt::MatchStartsWith);
    QVERIFY2(twoD >= 0, qPrintable(box->itemText(0)));
    box->setCurrentIndex(twoD);
    QCOMPARE(window.performancePage()->series().lines.size(), std::size_t{2});
    QCOMPARE(plot->graph(0)->name(), QStringLiteral("NVIDIA H200, N=4096"));
    QCOMPARE(plot->graph(2)->name(), QStringLiteral("NVIDIA H200, N=7168"));
}

void PerformancePageTest::calibrateDisabledWithoutAGpu() {
    qputenv("FAKE_WORKER_MODE", "nogpu");
    MainWindow window(false);
    window.gpuRuns()->setWorkerPath(QStringLiteral(FAKE_WORKER_PATH));
    window.gpuRuns()->probe();
    QTRY_VERIFY_WITH_TIMEOUT(window.gpuRuns()->availability() != GpuRunController::Availability::Probing, 20'000);
    QAction* calibrate = window.calibrateAction();
    QVERIFY(calibrate);
    QCOMPARE(calibrate, window.findChild<QAction*>(QStringLiteral("calibrateAction")));
    QVERIFY(!calibrate->isEnabled());
    QVERIFY2(calibrate->toolTip().contains(QStringLiteral("No CUDA GPU")), qPrintable(calibrate->toolTip()));
    qunsetenv("FAKE_WORKER_MODE");
}

void PerformancePageTest::calibrateThroughTheWorker_data() {
    QTest::addColumn<QByteArray>("mode");
    QTest::addColumn<QString>("failure");  // in the message; empty: a calibration kept
    QTest::newRow("calibrated") << QByteArray("ok") << QString();
    QTest::newRow("a worker without calibrate") << QByteArray("nocalibrate") << QStringLiteral("not available in this build");
}

void PerformancePageTest::calibrateThroughTheWorker() {
    QFETCH(QByteArray, mode);
    QFETCH(QString, failure);
    qputenv("FAKE_WORKER_MODE", "ok");
    MainWindow window(false);
    QStringList messages;
    window.setMessageSink([&messages](const QString&, const QString& text) { messages << text; });
    window.gpuRuns()->setWorkerPath(QStringLiteral(FAKE_WORKER_PATH));
    window.gpuRuns()->probe();
    QTRY_COMPARE_WITH_TIMEOUT(window.gpuRuns()->availability(), GpuRunController::Availability::Available, 20'000);
    QVERIFY(window.calibrateAction()->isEnabled());
    qputenv("FAKE_WORKER_MODE", mode);
    QSignalSpy steps(window.gpuRuns(), &GpuRunController::calibrationStep);
    window.calibrateAction()->trigger();
    QVERIFY(!window.calibrateAction()->isEnabled());  // busy until the worker ends
    QTRY_VERIFY_WITH_TIMEOUT(!window.gpuRuns()->isBusy(), 20'000);
    QVERIFY(window.calibrateAction()->isEnabled());
    if (failure.isEmpty()) {
        QVERIFY2(messages.isEmpty(), qPrintable(messages.join(QLatin1Char('\n'))));
        QCOMPARE(steps.size(), 1);
        QCOMPARE(steps.front().front().toString(), QStringLiteral("device-to-device copy bandwidth"));
        QCOMPARE(window.calibrations()->calibrations().size(), std::size_t{1});
        QCOMPARE(window.calibrations()->calibrations().front().gpuName, std::string("Fake GPU"));
        QCOMPARE(*window.calibrations()->calibrations().front().roofline.bandwidthGBps, 1000.0);
    } else {
        QVERIFY(window.calibrations()->calibrations().empty());
        QCOMPARE(messages.size(), 1);
        QVERIFY2(messages.front().contains(failure), qPrintable(messages.front()));
    }
    qunsetenv("FAKE_WORKER_MODE");
}

QTEST_MAIN(PerformancePageTest)
#include "performance_page_test.moc"

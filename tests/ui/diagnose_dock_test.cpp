// The Diagnose dock, offscreen: a real log pasted (or opened) -> its finding in the table ->
// the finding's button moves the window to its kernel, variant, device and shape and shows the
// Boundaries page along its sweep; no signature, empty and binary input are said in the dock;
// File > Open Model Config's table fails the GEMV layers at batch 8 and opens a failing cell's
// shape. With TILESCOPE_UI_SCREENSHOTS=DIR set it also writes the filled window there.
#include <algorithm>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>

#include "core/model/device_spec.h"
#include "core/model/sweep.h"
#include "ui/pages/boundary_page.h"
#include "ui/docks/diagnose_dock.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/models/model_check_model.h"
#include "ui/widgets/model_check_widget.h"
#include "ui/window/qt_text.h"

using namespace tilescope;

namespace {

QString dataPath(const char* relative) { return QStringLiteral(TILESCOPE_SOURCE_DIR "/") + QLatin1String(relative); }

QString readText(const char* relative) {
    QFile file(dataPath(relative));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

QString family(MainWindow& window) { return toQString(window.state()->kernel().family->name()); }
QString variant(MainWindow& window) { return toQString(window.state()->kernel().variantName()); }
QString device(MainWindow& window) { return QString::fromStdString(window.state()->device().id); }
QString shape(MainWindow& window) { return QString::fromStdString(formatShape(window.state()->shape(), window.state()->parameters())); }
QString boundaryXName(MainWindow& window) {
    const SweepAxis& x = window.boundaryPage()->xAxis();
    return toQString(window.state()->parameters()[static_cast<std::size_t>(x.parameter)].name);
}
int finding(DiagnosisModel* model, const QString& family, const QString& variant) {
    for (int r = 0; r < model->rowCount(); ++r) {
        const DiagnosisFinding* f = model->finding(r);
        if (toQString(f->family) == family && toQString(f->variant) == variant) return r;
    }
    return -1;
}

void saveScreenshotIfAsked(MainWindow& window, const QString& name) {
    const QString dir = qEnvironmentVariable("TILESCOPE_UI_SCREENSHOTS");
    if (!dir.isEmpty()) QVERIFY(window.saveScreenshot(dir + QLatin1Char('/') + name + QStringLiteral(".png"), QSize(1440, 900)));
}

}  // namespace

class DiagnoseDockTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void pastedLogOpensBoundaryMapAtTheFindingsShape() {
        MainWindow window(false);
        // Start elsewhere so every state change below is the button's doing.
        QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        QVERIFY(window.state()->setDevice(QStringLiteral("rtx-4090")));
        window.showPage(QStringLiteral("launch"));
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock);
        QVERIFY(dock->isHidden());  // until asked for: the View menu's toggle shows it
        dock->toggleViewAction()->trigger();
        QVERIFY(!dock->isHidden());
        QAbstractItemModelTester tester(dock->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        const QString log = readText("tests/data/logs/awq_legacy_grid.log");
        QVERIFY(!log.isEmpty());
        dock->input()->setPlainText(log);  // no Diagnose click: the debounce diagnoses the paste
        QTRY_VERIFY_WITH_TIMEOUT(dock->model()->rowCount() > 0, 5000);
        const int row = finding(dock->model(), QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y"));
        QVERIFY(row >= 0);
        DiagnosisModel* model = dock->model();
        QCOMPARE(model->data(model->index(row, DiagnosisModel::Kind)).toString(), QStringLiteral("invalid_launch"));
        QCOMPARE(model->data(model->index(row, DiagnosisModel::Line)).toInt(), 10);
        QCOMPARE(model->data(model->index(row, DiagnosisModel::ShapeColumn)).toString(),
                 QStringLiteral("M=32768 N=5376 K=4096 group_size=128"));
        QVERIFY(model->data(model->index(row, DiagnosisModel::Message)).toString().contains(QStringLiteral("invalid configuration")));
        QVERIFY(!model->data(model->index(row, DiagnosisModel::Fix)).toString().isEmpty());
        QVERIFY2(dock->statusLabel()->text().startsWith(QStringLiteral("1 finding in %1 lines.").arg(log.count(QLatin1Char('\n')))),
                 qPrintable(dock->statusLabel()->text()));
        // One line pasted (the log's error line alone): "1 line", not "1 lines".
        const QString errorLine = log.section(QLatin1Char('\n'), 9, 9);
        QVERIFY(errorLine.contains(QStringLiteral("invalid configuration")));
        dock->input()->setPlainText(errorLine);
        dock->diagnose();
        QVERIFY2(dock->statusLabel()->text().startsWith(QStringLiteral("1 finding in 1 line.")), qPrintable(dock->statusLabel()->text()));
        dock->input()->setPlainText(log);
        dock->diagnose();
        QVERIFY(finding(dock->model(), QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")) == row);

        // The log words the rejection as CUDA 12 does and the banner as the panel's CUDA 13 does: the
        // details say which is which until the map sets the panel to 12 (issue 31 item 3).
        QCOMPARE(window.state()->cudaRuntime(), 13);
        dock->findingsView()->setCurrentIndex(model->index(row, 0));
        auto* details = dock->findChild<QTextBrowser*>(QStringLiteral("diagnoseDetails"));
        QVERIFY(details);
        QVERIFY2(details->toPlainText().contains(QStringLiteral("runtime: CUDA 12, by the log's wording; the Shape panel plans CUDA 13")),
                 qPrintable(details->toPlainText()));

        auto* button = dock->findingsView()->findChild<QPushButton*>(QStringLiteral("openBoundaryMap_%1").arg(row));
        QVERIFY(button);
        saveScreenshotIfAsked(window, QStringLiteral("diagnose_before"));
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(window.state()->cudaRuntime(), 12);
        QVERIFY2(!details->toPlainText().contains(QStringLiteral("runtime:")), qPrintable(details->toPlainText()));
        QCOMPARE(family(window), QStringLiteral("awq_gemm"));
        QCOMPARE(variant(window), QStringLiteral("legacy_grid_y"));
        QCOMPARE(device(window), QStringLiteral("h100-sxm"));  // the log names none: the planner's default device
        QCOMPARE(shape(window), QStringLiteral("M=32768,N=5376,K=4096,group_size=128"));
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget*>(window.boundaryPage()));
        const DiagnosisFinding& f = *model->finding(row);
        const auto axis = parseSweepAxis(f.sweepAxis, window.state()->parameters());
        QVERIFY(axis);
        QCOMPARE(window.boundaryPage()->xAxis().parameter, axis->parameter);
        QCOMPARE(window.boundaryPage()->xAxis().values, axis->values);
        QCOMPARE(boundaryXName(window), QStringLiteral("M"));
        QVERIFY(!window.boundaryPage()->yAxis());
        QVERIFY(window.waitUntilIdle(30000));
        QVERIFY(window.boundaryPage()->result());
        saveScreenshotIfAsked(window, QStringLiteral("diagnose"));
    }

    // Issue 13: a traceback as pasted (prompt tokens, a named Mixtral AWQ checkpoint, no N or K):
    // "Boundary map" opens a map that holds the failing shape and crosses the boundary.
    void pastedMixtralTracebackOpensAMapHoldingTheFailure() {
        MainWindow window(false);
        DiagnoseDock* dock = window.diagnoseDock();
        dock->toggleViewAction()->trigger();
        dock->input()->setPlainText(readText("tests/data/diagnose_issue13_mixtral_awq.log"));
        dock->diagnose();
        const int row = finding(dock->model(), QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y"));
        QVERIFY(row >= 0);
        QCOMPARE(dock->model()->data(dock->model()->index(row, DiagnosisModel::ShapeColumn)).toString(),
                 QStringLiteral("M=16384 N=14336 K=4096 group_size=128"));
        auto* button = dock->findingsView()->findChild<QPushButton*>(QStringLiteral("openBoundaryMap_%1").arg(row));
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(shape(window), QStringLiteral("M=16384,N=14336,K=4096,group_size=128"));
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget*>(window.boundaryPage()));
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryResult* result = window.boundaryPage()->result();
        QVERIFY(result);
        const BoundaryMap& map = result->map;
        QCOMPARE(boundaryXName(window), QStringLiteral("M"));
        // The failing shape is a cell of the map, and it fails there; a smaller M passes.
        const auto& values = map.xAxis().values;
        const auto at = std::find(values.begin(), values.end(), std::int64_t{16384});
        QVERIFY(at != values.end());
        const int ix = static_cast<int>(at - values.begin());
        QVERIFY(map.cell(ix, 0).verdict == Verdict::InvalidLaunch);
        QVERIFY(map.cell(0, 0).verdict == Verdict::Ok);
        QVERIFY(values.back() >= 32768);
        const DiagnosisFinding& f = *dock->model()->finding(row);
        QVERIFY(f.boundary);
        QCOMPARE(*f.boundary, std::int64_t{9360});  // the last passing M at N = 14336
    }

    void openedLogNamesDeviceAndDoubleClickOpensMap() {
        MainWindow window(false);
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showPage(QStringLiteral("occupancy"));
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock->openLog(dataPath("tests/data/logs/fa4_sm120.log")));
        QVERIFY(dock->isVisible());  // opening a log shows the dock
        const int row = finding(dock->model(), QStringLiteral("attention"), QStringLiteral("sm120_tile_search"));
        QVERIFY(row >= 0);
        QCOMPARE(dock->model()->data(dock->model()->index(row, DiagnosisModel::Kind)).toString(), QStringLiteral("no_tile_fits"));
        QVERIFY(dock->model()->data(dock->model()->index(row, DiagnosisModel::Device)).toString().startsWith(QStringLiteral("rtx-5090")));
        QTableView* view = dock->findingsView();
        const QModelIndex cell = dock->model()->index(row, DiagnosisModel::Kind);
        view->scrollTo(cell);
        const QPoint centre = view->visualRect(cell).center();
        // A double-click is a click, then a second press that Qt reads as a double-click on the same index.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, centre);
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, centre);
        QCOMPARE(family(window), QStringLiteral("attention"));
        QCOMPARE(variant(window), QStringLiteral("sm120_tile_search"));
        QCOMPARE(device(window), QStringLiteral("rtx-5090"));
        QVERIFY2(shape(window).contains(QStringLiteral("head_dim=512,head_dim_v=512")), qPrintable(shape(window)));
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget*>(window.boundaryPage()));
        const auto axis = parseSweepAxis(dock->model()->finding(row)->sweepAxis, window.state()->parameters());
        QVERIFY(axis);
        QCOMPARE(window.boundaryPage()->xAxis().values, axis->values);
    }

    // causal-conv1d #48: the details name the extension op the traceback ends in, as the CLI's
    // "named in log" row does, and rank none of our families.
    void namedKernelShowsInDetailsWithoutRanking() {
        MainWindow window(false);
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock->openLog(dataPath("tests/data/diagnose_corpus/causal_conv1d48_invalid_config.log")));
        QCOMPARE(dock->model()->rowCount(), 1);
        dock->findingsView()->setCurrentIndex(dock->model()->index(0, 0));
        auto* details = dock->findChild<QTextBrowser*>();
        QVERIFY(details);
        const QString text = details->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("named in log: causal_conv1d_cuda.causal_conv1d_fwd (extension op, line 11)")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("likeliest")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("find the kernel with CUDA_LAUNCH_BLOCKING")), qPrintable(text));
    }

    void bucketLogAndConsequences() {
        MainWindow window(false);
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock->openLog(dataPath("tests/data/logs/gemm_ar_bucket.log")));
        const int row = finding(dock->model(), QStringLiteral("gemm_bucket"), QStringLiteral("oproj"));
        QVERIFY(row >= 0);
        QCOMPARE(dock->model()->data(dock->model()->index(row, DiagnosisModel::Kind)).toString(), QStringLiteral("bucket_overflow"));
        QVERIFY(dock->openBoundaryMap(row));
        QCOMPARE(family(window), QStringLiteral("gemm_bucket"));
        QCOMPARE(variant(window), QStringLiteral("oproj"));
        QVERIFY2(shape(window).contains(QStringLiteral("M=640")), qPrintable(shape(window)));
        QCOMPARE(boundaryXName(window), QStringLiteral("M"));

        // A cascade: the later CUDA errors point back at the first finding, in the table and in the fix.
        QVERIFY(dock->openLog(dataPath("tests/data/logs/cascade.log")));
        DiagnosisModel* model = dock->model();
        int consequence = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->finding(r)->consequenceOf) consequence = r;
        QVERIFY(consequence > 0);
        const int cause = *model->finding(consequence)->consequenceOf;
        QCOMPARE(model->data(model->index(consequence, DiagnosisModel::Number)).toString(),
                 QStringLiteral("%1 ← %2").arg(consequence + 1).arg(cause + 1));
        QVERIFY(model->data(model->index(consequence, DiagnosisModel::Fix))
                    .toString()
                    .contains(QStringLiteral("consequence of finding %1").arg(cause + 1)));
        // A finding that names no kernel has no button and says why.
        for (int r = 0; r < model->rowCount(); ++r) {
            auto* button = dock->findingsView()->findChild<QPushButton*>(QStringLiteral("openBoundaryMap_%1").arg(r));
            QCOMPARE(button != nullptr, DiagnosisModel::hasBoundaryMap(*model->finding(r)));
            if (!button) QVERIFY(!dock->openBoundaryMap(r));
        }
    }

    // A CuTe DSL check that prints only the arch (flash-attention issue 750, a real report): the
    // dock names the GPUs it implies, as the CLI's "implies" row does, in the table and the details.
    void aLogThatPrintsOnlyAnArchNamesTheGpusItImplies() {
        MainWindow window(false);
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock->openLog(dataPath("tests/data/diagnose_corpus/fa2750_cute_smem_sm89.log")));
        DiagnosisModel* model = dock->model();
        int row = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (!model->finding(r)->impliedDevices.empty()) row = r;
        QVERIFY(row >= 0);
        // Every database GPU of compute capability 8.9, read from the database, not from the finding.
        QStringList sm89;
        for (const DeviceSpec& d : DeviceDatabase::embedded().devices())
            if (d.computeCapability.major == 8 && d.computeCapability.minor == 9) sm89 << QString::fromStdString(d.id);
        QVERIFY(sm89.size() >= 2);
        const QString deviceCell = model->data(model->index(row, DiagnosisModel::Device)).toString();
        QCOMPARE(deviceCell, QStringLiteral("implies ") + sm89.join(QStringLiteral(", ")));
        QVERIFY(model->data(model->index(row, DiagnosisModel::Device), Qt::ToolTipRole).toString().startsWith(QStringLiteral("sm_89")));
        dock->findingsView()->selectRow(row);
        auto* details = dock->findChild<QTextBrowser*>(QStringLiteral("diagnoseDetails"));
        QVERIFY(details);
        QVERIFY2(details->toPlainText().contains(QStringLiteral("implies: ") + sm89.join(QStringLiteral(", "))),
                 qPrintable(details->toPlainText()));
    }

    void noSignatureEmptyAndBinarySaidInTheDock() {
        MainWindow window(false);
        DiagnoseDock* dock = window.diagnoseDock();
        QVERIFY(dock->openLog(dataPath("tests/data/diagnose_no_signature.log")));
        QCOMPARE(dock->model()->rowCount(), 0);
        QVERIFY2(dock->statusLabel()->text().startsWith(QStringLiteral("No known signature")), qPrintable(dock->statusLabel()->text()));
        // What it knows is what `diagnose` prints: the same registry-built list.
        QVERIFY2(dock->statusLabel()->text().contains(toQString(knownSignaturesText(window.state()->registry()))),
                 qPrintable(dock->statusLabel()->text()));

        QVERIFY(!dock->openLog(dataPath("tests/data/diagnose_binary.bin")));
        QCOMPARE(dock->model()->rowCount(), 0);
        QVERIFY2(dock->statusLabel()->text().contains(QStringLiteral("Error:")), qPrintable(dock->statusLabel()->text()));

        dock->input()->clear();
        auto* diagnose = dock->findChild<QPushButton*>(QStringLiteral("diagnoseButton"));
        QVERIFY(diagnose);
        QTest::mouseClick(diagnose, Qt::LeftButton);
        QCOMPARE(dock->model()->rowCount(), 0);
        QVERIFY2(dock->statusLabel()->text().contains(QStringLiteral("Error:")), qPrintable(dock->statusLabel()->text()));

        QVERIFY(!dock->openLog(dataPath("tests/data/no_such_file.log")));
        QVERIFY(dock->statusLabel()->text().contains(QStringLiteral("Error:")));
    }

    void modelConfigFailsGemvAtBatch8() {
        MainWindow window(false);
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.state()->setDevice(QStringLiteral("rtx-5090")));
        // The menu action exists; the test drives the dock directly (no file dialog offscreen).
        bool hasAction = false;
        for (QAction* action : window.menuBar()->findChildren<QAction*>())
            if (action->text().contains(QStringLiteral("Model Config"))) hasAction = true;
        QVERIFY(hasAction);

        DiagnoseDock* dock = window.diagnoseDock();
        ModelCheckWidget* widget = dock->modelCheck();
        ModelCheckModel* model = widget->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(dock->openModelConfig(dataPath("tests/data/casperhansen__mistral-7b-instruct-awq-gemv")));
        QCOMPARE(dock->tabs()->currentWidget(), static_cast<QWidget*>(widget));
        QVERIFY(widget->isVisible());
        QCOMPARE(model->columnCount(), ModelCheckModel::FirstResult + 3);
        QCOMPARE(model->headerData(ModelCheckModel::FirstResult + 1, Qt::Horizontal).toString(), QStringLiteral("b8"));
        int gemvRows = 0;
        QModelIndex failing;
        for (int r = 0; r < model->rowCount(); ++r) {
            if (model->data(model->index(r, ModelCheckModel::Kernel)).toString() != QLatin1String("awq_gemv/gemv")) continue;
            ++gemvRows;
            QCOMPARE(model->data(model->index(r, ModelCheckModel::FirstResult)).toString(), QStringLiteral("ok"));
            const QModelIndex b8 = model->index(r, ModelCheckModel::FirstResult + 1);
            QCOMPARE(model->data(b8).toString(), QStringLiteral("unsupported_shape"));
            if (!failing.isValid()) failing = b8;
        }
        QVERIFY(gemvRows >= 7);  // q, k, v, o, gate, up, down
        QVERIFY2(widget->summaryLabel()->text().contains(QStringLiteral("FAIL")), qPrintable(widget->summaryLabel()->text()));
        QVERIFY2(widget->summaryLabel()->text().contains(QStringLiteral("fix:")), qPrintable(widget->summaryLabel()->text()));
        saveScreenshotIfAsked(window, QStringLiteral("model_check"));

        // Double-clicking the failing cell opens that layer's shape at batch 8.
        const std::string layerK = [&] {
            for (const auto& [name, value] : model->layer(failing.row())->layer.fixed)
                if (name == "K") return std::to_string(value);
            return std::string();
        }();
        widget->view()->scrollTo(failing);
        const QPoint centre = widget->view()->visualRect(failing).center();
        QTest::mouseClick(widget->view()->viewport(), Qt::LeftButton, {}, centre);
        QTest::mouseDClick(widget->view()->viewport(), Qt::LeftButton, {}, centre);
        QCOMPARE(family(window), QStringLiteral("awq_gemv"));
        QCOMPARE(variant(window), QStringLiteral("gemv"));
        QCOMPARE(device(window), QStringLiteral("rtx-5090"));
        QVERIFY2(shape(window).startsWith(QStringLiteral("M=8,")), qPrintable(shape(window)));
        QVERIFY2(shape(window).contains(QStringLiteral("K=") + QString::fromStdString(layerK)), qPrintable(shape(window)));
        QCOMPARE(window.state()->plan().verdict, Verdict::UnsupportedShape);

        // Batches are editable; a bad list is an error in the widget, not a crash.
        widget->batchesEdit()->setText(QStringLiteral("1,2"));
        QVERIFY(widget->recheck());
        QCOMPARE(model->columnCount(), ModelCheckModel::FirstResult + 2);
        widget->batchesEdit()->setText(QStringLiteral("0"));
        QVERIFY(!widget->recheck());
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(widget->summaryLabel()->text().contains(QStringLiteral("Error:")));

        // A GEMM-packed checkpoint from resources/models: the same linear layers pass at batch 8.
        widget->batchesEdit()->setText(QStringLiteral("1,8,64"));
        QVERIFY(dock->openModelConfig(dataPath("resources/models/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json")));
        QVERIFY(model->rowCount() > 0);
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->data(model->index(r, ModelCheckModel::Kernel)).toString().startsWith(QStringLiteral("awq_gemm")))
                QCOMPARE(model->data(model->index(r, ModelCheckModel::FirstResult + 1)).toString(), QStringLiteral("ok"));

        // A contradictory config is an error in the widget.
        QVERIFY(!dock->openModelConfig(dataPath("tests/data/check_model_contradictory")));
        QVERIFY(widget->summaryLabel()->text().contains(QStringLiteral("Error:")));
    }
};

QTEST_MAIN(DiagnoseDockTest)
#include "diagnose_dock_test.moc"

// Issue 31: what a new user met in a real window (round 2), one test per item, offscreen on a
// 1,024 x 700 screen (the smallest the pages are laid out for; main() below configures it).
#include <cmath>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QEventLoop>
#include <QElapsedTimer>
#include <QFile>
#include <QFontMetrics>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QScreen>
#include <QSpinBox>
#include <QStatusBar>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "new_user_support.h"
#include "core/series/boundary_colours.h"
#include "core/series/launch_usage.h"
#include "ui/window/app_theme.h"
#include "ui/pages/boundary_page.h"
#include "ui/docks/diagnose_dock.h"
#include "ui/models/launch_model.h"
#include "ui/pages/launch_page.h"
#include "ui/pages/occupancy_page.h"
#include "ui/widgets/plot_widget.h"
#include "ui/models/run_filter_model.h"
#include "ui/models/run_model.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/shared_memory_page.h"
#include "ui/pages/tiles_page.h"
#include "ui/pages/performance_page.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/shape_panel_widget.h"
#include "ui/widgets/verdict_banner_widget.h"

using namespace tilescope;

namespace {

const QString kSource = QStringLiteral(TILESCOPE_SOURCE_DIR);
constexpr int kScreenWidth = 1024;
constexpr int kScreenHeight = 700;

QSpinBox* spin(MainWindow& window, const char* parameter) {
    return window.shapePanel()->findChild<QSpinBox*>(QStringLiteral("parameter_") + QLatin1String(parameter));
}

QString shapeText(MainWindow& window) { return QString::fromStdString(formatShape(window.state()->shape(), window.state()->parameters())); }

using test::typeAndCommit;

// The refusal the Shape panel shows under its parameters, empty when none is shown.
QString refusal(MainWindow& window) {
    auto* label = window.shapePanel()->findChild<QLabel*>(QStringLiteral("refusalLabel"));
    return label && !label->isHidden() ? label->text() : QString();
}

}  // namespace

class NewUserTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(kScreenWidth, kScreenHeight));
    }

    // Item 6: typed input out of range is refused visibly, never clamped, truncated or reverted silently.
    void outOfRangeInputIsRefusedVisibly_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("parameter");
        QTest::addColumn<QString>("typed");
        QTest::newRow("registers 300 (max 255)") << "custom"
                                                 << "registers"
                                                 << "300";
        QTest::newRow("grid_x 99999999999999") << "custom"
                                               << "grid_x"
                                               << "99999999999999";
        QTest::newRow("head_dim 0") << "attention"
                                    << "head_dim"
                                    << "0";
        QTest::newRow("seqlen_q -5") << "attention"
                                     << "seqlen_q"
                                     << "-5";
    }
    void outOfRangeInputIsRefusedVisibly() {
        QFETCH(QString, family);
        QFETCH(QString, parameter);
        QFETCH(QString, typed);
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(family));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSpinBox* box = spin(window, qPrintable(parameter));
        QVERIFY(box);
        const QString before = shapeText(window);
        typeAndCommit(box, typed);
        // Nothing was planned: the shape is what it was (300 became 30 and was planned before).
        QCOMPARE(shapeText(window), before);
        // ... and the user is told, naming the parameter and what was typed.
        const QString said = refusal(window);
        QVERIFY2(said.contains(parameter) && said.contains(typed), qPrintable(said));
        // An accepted value afterwards clears it.
        typeAndCommit(box, QString::number(box->value() == box->minimum() ? box->maximum() : box->minimum()));
        QVERIFY(shapeText(window) != before);
        QVERIFY2(refusal(window).isEmpty(), qPrintable(refusal(window)));
    }

    // Item 7: one typed value is one plan and one undo step, not one per keystroke.
    void undoRecordsTheCommittedValue() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("attention")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSpinBox* box = spin(window, "seqlen_q");
        QVERIFY(box);
        const QString before = shapeText(window);
        int plans = 0;
        connect(window.state(), &ExplorerState::changed, this, [&plans] { ++plans; });
        typeAndCommit(box, QStringLiteral("9999999"));
        QCOMPARE(plans, 1);
        QVERIFY(shapeText(window).contains(QStringLiteral("seqlen_q=9999999")));
        QVERIFY(window.state()->undo());
        QCOMPARE(shapeText(window), before);  // one Ctrl+Z goes back, not to 999,999
    }

    // Item 9: a bad trace's error box is not behind a leftover progress dialog.
    void traceErrorHasNoProgressDialogOverIt() {
        MainWindow window(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QStringList visibleDuringError;
        window.setMessageSink([&](const QString&, const QString&) {
            // What a message box's own event loop would let happen while it is open (over 300 ms,
            // the progress dialog's minimum duration).
            QEventLoop loop;
            QTimer::singleShot(600, &loop, &QEventLoop::quit);
            loop.exec();
            for (QProgressDialog* dialog : window.findChildren<QProgressDialog*>())
                if (dialog->isVisible()) visibleDuringError << dialog->labelText();
        });
        window.openTrace(kSource + QStringLiteral("/tests/data/garbage.bin"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), 30000);
        QVERIFY2(visibleDuringError.isEmpty(), qPrintable(visibleDuringError.join(QLatin1Char('\n'))));
    }

    // Item 3: a finding from a CUDA 12 log opens its map on the CUDA 12 runtime, so the banner says
    // what the log says ("invalid configuration argument", not CUDA 13's "invalid argument").
    void findingOpensOnTheLogsRuntime() {
        MainWindow window(false);
        QCOMPARE(window.state()->cudaRuntime(), 13);  // the panel's default
        DiagnoseDock* dock = window.diagnoseDock();
        QFile log(kSource + QStringLiteral("/tests/data/logs/awq_legacy_grid.log"));
        QVERIFY(log.open(QIODevice::ReadOnly));
        dock->input()->setPlainText(QString::fromUtf8(log.readAll()));
        dock->diagnose();
        int row = -1;
        for (int r = 0; r < dock->model()->rowCount(); ++r)
            if (dock->model()->finding(r)->variant == "legacy_grid_y") row = r;
        QVERIFY(row >= 0);
        QVERIFY(dock->model()
                    ->data(dock->model()->index(row, DiagnosisModel::Message))
                    .toString()
                    .contains(QStringLiteral("invalid configuration argument")));
        QVERIFY(dock->openBoundaryMap(row));
        QCOMPARE(window.state()->cudaRuntime(), 12);
        const QString banner = window.banner()->text();
        QVERIFY2(banner.contains(QStringLiteral("invalid configuration argument")) &&
                     banner.contains(QStringLiteral("cudaErrorInvalidConfiguration")),
                 qPrintable(banner));
        QCOMPARE(window.shapePanel()->cudaRuntimeBox()->currentData().toInt(), 12);
    }

    // Item 1: the window fits its screen and never grows past it: the Diagnose dock, a model check and
    // a device change made it 770, 826, then 854 px tall on an 800 px screen.
    void windowNeverOutgrowsTheScreen() {
        MainWindow window(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRect available = window.screen()->availableGeometry();
        auto fits = [&](const char* after) {
            QCoreApplication::processEvents();
            const QSize size = window.size();
            if (size.width() <= available.width() && size.height() <= available.height()) return true;
            qWarning("after %s: %dx%d on a %dx%d screen", after, size.width(), size.height(), available.width(), available.height());
            return false;
        };
        QVERIFY(fits("start"));
        window.diagnoseDock()->show();
        QVERIFY(fits("View > Diagnose"));
        QVERIFY(window.diagnoseDock()->openModelConfig(
            kSource + QStringLiteral("/resources/models/TheBloke__Mixtral-8x7B-Instruct-v0.1-AWQ__config.json")));
        QVERIFY(fits("a model check"));
        auto* device = window.shapePanel()->deviceBox();
        device->setCurrentIndex(device->findData(QStringLiteral("t4")));
        QVERIFY(fits("a device change"));
        QVERIFY(window.state()->setKernel(QStringLiteral("attention")));
        window.showPage(QStringLiteral("launch"));
        QVERIFY(fits("the attention Launch page"));
    }

    // Item 2: at 1,024 x 700 the Diagnose dock can be made tall enough to read its findings.
    void diagnoseDockCanBeMadeTall() {
        MainWindow window(false);
        window.resize(kScreenWidth, kScreenHeight);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        DiagnoseDock* dock = window.diagnoseDock();
        dock->show();
        QCoreApplication::processEvents();
        // Opened, it shows more than four lines of a finding.
        QVERIFY2(dock->height() >= kScreenHeight / 3, qPrintable(QStringLiteral("the dock opens %1 px tall").arg(dock->height())));
        // What dragging the separator up does: the main window gives the dock what the pages can spare.
        window.resizeDocks({dock}, {kScreenHeight * 2 / 3}, Qt::Vertical);
        QCoreApplication::processEvents();
        QVERIFY2(dock->height() >= kScreenHeight / 2, qPrintable(QStringLiteral("the dock is %1 px tall").arg(dock->height())));
        QVERIFY(window.height() <= kScreenHeight);
        // A page that cannot scroll keeps the height it needs: the dock gives way (the Boundaries page's
        // legend ran over its axis labels under a dock at two fifths).
        window.showPage(QStringLiteral("boundaries"));
        QCoreApplication::processEvents();
        QWidget* page = window.boundaryPage();
        QVERIFY2(page->height() >= page->minimumSizeHint().height(),
                 qPrintable(QStringLiteral("Boundaries page %1 px, needs %2").arg(page->height()).arg(page->minimumSizeHint().height())));
        // The same when the dock opens over the Boundaries page (TOUR 2: View > Diagnose there).
        MainWindow fresh(false);
        fresh.resize(kScreenWidth, kScreenHeight);
        fresh.showPage(QStringLiteral("boundaries"));
        fresh.show();
        QVERIFY(QTest::qWaitForWindowExposed(&fresh));
        fresh.diagnoseDock()->show();
        QCoreApplication::processEvents();
        QWidget* freshPage = fresh.boundaryPage();
        QVERIFY2(
            freshPage->height() >= freshPage->minimumSizeHint().height(),
            qPrintable(
                QStringLiteral("Boundaries page %1 px, needs %2").arg(freshPage->height()).arg(freshPage->minimumSizeHint().height())));
    }

    // Items 4 and 5: File > Open Build Log's launch with 65,536 B of static shared memory and 14
    // registers (refused by ptxas' 48 KB cap): the Shared memory page drew "static 0 B + dynamic 0 B",
    // and the Occupancy page said registers were unknown, assumed 32 and showed 50 % occupancy.
    void refusedLaunchPagesAgreeWithTheBanner() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("custom")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("registers=14,static_smem=65536")));
        QVERIFY(!window.state()->plan().ok());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showPage(QStringLiteral("shared-memory"));
        QStringList notes;
        for (const QLabel* label : window.sharedMemoryPage()->findChildren<QLabel*>()) notes << label->text();
        const QString note = notes.join(QLatin1Char('\n'));
        QVERIFY2(note.contains(QStringLiteral("65,536")) && !note.contains(QStringLiteral("static 0 B")), qPrintable(note));
        window.showPage(QStringLiteral("occupancy"));
        const QString summary = window.occupancyPage()->summary();
        QVERIFY2(!summary.contains(QStringLiteral("unknown")) && !summary.contains(QStringLiteral("assuming")) &&
                     !summary.contains(QStringLiteral("warps per SM (")),
                 qPrintable(summary));
        // On awq_gemm the greyed box's tooltip said the build has no entry while the page used 215 registers.
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm")));
        QVERIFY(window.state()->plan().registers.has_value());
        QSpinBox* assumed = window.occupancyPage()->assumedRegistersBox();
        QVERIFY(!assumed->isEnabled());
        QVERIFY2(!assumed->toolTip().contains(QStringLiteral("no entry")), qPrintable(assumed->toolTip()));
        // A compare device the build has no code for (P100, sm_60) has no current point either: it read
        // "8 of 64 warps per SM" under a banner saying "no kernel image is available".
        QVERIFY(window.state()->setCompareDevice(QStringLiteral("p100-sxm2-16gb")));
        QCOMPARE(window.state()->comparePlan()->verdict, Verdict::UnsupportedDevice);
        QTRY_VERIFY2(window.occupancyPage()->summary().contains(QStringLiteral("p100-sxm2-16gb</b>: no current point")),
                     qPrintable(window.occupancyPage()->summary()));
        QVERIFY2(window.occupancyPage()->summary().contains(QStringLiteral("h100-sxm</b>: ")),
                 qPrintable(window.occupancyPage()->summary()));
    }

    // Item 10: attention out of memory at seqlen_q 9,999,999: the greyed button said nothing of why and
    // its tooltip promised a fix; the Launch page showed every bar within limits and no memory row.
    void outOfMemoryShowsOnTheLaunchPageAndTheButtonSaysWhy() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("attention")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("seqlen_q=9999999")));
        QCOMPARE(window.state()->plan().verdict, Verdict::OutOfMemory);
        QVERIFY(!window.state()->plan().fixShape);
        auto* button = window.banner()->findChild<QPushButton*>(QStringLiteral("fixButton"));
        QVERIFY(button && !button->isEnabled());
        QVERIFY2(!button->toolTip().contains(QStringLiteral("nearest passing one")), qPrintable(button->toolTip()));
        QVERIFY2(!button->text().contains(QStringLiteral("Move to")), qPrintable(button->text()));
        bool memoryRowFails = false;
        for (const LaunchUsage& u : window.launchPage()->model()->usage())
            memoryRowFails = memoryRowFails || (u.fails() && u.limitName == "memory_bytes");
        QVERIFY(memoryRowFails);
    }

    // Item 11: head_dim=100 suggested "nearest passing head_dim: 128" without saying that 128 is
    // head_dim_v's value (96 and 104 are multiples of 8 but FA2 needs head_dim_v == head_dim).
    void fixSaysWhichParameterHoldsTheSuggestedValue() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("head_dim=100")));
        QVERIFY(!window.state()->plan().ok());
        const QString banner = window.banner()->text();
        QVERIFY2(banner.contains(QStringLiteral("nearest passing head_dim: 128, given head_dim_v = 128")), qPrintable(banner));
    }

    // Item 12: a 1 .. 65,536 axis in 999 cells was labelled "log2 scale" while its first 151 cells
    // hold 1, 2, 3 ... 151 one each; its labels went 1, 64 (63rd cell), then x4 every 194 cells.
    void logAxisSaysWhereItIsLog2AndItsTicksDouble() {
        ExplorerState state;
        QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        BoundaryPage page(&state);
        QVERIFY(QTest::qWaitFor([&] { return !page.isBusy() && page.result(); }, 30000));
        page.xParameterBox()->setCurrentIndex(parameterIndex(state.parameters(), "seqlen_q"));
        page.xFromBox()->setValue(1);
        page.xToBox()->setValue(65536);
        page.cellsBox()->setValue(999);
        QCOMPARE(page.xAxis().values.size(), std::size_t{999});
        QVERIFY(QTest::qWaitFor([&] { return !page.isBusy() && page.result() && page.result()->map.width() == 999; }, 60000));
        const QString label = page.plot()->xAxis->label();
        QVERIFY2(label.contains(QStringLiteral("every value to 151, log2 scale above")), qPrintable(label));
        auto ticker = page.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        const QLocale english(QLocale::English, QLocale::UnitedStates);
        QList<double> positions, values;
        for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
            positions << it.key();
            values << english.toDouble(it.value());
        }
        QVERIFY2(values.size() >= 5, qPrintable(QString::number(values.size())));
        // 1, 151 (where the log2 part starts), then one ratio and about one distance.
        QCOMPARE(values.mid(0, 2), (QList<double>{1, 151}));
        for (int i = 2; i + 1 < values.size(); ++i) {
            QCOMPARE(values[i + 1] / values[i], values[3] / values[2]);
            QVERIFY2(std::abs((positions[i + 1] - positions[i]) - (positions[3] - positions[2])) < 10.0,
                     qPrintable(QStringLiteral("%1 at %2").arg(values[i + 1]).arg(positions[i + 1])));
        }
        // 1 .. 8 holds 8 values: every one, evenly spaced, no log2 part at all.
        page.xToBox()->setValue(8);
        QVERIFY(QTest::qWaitFor([&] { return !page.isBusy() && page.result() && page.result()->map.width() == 8; }, 30000));
        QVERIFY2(page.plot()->xAxis->label().endsWith(QStringLiteral("(every value, one cell each)")),
                 qPrintable(page.plot()->xAxis->label()));
    }

    // Smaller: the Tiles legend sat in the chart's top left, over the first steps and the "current M" label.
    void tilesLegendCoversNoData() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("gemm_bucket"), QStringLiteral("oproj")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.showPage(QStringLiteral("tiles")));
        PlotWidget* plot = window.tilesPage()->plot();
        QVERIFY(QTest::qWaitFor([&] { return plot->graphCount() > 0; }, 10000));
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(plot->legend->visible());
        const QRect legend = plot->legend->outerRect();
        const QRect chart = plot->axisRect()->rect();
        QVERIFY2(!legend.intersects(chart), qPrintable(QStringLiteral("legend %1,%2 %3x%4 in chart %5,%6 %7x%8")
                                                           .arg(legend.x())
                                                           .arg(legend.y())
                                                           .arg(legend.width())
                                                           .arg(legend.height())
                                                           .arg(chart.x())
                                                           .arg(chart.y())
                                                           .arg(chart.width())
                                                           .arg(chart.height())));
    }

    // Smaller: an exported Boundaries PNG had the map's colours and no key to read them by (the key is
    // a label under the plot, outside what the plot saved).
    void exportedMapCarriesItsColourKey() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        BoundaryPage* page = window.boundaryPage();
        QVERIFY(QTest::qWaitFor([&] { return !page->isBusy() && page->result(); }, 30000));
        QCoreApplication::processEvents();
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("map.png"));
        QVERIFY(page->plot()->exportTo(file));
        const QImage image(file);
        const int plotHeight = 2 * page->plot()->height();  // the plot is saved at twice its size
        QVERIFY2(image.height() > plotHeight, qPrintable(QStringLiteral("%1 <= %2").arg(image.height()).arg(plotHeight)));
        // Under the plot, the key's swatches: the unsupported_shape colour that fills most of the map.
        const QColor unsupported = toQColor(verdictColour(Verdict::UnsupportedShape));
        bool swatch = false;
        for (int y = plotHeight; y < image.height() && !swatch; ++y)
            for (int x = 0; x < image.width() && !swatch; ++x) swatch = image.pixelColor(x, y) == unsupported;
        QVERIFY(swatch);
    }

    // Smaller: the Perf page's empty hint (a sweep command whose axis values are one unbreakable word)
    // widened the window to 1,028 px and wrapped inside "--x".
    void performanceHintFitsTheScreen() {
        MainWindow window(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // As narrow as the window lets itself be made: the page then has the least width it gets.
        window.resize(window.minimumSizeHint().width(), kScreenHeight);
        QVERIFY(window.showPage(QStringLiteral("performance")));
        QVERIFY(window.performancePage()->isEmptyState());
        for (const QString& kernel : {QStringLiteral("attention"), QStringLiteral("awq_gemm"), QStringLiteral("gemm_bucket")}) {
            QVERIFY(window.state()->setKernel(kernel));
            const QString command = window.performancePage()->sweepCommandBox()->text();
            QVERIFY2(command.contains(QStringLiteral(" --x ")), qPrintable(command));
            QVERIFY2(!window.performancePage()->emptyLabel()->text().contains(QStringLiteral("--x")),
                     qPrintable(window.performancePage()->emptyLabel()->text()));
            QTest::qWait(50);
            QVERIFY2(window.minimumSizeHint().width() <= kScreenWidth, qPrintable(QString::number(window.minimumSizeHint().width())));
            QVERIFY2(window.width() <= kScreenWidth, qPrintable(QString::number(window.width())));
            // Nothing on the page needs more width than it has (else Qt widens the window or clips the
            // text): the command's axis values, one unbreakable word, made the label need 661 px.
            const QLabel* hint = window.performancePage()->emptyLabel();
            QVERIFY2(
                hint->minimumSizeHint().width() <= hint->width(),
                qPrintable(QStringLiteral("%1 needs %2 px, has %3").arg(kernel).arg(hint->minimumSizeHint().width()).arg(hint->width())));
            QLineEdit* line = window.performancePage()->sweepCommandBox();
            QVERIFY2(line->minimumSizeHint().width() <= line->width(), qPrintable(QString::number(line->width())));
        }
    }

    // Item 13: "Only flagged rows" stayed ticked across traces, so the MI250 sample (no flagged row) opened empty.
    void anotherTraceOpensUnfiltered() {
        MainWindow window(false);
        auto open = [&window](const QString& name) {
            window.openTrace(kSource + QStringLiteral("/resources/samples/") + name);
            QElapsedTimer timer;
            timer.start();
            while (window.isLoading() && timer.elapsed() < 60000) QTest::qWait(20);
            return !window.isLoading();
        };
        QVERIFY(open(QStringLiteral("hta_alexnet_a100.json.gz")));
        // Smaller item: Save Trace As offered "hta_alexnet_a100.json.tilescope.json".
        QCOMPARE(window.defaultTraceFileName(), QStringLiteral("hta_alexnet_a100.tilescope.json"));
        window.runsPage()->setFlaggedOnly(true);
        QVERIFY(window.runsPage()->proxy()->rowCount() < window.runsPage()->model()->rowCount());
        QVERIFY(open(QStringLiteral("hta_mi250_rocm_no_regs.json.gz")));
        QVERIFY(window.runsPage()->model()->rowCount() > 0);
        QCOMPARE(window.runsPage()->proxy()->rowCount(), window.runsPage()->model()->rowCount());
    }

    // Smaller item: Ctrl+G with no GPU gave no feedback (a disabled action's shortcut does nothing).
    void runShortcutWithoutAGpuSaysWhy() {
        MainWindow window(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.activateWindow();
        QTRY_VERIFY_WITH_TIMEOUT(!window.runAction()->isEnabled(), 5000);
        QTest::keyClick(&window, Qt::Key_G, Qt::ControlModifier);
        const QString said = window.statusBar()->currentMessage();
        QVERIFY2(said.contains(QStringLiteral("Run is off")), qPrintable(said));
    }

    // Smaller item: a label of a bar past 200 % ran off the chart at 1,024 px ("… over by 12" cut).
    void launchLabelsStayOnTheChart() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("custom")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("block_x=4096,grid_y=1048576")));
        window.resize(kScreenWidth, kScreenHeight);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showPage(QStringLiteral("launch"));
        QCoreApplication::processEvents();
        PlotWidget* plot = window.launchPage()->plot();
        plot->replot();
        const int right = plot->axisRect()->right();
        int overLabels = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(plot->item(i));
            if (!text || !text->text().contains(QStringLiteral("over by"))) continue;
            ++overLabels;
            const double end = text->position->pixelPosition().x() + QFontMetrics(text->font()).horizontalAdvance(text->text());
            QVERIFY2(end <= right, qPrintable(QStringLiteral("'%1' ends at %2 px, the chart at %3").arg(text->text()).arg(end).arg(right)));
        }
        QVERIFY(overLabels >= 2);
    }

    // Smaller items: Compare could equal Device; the Launch table said "1 blocks" and "1 threads".
    void compareIsAnotherDeviceAndOneIsSingular() {
        MainWindow window(false);
        ExplorerState* state = window.state();
        QVERIFY(!state->setCompareDevice(QString::fromStdString(state->device().id)));
        QVERIFY(state->setCompareDevice(QStringLiteral("t4")));
        QVERIFY(state->setDevice(QStringLiteral("t4")));
        QVERIFY(!state->compareDevice());
        QComboBox* compare = window.shapePanel()->compareBox();
        const auto* items = qobject_cast<QStandardItemModel*>(compare->model());
        QVERIFY(items);
        QVERIFY(!items->item(compare->findData(QStringLiteral("t4")))->isEnabled());
        QVERIFY(items->item(compare->findData(QStringLiteral("h100-sxm")))->isEnabled());
        LaunchModel* model = window.launchPage()->model();
        QStringList values;
        for (int r = 0; r < model->rowCount(); ++r) values << model->data(model->index(r, LaunchModel::Value)).toString();
        QVERIFY2(!values.join(QLatin1Char('|')).contains(QStringLiteral("1 blocks")), qPrintable(values.join(QLatin1Char('|'))));
        QVERIFY2(values.contains(QStringLiteral("1 block")), qPrintable(values.join(QLatin1Char('|'))));
    }

    // Item 8: the dark theme restored at start (from the settings) gives readable Launch page labels.
    void darkThemeRestoredAtStartIsReadable() {
        QSettings().setValue(QStringLiteral("appearance/theme"), QStringLiteral("dark"));
        {
            MainWindow window(true);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.showPage(QStringLiteral("launch"));
            QCoreApplication::processEvents();
            PlotWidget* plot = window.launchPage()->plot();
            const QColor background = plot->grab().toImage().pixelColor(3, 3);  // a corner: the background
            QVERIFY2(background.lightness() < 100, qPrintable(background.name()));
            int labels = 0;
            for (int i = 0; i < plot->itemCount(); ++i) {
                auto* text = qobject_cast<QCPItemText*>(plot->item(i));
                if (!text) continue;
                ++labels;
                QVERIFY2(std::abs(text->color().lightness() - background.lightness()) > 100,
                         qPrintable(QStringLiteral("'%1' in %2 on %3").arg(text->text(), text->color().name(), background.name())));
            }
            QVERIFY(labels > 0);
            window.setTheme(AppTheme::System);
        }
        QSettings().clear();
    }
};

int main(int argc, char* argv[]) {
    // A 1,024 x 700 offscreen screen: the window's fit to its screen is what items 1 and 2 test.
    return tilescope::test::execOnOffscreenScreen<NewUserTest>(argc, argv, kScreenWidth, kScreenHeight);
}

#include "new_user_test.moc"

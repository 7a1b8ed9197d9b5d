// The Shape panel and the verdict banner as a user meets them (issue #15): spin boxes driven with keys
// land on values the kernel accepts (item 7); a failing compare device turns the banner (item 2).
#include <QSpinBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QAction>
#include <QDockWidget>
#include <QFontMetrics>
#include <QTextDocument>
#include <QApplication>
#include <QTest>

#include "ui/window/app_theme.h"
#include "ui/pages/boundary_page.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/explorer_state.h"
#include "ui/models/launch_model.h"
#include "ui/pages/launch_page.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/window/main_window.h"
#include "ui/pages/occupancy_page.h"
#include "ui/docks/diagnose_dock.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/timeline_page.h"
#include "ui/pages/shared_memory_page.h"
#include "ui/pages/tiles_page.h"
#include "ui/widgets/shape_panel_widget.h"
#include "ui/widgets/verdict_banner_widget.h"

namespace tilescope {

class ExplorerPanelsTest : public QObject {
    Q_OBJECT
private slots:
    void arrowsAndPagesStepToAcceptedValues();
    void aFailingCompareDeviceColoursTheBanner();
    void viewMenuKeepsTheAmpersandOfTilesAndBuckets();
    void tabReachesTheParametersAndTheirLabelsHaveMnemonics();
    void aShapeRefusedBeforeAnyKernelDrawsNoLaunch();
    void viewThemeSwitchesToDarkAndBack();
    void everyVariantOpensOnAMapWithABoundary();
    void plotLabelsFitAt1024By700();
    void theDiagnoseDockAndATraceFitAt1024By700();
    void aFixWithALongShapeListWrapsAt1024();
};

void ExplorerPanelsTest::arrowsAndPagesStepToAcceptedValues() {
    ExplorerState state;
    QVERIFY(state.setKernel("awq_gemm", "gemm"));
    ShapePanelWidget panel(&state);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));

    auto* group = panel.findChild<QSpinBox*>(QStringLiteral("parameter_group_size"));
    QVERIFY(group);
    QCOMPARE(group->value(), 128);
    group->setFocus();
    QTest::keyClick(group, Qt::Key_Up);
    QCOMPARE(group->value(), 256);  // not 138
    QTest::keyClick(group, Qt::Key_Down);
    QTest::keyClick(group, Qt::Key_Down);
    QCOMPARE(group->value(), 64);
    QCOMPARE(state.shape()[parameterIndex(state.parameters(), "group_size")], 64);

    auto* m = panel.findChild<QSpinBox*>(QStringLiteral("parameter_M"));
    QVERIFY(m);
    m->setFocus();
    m->setValue(4096);
    QTest::keyClick(m, Qt::Key_PageUp);
    QCOMPARE(m->value(), 8192);  // not 4096 + 10 x 1,000
    QTest::keyClick(m, Qt::Key_Up);
    QCOMPARE(m->value(), 16384);

    QVERIFY(state.setKernel("attention", "fa2"));
    auto* headDim = panel.findChild<QSpinBox*>(QStringLiteral("parameter_head_dim"));
    QVERIFY(headDim);
    headDim->setFocus();
    QTest::keyClick(headDim, Qt::Key_Up);
    QCOMPARE(headDim->value(), 136);  // head_dim % 8 == 0 holds after a click
    QVERIFY(headDim->toolTip().contains(QStringLiteral("multiples of 8")));
}

// The case: fa2 on rtx-4090 passes, compared with t4 (sm_75, which FlashAttention-2 refuses)
// the banner stayed green.
void ExplorerPanelsTest::aFailingCompareDeviceColoursTheBanner() {
    ExplorerState state;
    QVERIFY(state.setKernel("attention", "fa2"));
    QVERIFY(state.setDevice("rtx-4090"));
    VerdictBannerWidget banner(&state);
    QVERIFY(state.plan().ok());
    QCOMPARE(banner.shownVerdict(), Verdict::Ok);
    QVERIFY(state.setCompareDevice("t4"));
    QVERIFY(state.comparePlan() && !state.comparePlan()->ok());
    QCOMPARE(banner.shownVerdict(), state.comparePlan()->verdict);
    QVERIFY2(banner.text().contains(QStringLiteral("t4: unsupported_device")), qPrintable(banner.text()));
    QVERIFY2(banner.text().contains(QStringLiteral("limit: ")), qPrintable(banner.text()));
    QVERIFY(state.setCompareDevice({}));
    QCOMPARE(banner.shownVerdict(), Verdict::Ok);
}

// Issue #15 item 12: the View menu read "Tiles  buckets" (both ampersands stripped).
void ExplorerPanelsTest::viewMenuKeepsTheAmpersandOfTilesAndBuckets() {
    MainWindow window(false);
    QStringList texts;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->text() == QStringLiteral("&View"))
            for (QAction* action : menu->menu()->actions()) texts << action->text();
    QVERIFY2(texts.contains(QStringLiteral("Tiles && buckets")), qPrintable(texts.join(QStringLiteral(" | "))));
    for (const QString& text : texts) QVERIFY2(!text.contains(QStringLiteral("  ")), qPrintable(text));
}

// Issue #15 item 15: Tab skipped M/N/K and their labels had no mnemonics.
void ExplorerPanelsTest::tabReachesTheParametersAndTheirLabelsHaveMnemonics() {
    ExplorerState state;
    QVERIFY(state.setKernel("awq_gemm", "gemm"));
    ShapePanelWidget panel(&state);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* runtime = panel.findChild<QComboBox*>(QStringLiteral("cudaRuntimeBox"));
    QVERIFY(runtime);
    // The next widget Tab gives focus to after the CUDA runtime box, and the one after M.
    auto nextFocus = [&](QWidget* from) {
        for (QWidget* w = from->nextInFocusChain(); w && w != from; w = w->nextInFocusChain())
            if ((w->focusPolicy() & Qt::TabFocus) && w->isVisibleTo(&panel) && w->isEnabled() && w != from && !from->isAncestorOf(w))
                return w;
        return static_cast<QWidget*>(nullptr);
    };
    const QStringList order = {QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K"), QStringLiteral("group_size")};
    QWidget* at = runtime;
    for (const QString& name : order) {
        auto* spin = panel.findChild<QSpinBox*>(QStringLiteral("parameter_") + name);
        QVERIFY(spin);
        QWidget* next = nextFocus(at);
        QVERIFY2(next == spin || spin->isAncestorOf(next), qPrintable(name + QStringLiteral(" is not next in the tab order")));
        at = spin;
        bool labelled = false;
        for (QLabel* label : panel.findChildren<QLabel*>())
            if (label->buddy() == spin) labelled = label->text() == QLatin1Char('&') + name;
        QVERIFY2(labelled, qPrintable(name));
    }
}

// Issue #15 item 4: group_size=138 drew an invented 1x1x1 launch "within limit" and blamed a missing
// ptxas table for the unknown registers.
void ExplorerPanelsTest::aShapeRefusedBeforeAnyKernelDrawsNoLaunch() {
    ExplorerState state;
    QVERIFY(state.setKernel("awq_gemm", "gemm"));
    LaunchPage page(&state);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(!page.showsNoLaunch());
    QVERIFY(page.model()->rowCount() > 0);
    QVERIFY(state.setParameter(parameterIndex(state.parameters(), "group_size"), 138));
    QVERIFY(!state.plan().ok());
    QVERIFY(page.showsNoLaunch());
    QCOMPARE(page.model()->rowCount(), 0);
    QVERIFY(page.noLaunchLabel()->isVisible());
    QVERIFY2(page.noLaunchLabel()->text().contains(QStringLiteral("multiple of 32")), qPrintable(page.noLaunchLabel()->text()));
    QVERIFY(state.setParameter(parameterIndex(state.parameters(), "group_size"), 128));
    QVERIFY(!page.showsNoLaunch());
    QVERIFY(page.model()->rowCount() > 0);
}

// Issue #15 item 15: no dark palette. View > Theme offers the system's, light and dark; the plots follow.
void ExplorerPanelsTest::viewThemeSwitchesToDarkAndBack() {
    const QPalette before = QApplication::palette();
    MainWindow window(false);
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* dark = window.findChild<QAction*>(QStringLiteral("theme_dark"));
    auto* system = window.findChild<QAction*>(QStringLiteral("theme_system"));
    QVERIFY(dark && system);
    QVERIFY(system->isChecked());
    dark->trigger();
    QVERIFY(dark->isChecked() && !system->isChecked());
    QCOMPARE(currentAppTheme(), AppTheme::Dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
    QVERIFY(QApplication::palette().color(QPalette::WindowText).lightness() > 180);
    QCoreApplication::processEvents();
    PlotWidget* plot = window.launchPage()->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(QColor(plot->grab().toImage().pixel(2, 2)).lightness() < 80);
    system->trigger();
    QCOMPARE(QApplication::palette().color(QPalette::Window), before.color(QPalette::Window));
    AppTheme parsed = AppTheme::System;
    QVERIFY(appThemeFromName(QStringLiteral("Dark"), &parsed) && parsed == AppTheme::Dark);
    QVERIFY(!appThemeFromName(QStringLiteral("sepia"), &parsed));
}

// Issue #15 item 8: GEMV opened on M x N, 99 % failing (it takes M=1 only). Each variant now names the
// plane of its failures, and its map shows cells on both sides of a boundary.
void ExplorerPanelsTest::everyVariantOpensOnAMapWithABoundary() {
    for (const auto& family : builtinKernels().families()) {
        for (const VariantInfo& variant : family->variants()) {
            const QString name = toQString(family->name()) + QLatin1Char('/') + QString::fromStdString(variant.name);
            ExplorerState state;
            QVERIFY(state.setKernel(toQString(family->name()), QString::fromStdString(variant.name)));
            BoundaryPage page(&state);
            QVERIFY2(QTest::qWaitFor([&] { return !page.isBusy() && page.result(); }, 60000), qPrintable(name));
            const BoundaryMap& map = page.result()->map;
            QCOMPARE(QString::fromStdString(state.parameters()[static_cast<std::size_t>(map.xAxis().parameter)].name),
                     QString::fromStdString(variant.mapX.parameter));
            const auto counts = map.verdictCounts();
            const auto ok = counts[static_cast<std::size_t>(Verdict::Ok)];
            // Both sides of a boundary in view: at least 5 % of the cells on each (GEMV's old M x N map had
            // one ok row in 128).
            const double okShare = static_cast<double>(ok) / static_cast<double>(map.cellCount());
            QVERIFY2(okShare >= 0.05 && okShare <= 0.95,
                     qPrintable(name + QStringLiteral(": %1 of %2 cells ok").arg(ok).arg(map.cellCount())));
        }
    }
}

// Issue #15 item 12: at 1,024 x 700 the Occupancy legends read "h100-" / "rtx-5" (four entries a row),
// and prefill's Shared-memory candidate names ran together on one line each.
void ExplorerPanelsTest::plotLabelsFitAt1024By700() {
    MainWindow window(false);
    QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("prefill")));
    QVERIFY(window.state()->setCompareDevice(QStringLiteral("rtx-5090")));
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.width(), 1024);  // nothing forces the window wider
    window.showPage(QStringLiteral("occupancy"));
    QCoreApplication::processEvents();
    // One key beside the three plots names both devices whole, for the longest ids too ("p100-sxm2-16gb
    // curre" was cut in a legend under each plot, issue 31 walk), and each plot's Y title fits its axis.
    for (const QString& compare :
         {QStringLiteral("rtx-5090"), QStringLiteral("p100-sxm2-16gb"), QStringLiteral("rtx-pro-6000-blackwell")}) {
        QVERIFY(window.state()->setCompareDevice(compare));
        QCoreApplication::processEvents();
        auto* key = window.occupancyPage()->findChild<QLabel*>(QStringLiteral("occupancyKey"));
        QVERIFY(key);
        QTextDocument keyText;
        keyText.setHtml(key->text());
        QVERIFY2(keyText.toPlainText().contains(compare) && keyText.toPlainText().contains(QStringLiteral("h100-sxm")),
                 qPrintable(keyText.toPlainText()));
        QVERIFY2(key->heightForWidth(key->width()) <= key->height(), qPrintable(key->text()));
        for (PlotWidget* plot : window.occupancyPage()->findChildren<PlotWidget*>()) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            QVERIFY(!plot->legend->visible());
            QCoreApplication::processEvents();  // the queued replot with a title that fits
            const int needed = QFontMetrics(plot->yAxis->labelFont()).horizontalAdvance(plot->yAxis->label());
            QVERIFY2(needed <= plot->axisRect()->rect().height(), qPrintable(QStringLiteral("%1: '%2' is %3 px on a %4 px axis")
                                                                                 .arg(plot->objectName(), plot->yAxis->label())
                                                                                 .arg(needed)
                                                                                 .arg(plot->axisRect()->rect().height())));
        }
    }
    // A legend under a plot takes fewer entries a row where the plot is narrower than they are: the Tiles
    // legend's three entries need 521 px, more than its plot's 468 px in the smallest window (800 x 500).
    window.showPage(QStringLiteral("tiles"));
    window.resize(800, 500);
    QTest::qWait(50);
    PlotWidget* tiles = window.tilesPage()->plot();
    tiles->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(tiles->legend->minimumOuterSizeHint().width() <= tiles->width(),
             qPrintable(
                 QStringLiteral("Tiles legend needs %1 px of %2").arg(tiles->legend->minimumOuterSizeHint().width()).arg(tiles->width())));
    window.resize(1024, 700);
    QTest::qWait(50);
    window.showPage(QStringLiteral("shared-memory"));
    QCoreApplication::processEvents();
    PlotWidget* smem = window.sharedMemoryPage()->findChild<PlotWidget*>();
    QVERIFY(smem);
    auto ticker = smem->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker && !ticker->ticks().isEmpty());
    for (const QString& label : ticker->ticks().values()) QVERIFY2(label.contains(QLatin1Char('\n')), qPrintable(label));

    // The Launch chart's labels end inside the chart: "— over by 2…" was cut at the right edge.
    QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
    QVERIFY(window.state()->setShapeText(QStringLiteral("M=32768,N=5376")));
    window.showPage(QStringLiteral("launch"));
    QCoreApplication::processEvents();
    PlotWidget* launch = window.launchPage()->plot();
    launch->replot(QCustomPlot::rpImmediateRefresh);
    const int right = launch->axisRect()->rect().right();
    int labels = 0;
    for (int i = 0; i < launch->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(launch->item(i));
        if (!text || text->text().isEmpty()) continue;
        ++labels;
        const double left = text->position->pixelPosition().x();
        const int width = QFontMetrics(text->font()).horizontalAdvance(text->text());
        QVERIFY2(left + width <= right + 1,
                 qPrintable(QStringLiteral("'%1' ends at %2, the chart at %3").arg(text->text()).arg(left + width).arg(right)));
    }
    QVERIFY(labels >= 13);
}

// Issue #15 item 12, the walk a newcomer takes at 1,024 x 700: with the Diagnose dock open the Launch
// chart got ~190 px for its 13 rows and their labels ran into each other; the Boundaries cell total was
// cut after "(M ho"; a long trace name in the Runs and Timeline summaries widened the window.
void ExplorerPanelsTest::theDiagnoseDockAndATraceFitAt1024By700() {
    MainWindow window(false);
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.diagnoseDock()->show();
    window.showPage(QStringLiteral("launch"));
    QCoreApplication::processEvents();
    QCOMPARE(window.width(), 1024);
    QVERIFY2(window.height() <= 700, qPrintable(QStringLiteral("the window grew to %1 px").arg(window.height())));
    PlotWidget* launch = window.launchPage()->plot();
    launch->replot(QCustomPlot::rpImmediateRefresh);
    const int rows = window.launchPage()->model()->rowCount();
    QVERIFY(rows >= 13);
    const double rowPixels = launch->axisRect()->rect().height() / static_cast<double>(rows);
    const int line = QFontMetrics(launch->yAxis->tickLabelFont()).height();
    QVERIFY2(rowPixels >= line, qPrintable(QStringLiteral("%1 px a row for %2 px labels").arg(rowPixels).arg(line)));

    window.showPage(QStringLiteral("boundaries"));
    QVERIFY(QTest::qWaitFor([&] { return !window.boundaryPage()->isBusy() && window.boundaryPage()->result(); }, 60000));
    QCoreApplication::processEvents();
    auto* total = window.boundaryPage()->findChild<QLabel*>(QStringLiteral("cellTotal"));
    QVERIFY(total && !total->text().isEmpty());
    // Shown whole: on one line it must fit the width; wrapped, its lines must fit the height.
    const bool whole = total->wordWrap() ? total->heightForWidth(total->width()) <= total->height()
                                         : QFontMetrics(total->font()).horizontalAdvance(total->text()) <= total->width();
    QVERIFY2(whole, qPrintable(QStringLiteral("'%1' is cut in %2 x %3 px").arg(total->text()).arg(total->width()).arg(total->height())));

    window.openTrace(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz"));
    QVERIFY(QTest::qWaitFor([&] { return !window.isLoading(); }, 60000));
    for (const char* page : {"runs", "timeline"}) {
        window.showPage(QString::fromLatin1(page));
        QCoreApplication::processEvents();
        QVERIFY2(window.width() == 1024,
                 qPrintable(QStringLiteral("%1 page: the window is %2 px wide").arg(QLatin1String(page)).arg(window.width())));
    }
}

// Issue #15 item 12: the fix's shape list ("batch=4,seqlen_q=4096,...,num_splits=0") is one word to the
// line breaker, so the banner held the window at 1,034 px (sm120_tile_search against rtx-5090).
void ExplorerPanelsTest::aFixWithALongShapeListWrapsAt1024() {
    MainWindow window(false);
    QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("sm120_tile_search")));
    QVERIFY(window.state()->setCompareDevice(QStringLiteral("rtx-5090")));
    QVERIFY(window.state()->setShapeText(QStringLiteral("batch=4,seqlen_q=4096,seqlen_k=4096,heads=32,head_dim=512,head_dim_v=512")));
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    VerdictBannerWidget* banner = window.banner();
    QVERIFY(banner);
    QVERIFY2(banner->text().contains(QStringLiteral("batch=4,seqlen_q=4096")), qPrintable(banner->text()));
    QCOMPARE(window.width(), 1024);
}

}  // namespace tilescope

QTEST_MAIN(tilescope::ExplorerPanelsTest)
#include "explorer_panels_test.moc"

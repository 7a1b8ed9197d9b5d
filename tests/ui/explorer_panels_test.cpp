// The Shape panel and the verdict banner as a user meets them (issue #15): spin boxes driven with keys
// land on values the kernel accepts (item 7); a failing compare device turns the banner (item 2).
#include <QSpinBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTest>

#include "ui/explorer_state.h"
#include "ui/main_window.h"
#include "ui/shape_panel_widget.h"
#include "ui/verdict_banner_widget.h"

namespace tilescope {

class ExplorerPanelsTest : public QObject {
    Q_OBJECT
private slots:
    void arrowsAndPagesStepToAcceptedValues();
    void aFailingCompareDeviceColoursTheBanner();
    void viewMenuKeepsTheAmpersandOfTilesAndBuckets();
    void tabReachesTheParametersAndTheirLabelsHaveMnemonics();
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

}  // namespace tilescope

QTEST_MAIN(tilescope::ExplorerPanelsTest)
#include "explorer_panels_test.moc"

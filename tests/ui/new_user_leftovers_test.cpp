// Issue 31, what was left of round 2 after new_user_test.cpp: on a 1,024 x 700 screen (main() below
// configures it, offscreen) every page tab is in sight, the Diagnose dock leaves every label whole,
// and an axis box states the range it takes.
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFontMetrics>
#include <QLabel>
#include <QRegularExpression>
#include <QScreen>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "new_user_support.h"
#include "ui/docks/diagnose_dock.h"
#include "ui/pages/boundary_page.h"
#include "ui/pages/launch_page.h"
#include "ui/widgets/plot_widget.h"
#include "ui/widgets/shape_spin_box.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"

using namespace tilescope;

namespace {

constexpr int kScreenWidth = 1024;
constexpr int kScreenHeight = 700;

using test::typeAndCommit;

// The part of `widget` its window shows, in the widget's coordinates: its rect cut by every
// ancestor's. A page given less height than its minimum keeps its layout and is cut at the bottom by
// the tab widget around it, so a label can be whole in its own rect and still half out of sight.
QRect shownPart(const QWidget* widget) {
    QRect shown = widget->rect();
    QPoint offset;  // the widget's origin in the current ancestor's coordinates
    for (const QWidget* child = widget; !child->isWindow() && child->parentWidget(); child = child->parentWidget()) {
        offset += child->pos();
        shown &= child->parentWidget()->rect().translated(-offset);
    }
    return shown;
}

// The labels of `root` whose text does not fit the part of them that shows: cut at the right (one
// line) or at the bottom (word-wrapped), by their own rect or by an ancestor's.
QStringList clippedLabels(QWidget* root) {
    QStringList clipped;
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!label->isVisibleTo(root) || label->text().isEmpty() || !label->pixmap().isNull()) continue;
        const QRect shown = shownPart(label);
        const int needed = label->wordWrap() ? label->heightForWidth(label->width()) : label->sizeHint().height();
        const bool cutBelow = needed > shown.height() || shown.top() > 0;
        const bool cutRight = (!label->wordWrap() && label->sizeHint().width() > label->width()) || shown.width() < label->width();
        if (cutBelow || cutRight)
            clipped << QStringLiteral("%1 '%2': %3x%4 shown, needs %5x%6")
                           .arg(label->objectName(), label->text().left(60))
                           .arg(shown.width())
                           .arg(shown.height())
                           .arg(label->wordWrap() ? label->width() : label->sizeHint().width())
                           .arg(needed);
    }
    return clipped;
}

}  // namespace

class NewUserLeftoversTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(kScreenWidth, kScreenHeight));
    }

    // The Backends tab sat behind the tab bar's scroll arrows at 1,024 px: every tab is in sight.
    void everyPageTabIsInSight() {
        MainWindow window(false);
        window.resize(kScreenWidth, kScreenHeight);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();
        QTabBar* bar = window.pages()->tabBar();
        for (int i = 0; i < bar->count(); ++i) {
            const QRect tab = bar->tabRect(i);
            QVERIFY2(bar->rect().contains(tab), qPrintable(QStringLiteral("tab '%1' at %2..%3 of a %4 px bar")
                                                               .arg(bar->tabText(i))
                                                               .arg(tab.left())
                                                               .arg(tab.right())
                                                               .arg(bar->width())));
            QVERIFY2(!bar->tabText(i).contains(QChar(0x2026)), qPrintable(bar->tabText(i)));
        }
        for (QToolButton* arrow : bar->findChildren<QToolButton*>()) QVERIFY2(!arrow->isVisible(), "the tab bar shows scroll arrows");
    }

    // With the Diagnose dock open at 1,024 x 700 the Boundaries legend lost its last line and a Launch
    // page label was cut: every label on those pages shows its whole text.
    void diagnoseDockLeavesEveryLabelWhole_data() {
        QTest::addColumn<QString>("page");
        QTest::newRow("launch") << "launch";
        QTest::newRow("boundaries") << "boundaries";
    }
    void diagnoseDockLeavesEveryLabelWhole() {
        QFETCH(QString, page);
        MainWindow window(false);
        window.resize(kScreenWidth, kScreenHeight);
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("M=32768,N=5376,K=4096,group_size=128")));
        QVERIFY(window.showPage(page));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.diagnoseDock()->show();
        if (page == QLatin1String("boundaries"))
            QVERIFY(QTest::qWaitFor([&] { return !window.boundaryPage()->isBusy() && window.boundaryPage()->result(); }, 30000));
        QTest::qWait(200);  // the queued replot and the layout after it
        QWidget* shown = window.pages()->currentWidget();
        const QStringList clipped = clippedLabels(shown);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
        // The map's axis titles fit their axes (the Y title "N (every value to 18, log2 scale above)" was
        // cut at both ends on a ~190 px axis).
        if (page == QLatin1String("boundaries")) {
            QCustomPlot* plot = window.boundaryPage()->plot();
            for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
                const QRect rect = axis->axisRect()->rect();
                const int length = axis->orientation() == Qt::Vertical ? rect.height() : rect.width();
                const int needed = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
                QVERIFY2(!axis->label().isEmpty() && needed <= length,
                         qPrintable(QStringLiteral("'%1' is %2 px on a %3 px axis").arg(axis->label()).arg(needed).arg(length)));
            }
        }
    }

    // With the Diagnose dock open at 1,024 x 700 a Launch page label was cut: every label of the chart
    // lies inside it, for shapes whose labels are long (over by, unknown, opt-in) or many.
    void launchLabelsStayInsideTheChartUnderTheDock_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("shape");
        QTest::newRow("TOUR 1: legacy_grid_y at M=32768") << "awq_gemm"
                                                          << "legacy_grid_y"
                                                          << "M=32768,N=5376,K=4096,group_size=128";
        QTest::newRow("custom over every limit") << "custom"
                                                 << "launch"
                                                 << "block_x=4096,grid_y=1048576";
        QTest::newRow("fa2 default") << "attention"
                                     << "fa2"
                                     << "";
        QTest::newRow("awq_gemv default") << "awq_gemv"
                                          << "gemv"
                                          << "";
        QTest::newRow("gemm_bucket default") << "gemm_bucket"
                                             << "oproj"
                                             << "";
    }
    void launchLabelsStayInsideTheChartUnderTheDock() {
        QFETCH(QString, kernel);
        QFETCH(QString, variant);
        QFETCH(QString, shape);
        MainWindow window(false);
        window.resize(kScreenWidth, kScreenHeight);
        QVERIFY(window.state()->setKernel(kernel, variant));
        if (!shape.isEmpty()) QVERIFY(window.state()->setShapeText(shape));
        QVERIFY(window.showPage(QStringLiteral("launch")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.diagnoseDock()->show();
        QTest::qWait(200);
        if (window.launchPage()->showsNoLaunch()) QSKIP("no launch to draw at this shape");
        PlotWidget* plot = window.launchPage()->plot();
        plot->replot();
        // A label clipped to the axis rect shows what lies inside it; one that is not (the "device limit"
        // caption above the chart), what lies inside the plot.
        const QRect chart = plot->axisRect()->rect().adjusted(-1, -1, 1, 1);
        const QRect whole = plot->rect();
        int labels = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(plot->item(i));
            if (!text || text->text().isEmpty()) continue;
            ++labels;
            const QRect rect = QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).toAlignedRect();
            const QRect shown = text->clipToAxisRect() ? chart : whole;
            QVERIFY2(shown.contains(rect), qPrintable(QStringLiteral("'%1' at %2,%3 %4x%5, shown in %6,%7 %8x%9")
                                                          .arg(text->text())
                                                          .arg(rect.x())
                                                          .arg(rect.y())
                                                          .arg(rect.width())
                                                          .arg(rect.height())
                                                          .arg(shown.x())
                                                          .arg(shown.y())
                                                          .arg(shown.width())
                                                          .arg(shown.height())));
        }
        QVERIFY(labels > 5);
        // The caption sits above the chart, over no row; each row has a text line's height at least.
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->text() == QLatin1String("device limit"))
                QVERIFY2(text->bottomRight->pixelPosition().y() <= plot->axisRect()->top() + 1,
                         qPrintable(QStringLiteral("caption ends at %1, the chart starts at %2")
                                        .arg(text->bottomRight->pixelPosition().y())
                                        .arg(plot->axisRect()->top())));
        const double rows = plot->yAxis->range().size();
        const double pitch = plot->axisRect()->height() / rows;
        QVERIFY2(pitch >= QFontMetrics(plot->yAxis->tickLabelFont()).height(), qPrintable(QString::number(pitch)));
    }

    // The exported Boundaries PNG got its colour key; a PDF of the same plot had none.
    void exportedMapPdfCarriesItsColourKey() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        BoundaryPage* page = window.boundaryPage();
        QVERIFY(QTest::qWaitFor([&] { return !page->isBusy() && page->result(); }, 30000));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("map.pdf"));
        QVERIFY(page->plot()->exportTo(file));
        QFile pdf(file);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const QRegularExpressionMatch box = QRegularExpression(QStringLiteral("/MediaBox \\[\\s*0\\s+0\\s+([0-9.]+)\\s+([0-9.]+)"))
                                                .match(QString::fromLatin1(pdf.readAll()));
        QVERIFY(box.hasMatch());
        // One page the plot's size in points, and the key's lines under it.
        QCOMPARE(qRound(box.captured(1).toDouble()), page->plot()->width());
        QVERIFY2(box.captured(2).toDouble() > page->plot()->height() + 20,
                 qPrintable(QStringLiteral("%1 for a %2 px plot").arg(box.captured(2)).arg(page->plot()->height())));
    }

    // The Boundaries page's M box said "0 … 16,777,216" and took 0, then drew the doubling axis from 1.
    void axisBoxStatesTheRangeItTakes() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("gemm")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        BoundaryPage* page = window.boundaryPage();
        QVERIFY(QTest::qWaitFor([&] { return !page->isBusy() && page->result(); }, 30000));
        auto* xParameter = page->findChild<QComboBox*>(QStringLiteral("xParameter"));
        QVERIFY(xParameter);
        QCOMPARE(xParameter->currentText(), QStringLiteral("M"));
        auto* from = qobject_cast<ShapeSpinBox*>(page->xFromBox());
        QVERIFY(from);
        QCOMPARE(from->minimum(), 1);
        typeAndCommit(from, QStringLiteral("0"));
        QVERIFY2(from->refusal().contains(QStringLiteral("1 \u2026 16,777,216")), qPrintable(from->refusal()));
        QCOMPARE(from->value(), 1);
    }
};

int main(int argc, char* argv[]) {
    // A 1,024 x 700 offscreen screen, as in new_user_test.cpp.
    return tilescope::test::execOnOffscreenScreen<NewUserLeftoversTest>(argc, argv, kScreenWidth, kScreenHeight);
}

#include "new_user_leftovers_test.moc"

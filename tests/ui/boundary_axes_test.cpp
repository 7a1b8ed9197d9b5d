// Issue #15 items 1 and 9, offscreen: the Boundaries map's axes land on values the kernel accepts
// (fa2's default map shows its supported region), ranges the user set survive variant and axis
// changes, labels sit on round values, the cell count says what it gives, a dense map keeps a thin
// compare outline; the Tiles page counts only values the kernel can be asked for.
#include <cmath>
#include <QComboBox>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>

#include "core/series/explorer_axis.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/pages/tiles_page.h"

namespace tilescope {

class BoundaryAxesTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void fa2DefaultMapShowsTheSupportedRegion();
    void rangesSurviveVariantAndAxisChanges();
    void ticksSitOnRoundValues();
    void cellsControlSaysWhatItGives();
    void denseMapKeepsAThinCompareOutline();
    void tilesCountOnlyValuesTheKernelTakes();
};

namespace {

bool waitForMap(BoundaryPage& page) {
    return QTest::qWaitFor([&] { return !page.isBusy() && page.result(); }, 30000);
}

QList<double> tickValues(QCPAxis* axis) {
    QList<double> values;
    auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker) return values;
    const QLocale english(QLocale::English, QLocale::UnitedStates);  // groupedNumber's
    for (const QString& label : ticker->ticks().values()) values << english.toDouble(label);
    return values;
}

}  // namespace

void BoundaryAxesTest::fa2DefaultMapShowsTheSupportedRegion() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state.plan().ok());  // the banner says ok
    BoundaryPage page(&state);
    QVERIFY(waitForMap(page));
    const BoundaryMap& map = page.result()->map;
    QCOMPARE(state.parameters()[static_cast<std::size_t>(map.xAxis().parameter)].name, std::string("head_dim"));
    for (const auto v : map.xAxis().values) QCOMPARE(v % 8, std::int64_t{0});
    // The map agrees with the banner: the current shape's cell is ok, and so are many more.
    const int ix = nearestAxisIndex(map.xAxis(), state.shape()[map.xAxis().parameter]);
    const int iy = nearestAxisIndex(*map.yAxis(), state.shape()[map.yAxis()->parameter]);
    QCOMPARE(map.xAxis().values[static_cast<std::size_t>(ix)], state.shape()[map.xAxis().parameter]);
    QCOMPARE(map.cell(ix, iy).verdict, Verdict::Ok);
    QVERIFY(map.verdictCounts()[static_cast<std::size_t>(Verdict::Ok)] >= 32);
}

void BoundaryAxesTest::rangesSurviveVariantAndAxisChanges() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    BoundaryPage page(&state);
    page.xFromBox()->setValue(64);
    page.xToBox()->setValue(256);
    QCOMPARE(page.xAxis().values.front(), std::int64_t{64});
    QCOMPARE(page.xAxis().values.back(), std::int64_t{256});

    // Another variant: the same head_dim range (it reset to 1 .. 1,024).
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("sm120_tile_search")));
    QCOMPARE(page.xAxis().values.front(), std::int64_t{64});
    QCOMPARE(page.xAxis().values.back(), std::int64_t{256});
    QCOMPARE(page.xFromBox()->value(), 64);

    // Another Y parameter: X keeps its range; Y's own range comes back when it is chosen again.
    const int seqlenK = parameterIndex(state.parameters(), "seqlen_k");
    page.yParameterBox()->setCurrentIndex(seqlenK + 1);
    QVERIFY(page.yAxis());
    QCOMPARE(page.yAxis()->parameter, seqlenK);
    QCOMPARE(page.xAxis().values.front(), std::int64_t{64});
    QCOMPARE(page.xAxis().values.back(), std::int64_t{256});
    page.yFromBox()->setValue(128);
    page.yToBox()->setValue(4096);
    page.yParameterBox()->setCurrentIndex(parameterIndex(state.parameters(), "heads") + 1);
    QCOMPARE(page.xAxis().values.back(), std::int64_t{256});
    page.yParameterBox()->setCurrentIndex(seqlenK + 1);
    QCOMPARE(page.yAxis()->values.front(), std::int64_t{128});
    QCOMPARE(page.yAxis()->values.back(), std::int64_t{4096});

    // Another family and back: still the ranges the user set there.
    QVERIFY(state.setKernel(QStringLiteral("awq_gemm"), QString()));
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QCOMPARE(page.xAxis().values.front(), std::int64_t{64});
    QCOMPARE(page.xAxis().values.back(), std::int64_t{256});
}

// Item 9: ticks at 1, 170, 339 ... 1,016.
void BoundaryAxesTest::ticksSitOnRoundValues() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    BoundaryPage page(&state);
    page.resize(1000, 640);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(waitForMap(page));
    const QList<double> x = tickValues(page.plot()->xAxis);
    QCOMPARE(x, (QList<double>{8, 128, 256, 384, 512, 640, 768, 896, 1024}));
    // fa2 opens on head_dim x batch (item 8): a log2 axis ticks at powers of two, ends included, and
    // where its every-value start (1 .. 18, one cell each) ends, which its label names (issue #31).
    const QList<double> y = tickValues(page.plot()->yAxis);
    QVERIFY(y.size() >= 5);
    QCOMPARE(y.front(), 1.0);
    QCOMPARE(y.back(), 65536.0);
    QVERIFY2(page.plot()->yAxis->label().contains(QStringLiteral("every value to 18, log2 scale above")),
             qPrintable(page.plot()->yAxis->label()));
    QVERIFY(y.contains(18.0));
    for (double v : y)
        if (v != 18.0) QCOMPARE(std::exp2(std::round(std::log2(v))), v);
}

// Item 9: "Cells 128" gave 11,236 cells and "Cells 82" gave 17.
void BoundaryAxesTest::cellsControlSaysWhatItGives() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("awq_gemm"), QString()));
    BoundaryPage page(&state);
    const int m = parameterIndex(state.parameters(), "M"), n = parameterIndex(state.parameters(), "N");
    page.xParameterBox()->setCurrentIndex(m);
    page.yParameterBox()->setCurrentIndex(n + 1);
    page.xFromBox()->setValue(1);
    page.xToBox()->setValue(65536);
    page.yFromBox()->setValue(1);
    page.yToBox()->setValue(65536);
    for (const int cells : {128, 82}) {
        page.cellsBox()->setValue(cells);
        QCOMPARE(static_cast<int>(page.xAxis().values.size()), cells);
        QCOMPARE(static_cast<int>(page.yAxis()->values.size()), cells);
        const QString total = QLocale(QLocale::English, QLocale::UnitedStates).toString(cells * cells);
        QVERIFY2(page.cellTotalText().contains(total), qPrintable(page.cellTotalText()));
    }
    QVERIFY(waitForMap(page));
    QCOMPARE(page.result()->map.cellCount(), std::int64_t{82 * 82});

    // A range holding fewer accepted values than cells says so.
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    page.xParameterBox()->setCurrentIndex(parameterIndex(state.parameters(), "head_dim"));
    page.yParameterBox()->setCurrentIndex(parameterIndex(state.parameters(), "head_dim_v") + 1);
    page.cellsBox()->setValue(1024);
    QCOMPARE(page.xAxis().values.size(), std::size_t{128});
    QVERIFY2(page.cellTotalText().contains(QStringLiteral("16,384")), qPrintable(page.cellTotalText()));
    QVERIFY2(page.cellTotalText().contains(QStringLiteral("multiples of 8")), qPrintable(page.cellTotalText()));
}

// Item 9: at 1,024 cells the compare outline (2.5 px between every pair of differing cells) was bands.
void BoundaryAxesTest::denseMapKeepsAThinCompareOutline() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state.setDevice(QStringLiteral("h100-sxm")));
    QVERIFY(state.setCompareDevice(QStringLiteral("rtx-4090")));
    BoundaryPage page(&state);
    page.resize(1000, 640);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(waitForMap(page));
    page.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const double coarse = page.compareOutlineWidth();
    QVERIFY2(coarse > 1.0, qPrintable(QString::number(coarse)));

    const ParameterList& p = state.parameters();
    auto x = parseSweepAxis("seqlen_k=64:65536:+64", p);  // 1,024 values
    auto y = parseSweepAxis("head_dim=8:1024:+8", p);
    QVERIFY(x && y);
    page.setAxis(false, *x);
    page.setAxis(true, *y);
    QVERIFY(waitForMap(page));
    QCOMPARE(page.result()->map.width(), 1024);
    QVERIFY(!page.result()->compareOutline.empty());
    page.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const double cell = page.plot()->axisRect()->rect().width() / 1024.0;
    QVERIFY2(page.compareOutlineWidth() <= std::max(1.0, cell), qPrintable(QString::number(page.compareOutlineWidth())));
}

// Item 1: Tiles & buckets along head_dim read "512 failing values" of 512.
void BoundaryAxesTest::tilesCountOnlyValuesTheKernelTakes() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state.setDevice(QStringLiteral("h100-sxm")));
    TilesPage page(&state);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    const TileSeries& series = page.series();
    QCOMPARE(series.points.size(), std::size_t{128});
    int failing = 0;
    for (const TilePoint& point : series.points) {
        QCOMPARE(point.value % 8, std::int64_t{0});
        if (point.verdict != Verdict::Ok) ++failing;
    }
    QCOMPARE(failing, 128 - 32);  // head_dim 8 .. 256 run, 264 .. 1,024 do not
    QVERIFY2(page.summaryText().contains(QStringLiteral("multiples of 8")), qPrintable(page.summaryText()));
    QVERIFY2(page.summaryText().contains(QStringLiteral("96 failing")), qPrintable(page.summaryText()));

    // Another variant keeps the axis the user set.
    page.fromBox()->setValue(64);
    page.toBox()->setValue(512);
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("sm120_tile_search")));
    QCOMPARE(page.fromBox()->value(), 64);
    QCOMPARE(page.toBox()->value(), 512);
}

}  // namespace tilescope

QTEST_MAIN(tilescope::BoundaryAxesTest)
#include "boundary_axes_test.moc"

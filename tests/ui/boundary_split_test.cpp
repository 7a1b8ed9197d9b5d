// Issue 19, offscreen: the Boundaries map over seqlen_k x batch draws where fa2's split-KV count
// changes (dotted lines and region labels from the core's split outline) and names it in the
// legend; the Runs page shows a split-KV run's two launches. Issue 30: a stack's dispatch has its own line.
#include <QStandardPaths>
#include <QTest>
#include <cmath>
#include <optional>

#include "core/series/boundary_colours.h"
#include "core/model/sweep.h"
#include "core/trace/trace.h"
#include "kernels/builtin_kernels.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/widgets/plot_widget.h"
#include "ui/models/run_model.h"

using namespace tilescope;

namespace {

// fa2 decoding on H200: one query per sequence, 32 heads; num_splits forced where given.
bool setDecodeShape(MainWindow& window, std::optional<std::int64_t> numSplits = std::nullopt) {
    if (!window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2"))) return false;
    if (!window.state()->setDevice(QStringLiteral("h200"))) return false;
    const ParameterList& p = window.state()->parameters();
    Shape shape = window.state()->shape();
    shape[parameterIndex(p, "seqlen_q")] = 1;
    shape[parameterIndex(p, "heads")] = 32;
    if (numSplits) shape[parameterIndex(p, "num_splits")] = *numSplits;
    return window.state()->setShape(shape);
}

// The Boundaries map over two axes given as sweep text, once it is computed; null when an axis does
// not parse or no map came.
const BoundaryResult* mapOver(MainWindow& window, const char* x, const char* y) {
    const ParameterList& p = window.state()->parameters();
    const auto xAxis = parseSweepAxis(x, p);
    const auto yAxis = parseSweepAxis(y, p);
    if (!xAxis || !yAxis) return nullptr;
    BoundaryPage* page = window.boundaryPage();
    page->setAxis(false, *xAxis);
    page->setAxis(true, *yAxis);
    if (!window.waitUntilIdle(30000)) return nullptr;
    return page->result();
}

}  // namespace

class BoundarySplitTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void seqlenKByBatchDrawsTheSplitBoundary() {
        MainWindow window(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(setDecodeShape(window));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        BoundaryPage* page = window.boundaryPage();
        const BoundaryResult* result = mapOver(window, "seqlen_k=64:2048:+64", "batch=1:8");
        QVERIFY(result);
        const BoundaryMap& map = result->map;
        QCOMPARE(map.width(), 32);
        QCOMPARE(map.height(), 8);

        // The page draws the core's outline of the planner's counts, not a count of its own.
        QCOMPARE(result->splitOutline, splitBoundaryOutline(map));
        QVERIFY(!result->splitOutline.empty());
        QCPCurve* curve = page->splitOutlineCurve();
        QVERIFY(curve->visible());
        QCOMPARE(curve->dataCount(), static_cast<int>(3 * result->splitOutline.size()));
        QCOMPARE(map.cell(0, 0).splits, 1);   // seqlen_k 64, batch 1: one 128-key block
        QCOMPARE(map.cell(15, 0).splits, 8);  // seqlen_k 1024: eight blocks, eight splits
        QCOMPARE(map.cell(15, 7).splits, 1);  // batch 8 x 32 heads fill the H200's 264 slots
        const QStringList labels = page->splitLabelTexts();
        QVERIFY(!labels.isEmpty());
        QVERIFY2(labels.contains(QStringLiteral("1")), qPrintable(labels.join(QLatin1Char(' '))));
        for (const SplitRegionLabel& region : result->splitLabels) QCOMPARE(map.cell(region.ix, region.iy).splits, region.splits);
        QVERIFY2(page->legendText().contains(QStringLiteral("split count")), qPrintable(page->legendText()));
        QVERIFY2(page->cellDescription(15, 0).contains(QStringLiteral("num_splits 8")), qPrintable(page->cellDescription(15, 0)));

        // On screen: the dotted line between seqlen_k 64 and 128 (1 split) and 192 (2 splits) of
        // row batch 1 leaves light pixels on the ok cells' green.
        PlotWidget* plot = page->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage rendered = plot->grab().toImage();
        const int edgeX = static_cast<int>(std::lround(plot->xAxis->coordToPixel(1.5)));
        const int top = static_cast<int>(std::lround(plot->yAxis->coordToPixel(0.5)));
        const int bottom = static_cast<int>(std::lround(plot->yAxis->coordToPixel(-0.5)));
        const int crosshair = static_cast<int>(std::lround(plot->yAxis->coordToPixel(0.0)));  // batch 1: the shape's row
        int light = 0;
        for (int py = top + 1; py < bottom; ++py) {
            if (std::abs(py - crosshair) <= 2) continue;
            const QColor c = rendered.pixelColor(edgeX, py);
            light += c.red() > 200 && c.green() > 200 && c.blue() > 200;
        }
        QVERIFY2(light > 0, "no dotted split line between seqlen_k 128 and 192");
    }

    void forcedSplitsShowTheGridZEdgeAndNoSplitLine() {
        MainWindow window(false);
        QVERIFY(setDecodeShape(window, 4));
        BoundaryPage* page = window.boundaryPage();
        const BoundaryResult* result = mapOver(window, "seqlen_k=64:1024:+64", "batch=2040:2056");
        QVERIFY(result);
        const BoundaryMap& map = result->map;
        for (int iy = 0; iy < map.height(); ++iy)
            QCOMPARE(map.cell(0, iy).verdict == Verdict::Ok, map.yAxis()->values[static_cast<std::size_t>(iy)] <= 65535 / 32);
        QVERIFY(result->splitOutline.empty());
        QVERIFY(!page->splitOutlineCurve()->visible());
        QVERIFY(page->splitLabelTexts().isEmpty());
        QVERIFY2(page->legendText().contains(QStringLiteral("splits its work 4 ways (num_splits)")), qPrintable(page->legendText()));
        // Attention's own word only: the legend named "split-KV num_splits, split-K" on every family.
        QVERIFY2(!page->legendText().contains(QStringLiteral("split-K")), qPrintable(page->legendText()));
        QVERIFY2(page->cellDescription(0, map.height() - 1).contains(QStringLiteral("max_grid_dim_z")),
                 qPrintable(page->cellDescription(0, map.height() - 1)));
    }

    // Issue 30: awq_gemm autoawq dispatches to dequantize + cuBLAS from M = 1024; the map draws that edge
    // as its own dashed line (not as a split change) and the Runs page names cuBLAS for the second launch.
    void autoAwqDispatchDrawsItsLine() {
        MainWindow window(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("autoawq")));
        QVERIFY(window.state()->setDevice(QStringLiteral("h200")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        BoundaryPage* page = window.boundaryPage();
        const BoundaryResult* result = mapOver(window, "M=64:2048:+64", "N=1024:4096:+1024");
        QVERIFY(result);
        QCOMPARE(result->dispatchOutline, dispatchBoundaryOutline(result->map));
        QVERIFY(!result->dispatchOutline.empty());
        QVERIFY(page->dispatchOutlineCurve()->visible());
        QVERIFY(!page->splitOutlineCurve()->visible());
        QVERIFY(!result->map.cell(14, 0).callsLibrary);  // M = 960
        QVERIFY(result->map.cell(15, 0).callsLibrary);   // M = 1024
        QVERIFY2(page->legendText().contains(QStringLiteral("dispatch")), qPrintable(page->legendText()));

        Trace trace;
        Run run;
        run.kind = RunKind::Predicted;
        const KernelChoice k = *resolveKernel(builtinKernels(), "awq_gemm", "autoawq");
        run.parameters = k.family->parameters();
        run.plan = k.family->plan(k.variant, *parseShape("M=4096,N=14336,K=4096,group_size=128", run.parameters),
                                  *DeviceDatabase::embedded().find("h200"), PlanDetail::Full);
        trace.runs.push_back(run);
        RunModel model;
        model.setTrace(&trace);
        QCOMPARE(model.index(0, RunModel::Grid).data().toString(), QStringLiteral("(224, 512, 1) + cuBLAS"));
        QVERIFY2(model.index(0, RunModel::Grid).data(Qt::ToolTipRole).toString().contains(QStringLiteral("then gemm by cuBLAS")),
                 qPrintable(model.index(0, RunModel::Grid).data(Qt::ToolTipRole).toString()));
    }

    void runsShowBothLaunches() {
        Trace trace;
        Run run;
        run.kind = RunKind::Predicted;
        const KernelChoice k = *resolveKernel(builtinKernels(), "attention", "fa2");
        run.parameters = k.family->parameters();
        Shape shape = *parseShape("batch=1,seqlen_q=1,seqlen_k=32768,heads=32", run.parameters);
        run.plan = k.family->plan(k.variant, shape, *DeviceDatabase::embedded().find("h200"), PlanDetail::Full);
        QCOMPARE(run.plan.extraLaunches.size(), std::size_t{1});
        trace.runs.push_back(run);
        RunModel model;
        model.setTrace(&trace);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RunModel::Grid).data().toString(), QStringLiteral("(1, 7, 32) + (8, 1, 1)"));
        QCOMPARE(model.index(0, RunModel::Block).data().toString(), QStringLiteral("(128, 1, 1) + (128, 1, 1)"));
        QCOMPARE(model.index(0, RunModel::Smem).data().toString(), QStringLiteral("81920 + 160"));
        QCOMPARE(model.index(0, RunModel::Grid).data(RunModel::SortRole).toLongLong(), 224LL);
        const QString tip = model.index(0, RunModel::Grid).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("flash_fwd_splitkv_d128_m64n128w4")) &&
                     tip.contains(QStringLiteral("then combine flash_fwd_splitkv_combine_m4")),
                 qPrintable(tip));
    }
};

QTEST_MAIN(BoundarySplitTest)
#include "boundary_split_test.moc"

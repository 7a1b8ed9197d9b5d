// Drives the tilescope window through its widgets, offscreen: parameter -> banner and Launch
// page; axes -> boundary map colours equal to the core's own sweep; click -> shape; fix
// button -> passing shape; every page of every family renders.
#include <QComboBox>
#include <QApplication>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/series/boundary_colours.h"
#include "core/series/explorer_axis.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/models/launch_model.h"
#include "ui/pages/launch_page.h"
#include "ui/window/main_window.h"
#include "ui/pages/occupancy_page.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/shape_panel_widget.h"
#include "ui/pages/shared_memory_page.h"
#include "ui/pages/tiles_page.h"
#include "ui/widgets/verdict_banner_widget.h"

using namespace tilescope;

namespace {

QSpinBox* spin(MainWindow& window, const char* parameter) {
    return window.shapePanel()->findChild<QSpinBox*>(QStringLiteral("parameter_") + QLatin1String(parameter));
}

QString launchValue(MainWindow& window, const QString& quantity) {
    LaunchModel* model = window.launchPage()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->data(model->index(r, LaunchModel::Quantity)).toString() == quantity)
            return model->data(model->index(r, LaunchModel::Value)).toString();
    return {};
}

// Distinct colours in a rendered widget: an empty plot has only background and axes.
int colourCount(QWidget* widget) {
    const QImage image = widget->grab().toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void parameterChangeUpdatesBannerAndLaunchPage() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.state()->setDevice(QStringLiteral("h100-sxm")));
        QSpinBox* m = spin(window, "M");
        QSpinBox* n = spin(window, "N");
        QVERIFY(m && n);
        n->setValue(5376);
        m->setValue(16);
        QVERIFY2(window.banner()->text().startsWith(QStringLiteral("h100-sxm: ok")), qPrintable(window.banner()->text()));
        QCOMPARE(launchValue(window, QStringLiteral("grid.y")), QStringLiteral("42 blocks"));

        // The launch error is named as the chosen CUDA runtime names it (Shape panel).
        QComboBox* runtime = window.shapePanel()->cudaRuntimeBox();
        runtime->setCurrentIndex(runtime->findData(12));
        QCOMPARE(window.state()->cudaRuntime(), 12);
        m->setValue(32768);
        const QString banner = window.banner()->text();
        QVERIFY2(banner.contains(QStringLiteral("invalid_launch: CUDA error: invalid configuration argument")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("limit: max_grid_dim_y = 65,535, actual 86,016")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("fix: nearest passing M: 24960")), qPrintable(banner));
        QCOMPARE(launchValue(window, QStringLiteral("grid.y")), QStringLiteral("86,016 blocks"));
        QVERIFY(window.windowTitle().contains(QStringLiteral("invalid_launch")));
        QVERIFY(window.statusText().contains(QStringLiteral("mode: model")));
        QVERIFY(window.statusText().contains(QStringLiteral("h100-sxm")));
        runtime->setCurrentIndex(runtime->findData(13));
        QVERIFY2(window.banner()->text().contains(QStringLiteral("invalid_launch: CUDA error: invalid argument")),
                 qPrintable(window.banner()->text()));
        QCOMPARE(window.state()->plan().cudaError->name, std::string_view("cudaErrorInvalidValue"));
        QVERIFY(window.state()->setDevice(QStringLiteral("a100-80gb-sxm")));  // the choice outlives a device change
        QCOMPARE(window.state()->cudaRuntime(), 13);
    }

    void boundaryCellsMatchCoreSweep() {
        MainWindow window(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        BoundaryPage* page = window.boundaryPage();
        const ParameterList& p = window.state()->parameters();
        // Pick the axes through the page's own combo boxes, as a user does.
        page->xParameterBox()->setCurrentIndex(parameterIndex(p, "M"));
        page->yParameterBox()->setCurrentIndex(parameterIndex(p, "N") + 1);
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryResult* result = page->result();
        QVERIFY(result);
        const BoundaryMap& shown = result->map;
        QCOMPARE(shown.xAxis().parameter, parameterIndex(p, "M"));
        QVERIFY(shown.yAxis());
        QCOMPARE(shown.yAxis()->parameter, parameterIndex(p, "N"));

        BoundaryMap core(window.state()->kernel(), window.state()->device(), window.state()->shape(), shown.xAxis(), shown.yAxis());
        QVERIFY(evaluateBoundaryMap(core));
        QCOMPARE(result->image.width(), core.width());
        QCOMPARE(result->image.height(), core.height());
        QSet<int> kinds;
        for (int iy = 0; iy < core.height(); ++iy) {
            for (int ix = 0; ix < core.width(); ++ix) {
                const Verdict v = core.cell(ix, iy).verdict;
                kinds.insert(static_cast<int>(v));
                QCOMPARE(result->image.pixel(ix, core.height() - 1 - iy), verdictColour(v).argb());
            }
        }
        QVERIFY(kinds.contains(static_cast<int>(Verdict::Ok)));
        QVERIFY(kinds.contains(static_cast<int>(Verdict::InvalidLaunch)));

        // And on screen: sample rendered cell centres away from the crosshair.
        PlotWidget* plot = page->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage rendered = plot->grab().toImage();
        const QPoint cross = page->cellCentre(static_cast<int>(std::lround(axisPosition(shown.xAxis(), window.state()->shape()[0]))),
                                              static_cast<int>(std::lround(axisPosition(*shown.yAxis(), window.state()->shape()[1]))));
        int checked = 0;
        for (int iy = 1; iy < core.height(); iy += 7) {
            for (int ix = 1; ix < core.width(); ix += 7) {
                const QPoint c = page->cellCentre(ix, iy);
                if (std::abs(c.x() - cross.x()) < 4 || std::abs(c.y() - cross.y()) < 4) continue;
                QCOMPARE(rendered.pixel(c * rendered.devicePixelRatio()) | 0xFF000000u, verdictColour(core.cell(ix, iy).verdict).argb());
                ++checked;
            }
        }
        QVERIFY(checked > 50);
    }

    void clickOnCellMovesShape() {
        MainWindow window(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        QVERIFY(window.waitUntilIdle(30000));
        BoundaryPage* page = window.boundaryPage();
        const BoundaryMap& map = page->result()->map;
        QVERIFY(map.yAxis());
        const int ix = map.width() * 3 / 4, iy = map.height() * 2 / 3;
        QTest::mouseClick(page->plot(), Qt::LeftButton, Qt::NoModifier, page->cellCentre(ix, iy));
        const Shape& shape = window.state()->shape();
        QCOMPARE(shape[map.xAxis().parameter], map.xAxis().values[static_cast<std::size_t>(ix)]);
        QCOMPARE(shape[map.yAxis()->parameter], map.yAxis()->values[static_cast<std::size_t>(iy)]);
        QCOMPARE(window.state()->plan().verdict, map.cell(ix, iy).verdict);
        // The spin boxes follow the click.
        QCOMPARE(static_cast<std::int64_t>(spin(window, "M")->value()), shape[map.xAxis().parameter]);
    }

    void hoverDescribesCell() {
        MainWindow window(false);
        QVERIFY(window.state()->setCudaRuntime(12));
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryMap& map = window.boundaryPage()->result()->map;
        int found = 0;
        for (int iy = 0; iy < map.height() && !found; ++iy)
            for (int ix = 0; ix < map.width() && !found; ++ix)
                if (map.cell(ix, iy).verdict == Verdict::InvalidLaunch) {
                    const QString text = window.boundaryPage()->cellDescription(ix, iy);
                    QVERIFY2(text.contains(QStringLiteral("invalid_launch: CUDA error: invalid configuration argument")), qPrintable(text));
                    QVERIFY2(text.contains(QStringLiteral("max_grid_dim_y")), qPrintable(text));
                    found = 1;
                }
        QVERIFY(found);
    }

    void fixButtonMovesToPassingShape() {
        MainWindow window(false);
        window.show();
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        QVERIFY(window.state()->setShapeText(QStringLiteral("M=32768,N=5376,K=4096,group_size=128")));
        QVERIFY(!window.state()->plan().ok());
        QPushButton* fix = window.banner()->fixButton();
        QVERIFY(fix->isVisible());
        QVERIFY(fix->isEnabled());
        QTest::mouseClick(fix, Qt::LeftButton);
        QVERIFY(window.state()->plan().ok());
        QCOMPARE(window.state()->shape()[0], std::int64_t{24960});
        QVERIFY(window.banner()->text().startsWith(QStringLiteral("h100-sxm: ok")));
        QVERIFY(!fix->isVisible());
    }

    void newestMapWinsAfterRapidChanges() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        const int k = parameterIndex(window.state()->parameters(), "K");
        for (int i = 1; i <= 40; ++i) window.state()->setParameter(k, 128 * i);  // like a held spin box
        QVERIFY(window.boundaryPage()->isBusy());
        QVERIFY(window.waitUntilIdle(30000));
        QCOMPARE(window.boundaryPage()->result()->map.baseShape()[k], std::int64_t{128 * 40});
    }

    void explicitAxesAreUsed() {  // the --x / --y path of main.cpp
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y")));
        const ParameterList& p = window.state()->parameters();
        auto x = parseSweepAxis("M=128:32768:+128", p);
        auto y = parseSweepAxis("N=64:16384:+64", p);
        QVERIFY(x && y);
        window.boundaryPage()->setAxis(false, *x);
        window.boundaryPage()->setAxis(true, *y);
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryMap& map = window.boundaryPage()->result()->map;
        QCOMPARE(map.width(), 256);
        QCOMPARE(map.height(), 256);
        QCOMPARE(map.xAxis().values.back(), std::int64_t{32768});
        QCOMPARE(map.yAxis()->values.front(), std::int64_t{64});
    }

    // Issue 12: a head_dim axis moves head_dim_v with it while the shape holds them equal, and says so.
    void headDimAxisMovesHeadDimV() {
        MainWindow window(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
        QVERIFY(window.showPage(QStringLiteral("boundaries")));
        const ParameterList& p = window.state()->parameters();
        const int hd = parameterIndex(p, "head_dim"), hdv = parameterIndex(p, "head_dim_v");
        auto x = parseSweepAxis("head_dim=64:288:+32", p);
        QVERIFY(x);
        BoundaryPage* page = window.boundaryPage();
        page->clearYAxis();
        page->setAxis(false, *x);
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryMap* map = &page->result()->map;
        QCOMPARE(map->xAxis().followers, std::vector<int>{hdv});
        for (int ix = 0; ix < map->width(); ++ix) {
            const std::int64_t value = map->xAxis().values[static_cast<std::size_t>(ix)];
            QCOMPARE(map->shapeAt(ix, 0)[hdv], value);
            QCOMPARE(map->cell(ix, 0).verdict == Verdict::Ok, value <= 256);
        }
        QVERIFY2(page->plot()->xAxis->label().contains(QStringLiteral("head_dim (head_dim_v with it)")),
                 qPrintable(page->plot()->xAxis->label()));
        // A click moves both, so the tie holds.
        QTest::mouseClick(page->plot(), Qt::LeftButton, Qt::NoModifier, page->cellCentre(3, 0));
        QCOMPARE(window.state()->shape()[hd], map->xAxis().values[3]);
        QCOMPARE(window.state()->shape()[hdv], map->xAxis().values[3]);
        // Set apart in the shape, head_dim_v stays where it is.
        QVERIFY(window.state()->setParameter(hdv, 64));
        QVERIFY(window.waitUntilIdle(30000));
        map = &page->result()->map;
        QVERIFY(map->xAxis().followers.empty());
        QCOMPARE(map->shapeAt(0, 0)[hdv], std::int64_t{64});
        QVERIFY(!page->plot()->xAxis->label().contains(QStringLiteral("with it")));
        // The Tiles page uses the same rule.
        QVERIFY(window.state()->setParameter(hdv, window.state()->shape()[hd]));
        QVERIFY(window.waitUntilIdle(30000));
        QVERIFY(window.showPage(QStringLiteral("tiles")));
        window.tilesPage()->setParameter(hd);
        QCOMPARE(window.tilesPage()->series().axis.followers, std::vector<int>{hdv});
        QVERIFY(window.tilesPage()->plot()->xAxis->label().contains(QStringLiteral("head_dim_v with it")));
    }

    void oneAxisGivesOneDimensionalMap() {
        MainWindow window(false);
        QVERIFY(window.state()->setKernel(QStringLiteral("gemm_bucket")));
        window.boundaryPage()->yParameterBox()->setCurrentIndex(0);  // none
        QVERIFY(window.waitUntilIdle(30000));
        const BoundaryMap& map = window.boundaryPage()->result()->map;
        QVERIFY(!map.yAxis());
        QCOMPARE(map.height(), 1);
        QCOMPARE(window.boundaryPage()->result()->image.height(), 1);
    }

    void everyPageRendersForEveryFamily_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("variant");
        ExplorerState state;
        for (const auto& family : state.registry().families())
            for (const VariantInfo& v : family->variants())
                QTest::newRow(qPrintable(toQString(family->name()) + QLatin1Char('/') + QString::fromStdString(v.name)))
                    << toQString(family->name()) << QString::fromStdString(v.name);
    }

    void everyPageRendersForEveryFamily() {
        QFETCH(QString, family);
        QFETCH(QString, variant);
        MainWindow window(false);
        window.resize(1280, 800);
        window.show();
        QVERIFY(window.state()->setKernel(family, variant));
        QVERIFY(window.state()->setCompareDevice(QStringLiteral("rtx-5090")));
        QVERIFY(window.waitUntilIdle(30000));
        for (const QString& name : MainWindow::pageNames()) {
            QVERIFY(window.showPage(name));
            QCoreApplication::processEvents();
            QVERIFY(!window.pages()->currentWidget()->grab().isNull());
            for (PlotWidget* plot : window.pages()->currentWidget()->findChildren<PlotWidget*>()) {
                plot->replot(QCustomPlot::rpImmediateRefresh);
                QVERIFY2(colourCount(plot) > 4, qPrintable(name + QLatin1Char(' ') + plot->objectName()));
            }
        }
        // A family of a stack's rules only (issue 29) plans no launch: the Launch page says so instead.
        if (!window.state()->plan().hasLaunch()) {
            QVERIFY(window.launchPage()->showsNoLaunch());
            return;
        }
        QVERIFY(window.launchPage()->model()->rowCount() > 0);
        QVERIFY(window.occupancyPage()->blockSizePlot()->graphCount() >= 2);  // primary + compare
        QVERIFY(window.occupancyPage()->blockSizePlot()->graph(0)->dataCount() > 0);
        QVERIFY(window.sharedMemoryPage()->plot()->plottableCount() > 0);
        QCOMPARE(window.boundaryPage()->result()->map.kernel().family->name(), family.toStdString());
        QVERIFY(!window.tilesPage()->series().points.empty());
    }

    void registersComeFromTheCompiler() {
        // The generated ptxas table gives the default plan's registers: shown as a number, and the
        // occupancy page uses it instead of an assumption.
        MainWindow window(false);
        window.show();
        QVERIFY(window.showPage(QStringLiteral("occupancy")));
        const auto& plan = window.state()->plan();
        QVERIFY(plan.registers.has_value());
        QCOMPARE(launchValue(window, QStringLiteral("registers per thread")), QStringLiteral("%1 registers").arg(*plan.registers));
        QVERIFY(!window.occupancyPage()->summary().contains(QStringLiteral("<b>unknown</b>")));
        QVERIFY(!window.occupancyPage()->assumedRegistersBox()->isEnabled());
    }

    void plotsFollowThePalette() {
        MainWindow window(false);
        window.resize(1280, 800);
        window.show();
        PlotWidget* plot = window.launchPage()->plot();
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Window, QColor(0x30, 0x30, 0x30));
        dark.setColor(QPalette::WindowText, QColor(0xE0, 0xE0, 0xE0));
        QApplication::setPalette(dark);
        QCoreApplication::processEvents();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = plot->grab().toImage();
        QCOMPARE(QColor(image.pixel(2, 2)), QColor(0x20, 0x20, 0x20));
        QCOMPARE(plot->xAxis->tickLabelColor(), QColor(0xE0, 0xE0, 0xE0));
        QApplication::setPalette(light);
    }

    void settingsRestoreTheLastShape() {
        QCoreApplication::setOrganizationName(QStringLiteral("tilescope-tests"));
        QSettings().clear();
        {
            MainWindow window(true);
            QVERIFY(window.state()->setKernel(QStringLiteral("attention"), QStringLiteral("sm120_tile_search")));
            QVERIFY(window.state()->setDevice(QStringLiteral("rtx-5090")));
            QVERIFY(window.state()->setCompareDevice(QStringLiteral("h100-sxm")));
            QVERIFY(window.state()->setShapeText(QStringLiteral("head_dim=256,head_dim_v=256")));
            QVERIFY(window.state()->setCudaRuntime(toolkitCudaRuntime() == 12 ? 13 : 12));  // not the default
            window.close();
        }
        MainWindow restored(true);
        QCOMPARE(toQString(restored.state()->kernel().family->name()), QStringLiteral("attention"));
        QCOMPARE(toQString(restored.state()->kernel().variantName()), QStringLiteral("sm120_tile_search"));
        QCOMPARE(QString::fromStdString(restored.state()->device().id), QStringLiteral("rtx-5090"));
        QVERIFY(restored.state()->compareDevice());
        QCOMPARE(restored.state()->shape()[parameterIndex(restored.state()->parameters(), "head_dim")], std::int64_t{256});
        QCOMPARE(restored.state()->cudaRuntime(), toolkitCudaRuntime() == 12 ? 13 : 12);
        QCOMPARE(restored.shapePanel()->cudaRuntimeBox()->currentData().toInt(), restored.state()->cudaRuntime());
        QSettings().clear();
    }

    void screenshotWritesPng() {
        QTemporaryDir dir;
        MainWindow window(false);
        QVERIFY(window.showPage(QStringLiteral("occupancy")));
        const QString file = dir.filePath(QStringLiteral("shot.png"));
        QVERIFY(window.saveScreenshot(file, QSize(1280, 800)));
        const QImage image(file);
        QVERIFY(image.width() >= 1280 && image.height() >= 800);
    }

    void plotExportsPngAndPdf() {
        QTemporaryDir dir;
        MainWindow window(false);
        window.resize(1280, 800);
        window.show();
        PlotWidget* plot = window.launchPage()->plot();
        QVERIFY(plot->exportTo(dir.filePath(QStringLiteral("launch.png"))));
        QVERIFY(plot->exportTo(dir.filePath(QStringLiteral("launch.pdf"))));
        QVERIFY(!plot->exportTo(dir.filePath(QStringLiteral("launch.bmpx"))));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("launch.pdf"))).size() > 1000);
        QVERIFY(!QImage(dir.filePath(QStringLiteral("launch.png"))).isNull());
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"

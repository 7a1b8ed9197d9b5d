// Interactive latency of the desktop app, measured with QElapsedTimer (not a timed test):
//  1. parameter change -> boundary map (256 x 256 cells) recomputed off the GUI thread and
//     repainted, with and without a compare-device;
//  2. the GUI-thread time of one change (what decides whether a held spin box stutters);
//  3. cold start -> first painted boundary map, each run a fresh process.
// Usage: boundary_repaint_bench [--changes N] [--cold-runs N]; QT_QPA_PLATFORM=offscreen.
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <vector>

#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/widgets/plot_widget.h"

using namespace tilescope;

namespace {

constexpr int kCells = 256;

struct Stats {
    double median = 0, p90 = 0, max = 0;
};

// CPU time of the calling thread: unlike wall time, not inflated by other processes on a
// shared machine.
double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

Stats summarise(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)], v.back()};
}

void print(const char* what, const Stats& s, std::size_t n) {
    std::printf("%-58s median %7.2f ms  p90 %7.2f ms  max %7.2f ms  (n=%zu)\n", what, s.median, s.p90, s.max, n);
}

// An exactly kCells-long linear axis over a parameter.
SweepAxis linearAxis(const ParameterList& p, const char* name, std::int64_t step) {
    SweepAxis axis{parameterIndex(p, name), {}, AxisScale::Linear, {}};
    for (int i = 1; i <= kCells; ++i) axis.values.push_back(step * i);
    return axis;
}

void setUp(MainWindow& window) {
    window.resize(1440, 900);
    window.show();
    window.state()->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("legacy_grid_y"));
    window.showPage(QStringLiteral("boundaries"));
    const ParameterList& p = window.state()->parameters();
    window.boundaryPage()->setAxis(false, linearAxis(p, "M", 128));  // M = 128 .. 32,768
    window.boundaryPage()->setAxis(true, linearAxis(p, "N", 64));    // N = 64 .. 16,384
    const bool idle = window.waitUntilIdle(60000);
    if (!idle) std::exit(1);
}

void measureChanges(MainWindow& window, int changes, const char* label) {
    BoundaryPage* page = window.boundaryPage();
    const int k = parameterIndex(window.state()->parameters(), "K");
    std::vector<double> latency, guiThread, guiCpu;
    for (int i = 0; i < changes; ++i) {
        QElapsedTimer timer;
        const double cpuStart = threadCpuMs();
        timer.start();
        window.state()->setParameter(k, i % 2 ? 8192 : 4096);  // what one spin-box step does
        guiThread.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
        // Sleep in an event loop until the page shows the newest map, as the app's own loop
        // would: processEvents(flags, ms) spins and would take a core from the map job.
        while (page->isBusy()) {
            QEventLoop loop;
            QObject::connect(page, &BoundaryPage::mapShown, &loop, &QEventLoop::quit);
            QTimer::singleShot(10000, &loop, &QEventLoop::quit);
            loop.exec();
        }
        latency.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
        guiCpu.push_back(threadCpuMs() - cpuStart);
        const auto& map = page->result()->map;
        if (map.width() != kCells || map.height() != kCells) {
            std::fprintf(stderr, "map is %dx%d, not %dx%d\n", map.width(), map.height(), kCells, kCells);
            std::exit(1);
        }
    }
    // The same map without the GUI: the share of the latency that is planning.
    std::vector<double> compute;
    BoundaryJob job{
        0, window.state()->kernel(), window.state()->device(), std::nullopt, window.state()->shape(), page->xAxis(), page->yAxis()};
    if (const DeviceSpec* compare = window.state()->compareDevice()) job.compare = *compare;
    for (int i = 0; i < std::max(5, changes / 4); ++i) {
        QElapsedTimer timer;
        timer.start();
        const auto result = computeBoundary(job);
        compute.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::printf("%s\n", label);
    print("  computeBoundary alone (plans + image + outline)", summarise(compute), compute.size());
    print("  change -> repainted 256x256 map", summarise(latency), latency.size());
    print("  GUI thread, wall, in setParameter (pages + state)", summarise(guiThread), guiThread.size());
    print("  GUI thread CPU, change -> repainted map", summarise(guiCpu), guiCpu.size());
}

int coldChild() {
    QElapsedTimer sinceMain;
    sinceMain.start();
    int argc = 1;
    char name[] = "boundary_repaint_bench";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    MainWindow window(false);
    window.resize(1440, 900);
    window.showPage(QStringLiteral("boundaries"));
    window.show();
    window.waitUntilIdle(60000);  // the map is replotted with rpImmediateRefresh: painted on return
    std::printf("first-paint %.3f\n", static_cast<double>(sinceMain.nsecsElapsed()) / 1e6);
    return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i)
        if (qstrcmp(argv[i], "--cold-child") == 0) return coldChild();
    int changes = 60, coldRuns = 5;
    for (int i = 1; i + 1 < argc; ++i) {
        if (qstrcmp(argv[i], "--changes") == 0) changes = std::max(1, atoi(argv[i + 1]));
        if (qstrcmp(argv[i], "--cold-runs") == 0) coldRuns = std::max(1, atoi(argv[i + 1]));
    }
    QApplication app(argc, argv);
    std::printf("platform %s, %d hardware threads\n", qPrintable(QGuiApplication::platformName()), QThread::idealThreadCount());
    {
        MainWindow window(false);
        setUp(window);
        measureChanges(window, changes, "awq_gemm/legacy_grid_y on h100-sxm, M x N = 256 x 256, K alternating:");
        window.state()->setCompareDevice(QStringLiteral("rtx-5090"));
        window.waitUntilIdle(60000);
        measureChanges(window, changes, "same, with compare-device rtx-5090 (two maps + outline):");
    }

    std::vector<double> processStart, sinceMain;
    for (int run = 0; run < coldRuns; ++run) {
        QProcess child;
        QElapsedTimer timer;
        timer.start();
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--cold-child")});
        if (!child.waitForFinished(60000)) return 1;
        const double wall = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        const QString out = QString::fromLocal8Bit(child.readAllStandardOutput());
        const auto at = out.indexOf(QLatin1String("first-paint "));
        if (at < 0) return 1;
        sinceMain.push_back(out.mid(at + 12).trimmed().toDouble());
        processStart.push_back(wall);
    }
    std::printf("cold start, default window on the Boundaries page (128 x 17 map):\n");
    print("  main() -> first painted map", summarise(sinceMain), sinceMain.size());
    print("  process start -> child exit after first paint", summarise(processStart), processStart.size());
    return 0;
}

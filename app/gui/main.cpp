// tilescope: the desktop app. Command-line options preselect what the window shows, so
// screenshots can be scripted; --screenshot renders offscreen and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <cstdio>

#include <QFileInfo>

#include "core/trace/kineto_import.h"
#include "core/model/sweep.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/report_exporter.h"
#include "ui/docks/about_dialog.h"
#include "ui/window/app_theme.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/window/qt_text.h"

namespace {

// The smallest window every page is laid out for (issue #15 item 12 walks the app at 1024 x 700).
constexpr int kScreenshotWidth = 1440;
constexpr int kScreenshotHeight = 900;
constexpr int kMinimumWidth = 1024;
constexpr int kMinimumHeight = 700;

int fail(const QString& message) {
    std::fprintf(stderr, "tilescope: %s\n", qPrintable(message));
    return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
    // Offscreen before QApplication exists, so what opens no window (a screenshot, a report,
    // --help, --versions) works over ssh or in a container with no display.
    for (int i = 1; i < argc; ++i) {
        const bool windowless = qstrcmp(argv[i], "--screenshot") == 0 || qstrcmp(argv[i], "--export-report") == 0 ||
                                qstrcmp(argv[i], "--versions") == 0 || qstrcmp(argv[i], "--version") == 0 ||
                                qstrcmp(argv[i], "--help") == 0 || qstrcmp(argv[i], "-h") == 0 || qstrcmp(argv[i], "--help-all") == 0;
        if (windowless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("tilescope"));
    QApplication::setOrganizationName(QStringLiteral("tilescope"));
    QApplication::setApplicationVersion(QStringLiteral(TILESCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/tilescope/tilescope.png")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Tilescope: which kernel shapes break on which GPU, why, and what to change."));
    parser.addHelpOption();
    // --version only: -v is the variant, as in tilescope-cli (`tilescope -v fa2` printed the version, issue 31 item 14).
    const QCommandLineOption version(QStringLiteral("version"), QStringLiteral("Displays version information."));
    parser.addOption(version);
    const QCommandLineOption kernel({QStringLiteral("k"), QStringLiteral("kernel")}, QStringLiteral("Kernel family."),
                                    QStringLiteral("NAME"));
    const QCommandLineOption variant({QStringLiteral("v"), QStringLiteral("variant")}, QStringLiteral("Variant of the family."),
                                     QStringLiteral("NAME"));
    const QCommandLineOption device({QStringLiteral("d"), QStringLiteral("device")}, QStringLiteral("Device id."), QStringLiteral("ID"));
    const QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("Compare-device id."), QStringLiteral("ID"));
    const QCommandLineOption shape({QStringLiteral("s"), QStringLiteral("shape")}, QStringLiteral("Shape, NAME=V,..."),
                                   QStringLiteral("SHAPE"));
    const QCommandLineOption x(QStringLiteral("x"), QStringLiteral("Boundary map X axis, NAME=FROM:TO:xF|+S or NAME=V1,V2."),
                               QStringLiteral("AXIS"));
    const QCommandLineOption y(QStringLiteral("y"), QStringLiteral("Boundary map Y axis, or 'none' for 1-D."), QStringLiteral("AXIS"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Render the window offscreen to a PNG and exit."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption page(QStringLiteral("page"),
                                  QStringLiteral("Page to show: ") + tilescope::MainWindow::pageNames().join(QStringLiteral(", ")),
                                  QStringLiteral("NAME"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Screenshot size, WxH (default 1440x900, at least 1024x700)."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QStringLiteral("Colours: ") + tilescope::appThemeNames().join(QStringLiteral(", ")) +
                                       QStringLiteral(" (default: the View > Theme choice, else system)."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption versions(QStringLiteral("versions"), QStringLiteral("Print Qt, CUDA and CUPTI versions and exit."));
    const QCommandLineOption exportReport(
        QStringLiteral("export-report"),
        QStringLiteral("Write a report (.html, .pdf or .md by suffix) and exit; no display needed. It covers "
                       "TRACE, and the kernel, shape, devices, verdict and boundary map chosen "
                       "with the options above (the defaults when there is no TRACE)."),
        QStringLiteral("OUT"));
    parser.addOptions({kernel, variant, device, compare, shape, x, y, screenshot, page, size, theme, versions, exportReport});
    parser.addPositionalArgument(QStringLiteral("TRACE"),
                                 QStringLiteral("A trace to open: *.tilescope.json or a PyTorch profiler trace (.json, .json.gz)."));
    parser.process(app);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) return fail(QStringLiteral("one trace at a time, got %1").arg(positional.size()));

    if (parser.isSet(version)) parser.showVersion();
    if (parser.isSet(versions)) {
        std::printf("%s\n", qPrintable(tilescope::AboutDialog::versionText()));
        // Where the bundled data is read from: an installed package's share/tilescope, or the sources.
        std::printf("Example traces: %s\nModel configs: %s\n", qPrintable(tilescope::MainWindow::samplesFolder()),
                    qPrintable(tilescope::MainWindow::modelsFolder()));
        return 0;
    }
    const bool scripted = parser.isSet(screenshot) || parser.isSet(exportReport);
    tilescope::AppTheme chosenTheme = tilescope::AppTheme::System;
    if (parser.isSet(theme) && !tilescope::appThemeFromName(parser.value(theme), &chosenTheme))
        return fail(QStringLiteral("unknown theme '%1'; themes: %2")
                        .arg(parser.value(theme), tilescope::appThemeNames().join(QStringLiteral(", "))));
    tilescope::MainWindow window(!scripted);
    if (parser.isSet(theme)) window.setTheme(chosenTheme);
    tilescope::ExplorerState* state = window.state();
    if (parser.isSet(kernel) || parser.isSet(variant)) {
        const QString family = parser.isSet(kernel) ? parser.value(kernel) : tilescope::toQString(state->kernel().family->name());
        if (!state->setKernel(family, parser.value(variant)))
            return fail(QStringLiteral("unknown kernel or variant '%1 %2'").arg(family, parser.value(variant)));
    }
    if (parser.isSet(device) && !state->setDevice(parser.value(device)))
        return fail(QStringLiteral("unknown device '%1'").arg(parser.value(device)));
    if (parser.isSet(compare) && !state->setCompareDevice(parser.value(compare)))
        return fail(QStringLiteral("unknown compare-device '%1'").arg(parser.value(compare)));
    if (parser.isSet(shape)) {
        auto parsed = tilescope::parseShape(parser.value(shape).toStdString(), state->parameters());
        if (!parsed) return fail(QString::fromStdString(parsed.error()));
        state->setShape(*parsed);
    }
    tilescope::BoundaryPage* boundary = window.boundaryPage();
    if (parser.isSet(x)) {
        auto axis = tilescope::parseSweepAxis(parser.value(x).toStdString(), state->parameters());
        if (!axis) return fail(QString::fromStdString(axis.error()));
        boundary->setAxis(false, *axis);
    }
    if (parser.isSet(y)) {
        if (parser.value(y) == QLatin1String("none")) {
            boundary->clearYAxis();
        } else {
            auto axis = tilescope::parseSweepAxis(parser.value(y).toStdString(), state->parameters());
            if (!axis) return fail(QString::fromStdString(axis.error()));
            boundary->setAxis(true, *axis);
        }
    }
    if (parser.isSet(exportReport)) {
        // The trace, and the explorer's kernel, shape, devices, verdict and map when any of them
        // was chosen (or there is no trace): what the window would show.
        tilescope::Trace trace;
        if (!positional.isEmpty()) {
            auto read = tilescope::openTraceFile(positional.front().toStdString(), tilescope::builtinKernels());
            if (!read) return fail(QString::fromStdString(read.error()));
            trace = std::move(*read);
        }
        bool explorer = positional.isEmpty();
        for (const auto* option : {&kernel, &variant, &device, &compare, &shape, &x, &y}) explorer = explorer || parser.isSet(*option);
        auto content = tilescope::ReportExporter::contentFor(explorer ? state : nullptr, boundary, trace,
                                                             positional.isEmpty() ? QString() : QFileInfo(positional.front()).fileName());
        auto written = tilescope::ReportExporter::exportReport(std::move(content), parser.value(exportReport));
        if (!written) return fail(QString::fromStdString(written.error()));
        return 0;
    }
    if (!positional.isEmpty()) {
        window.openTrace(positional.front());
        if (scripted) {  // a screenshot shows the trace, so wait for it (errors go to stderr)
            window.setMessageSink([](const QString& title, const QString& text) {
                std::fprintf(stderr, "tilescope: %s: %s\n", qPrintable(title), qPrintable(text));
            });
            while (window.isLoading()) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        }
    }
    if (parser.isSet(page) && !window.showPage(parser.value(page)))
        return fail(QStringLiteral("unknown page '%1'; pages: %2")
                        .arg(parser.value(page), tilescope::MainWindow::pageNames().join(QStringLiteral(", "))));

    if (scripted) {
        QSize target(kScreenshotWidth, kScreenshotHeight);
        if (parser.isSet(size)) {
            const auto match = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
            if (!match.hasMatch()) return fail(QStringLiteral("--size must be WxH, e.g. 1440x900"));
            // Never below the documented minimum, so every page's labels have room.
            target = QSize(match.captured(1).toInt(), match.captured(2).toInt()).expandedTo(QSize(kMinimumWidth, kMinimumHeight));
        }
        if (!window.saveScreenshot(parser.value(screenshot), target))
            return fail(QStringLiteral("could not write %1").arg(parser.value(screenshot)));
        return 0;
    }
    window.show();
    return app.exec();
}

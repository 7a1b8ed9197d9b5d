// The exported report (issue #15 item 14), offscreen: what the explorer shows is in it (kernel,
// shape, both devices, verdict, limit, fix, the boundary map), the default file name, a failed
// run's duration, and the PDF's layout: page 1 holds more than the title, a kernel-name column
// is wide, very long names are elided with a footnote, the written PDF has the laid-out pages, and
// (issue 31) a heading stays with what follows it and a table row on one page, at any page height.
#include <climits>

#include <QAbstractTextDocumentLayout>
#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextTable>

#include "core/trace/kineto_import.h"
#include "core/series/report_text.h"
#include "kernels/builtin_kernels.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"
#include "ui/window/report_exporter.h"
#include "ui/models/run_model.h"
#include "ui/window/trace_document.h"

using namespace tilescope;

namespace {

const QString kSource = QStringLiteral(TILESCOPE_SOURCE_DIR);
const QString kAlexnet = kSource + QStringLiteral("/resources/samples/hta_alexnet_a100.json.gz");
const QString kGolden = kSource + QStringLiteral("/tests/data/trace_golden.tilescope.json");

Trace openOrFail(const QString& path) {
    auto trace = openTraceFile(path.toStdString(), builtinKernels());
    if (!trace) qFatal("%s", trace.error().c_str());
    return std::move(*trace);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// fa2 on a T4 (sm_75: unsupported, with a fix) compared with an H100 (ok).
void failingExplorer(MainWindow& window) {
    ExplorerState* state = window.state();
    QVERIFY(state->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state->setDevice(QStringLiteral("t4")));
    QVERIFY(state->setCompareDevice(QStringLiteral("h100-sxm")));
    QVERIFY(!state->plan().ok());
    QVERIFY(state->comparePlan() && state->comparePlan()->ok());
}

// The widest line of the block that holds `text` (a table cell's), in layout pixels.
qreal widestLineOf(const QTextDocument& document, const QString& text) {
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (!block.text().contains(text)) continue;
        qreal widest = 0.0;
        for (int i = 0; i < block.layout()->lineCount(); ++i) widest = std::max(widest, block.layout()->lineAt(i).naturalTextWidth());
        return widest;
    }
    return -1.0;
}

// What issue 31 asks of a laid-out PDF, broken: a heading on another page than what follows it, a
// table row over two pages, a footnote of more than a few lines, a block with text never laid out.
struct PdfLayoutCheck {
    int headings = 0;
    int rows = 0;
    QStringList faults;
};

PdfLayoutCheck checkPdfLayout(const QTextDocument& document) {
    PdfLayoutCheck check;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (!block.text().isEmpty() && (!block.layout() || block.layout()->lineCount() == 0))
            check.faults << QStringLiteral("'%1' not laid out").arg(block.text().left(40));
        if (block.blockFormat().headingLevel() >= 2 && block.next().isValid()) {
            ++check.headings;
            const int page = ReportExporter::pagesOf(document, block).first;
            const int next = ReportExporter::pagesOf(document, block.next()).first;
            if (page != next)
                check.faults << QStringLiteral("'%1' on page %2, what follows on page %3").arg(block.text()).arg(page + 1).arg(next + 1);
        }
        QTextCursor at(block);
        if (QTextTable* table = at.currentTable();
            table && table->cellAt(at).column() == 0 && table->cellAt(at).firstCursorPosition().block() == block) {
            ++check.rows;
            const int row = table->cellAt(at).row();
            int first = INT_MAX, last = -1;
            for (int c = 0; c < table->columns(); ++c) {
                const QTextTableCell cell = table->cellAt(row, c);
                first = std::min(first, ReportExporter::pagesOf(document, cell.firstCursorPosition().block()).first);
                last = std::max(last, ReportExporter::pagesOf(document, cell.lastCursorPosition().block()).second);
            }
            if (first != last)
                check.faults << QStringLiteral("row '%1' over pages %2-%3").arg(block.text().left(20)).arg(first + 1).arg(last + 1);
        }
        // A footnote is a few lines, not a page and a half.
        if (block.text().startsWith(QLatin1Char('[')) && block.layout() && block.layout()->lineCount() > 8)
            check.faults << QStringLiteral("footnote of %1 lines: %2").arg(block.layout()->lineCount()).arg(block.text().left(80));
    }
    return check;
}

// True when the Devices table (its header runs from "id" to "source") starts on one page and ends on another.
bool devicesTableCrossesPageEnd(const QTextDocument& document) {
    for (QTextFrame* frame : document.rootFrame()->childFrames()) {
        const auto* table = qobject_cast<QTextTable*>(frame);
        if (!table || table->cellAt(0, 0).firstCursorPosition().block().text() != QLatin1String("id") ||
            table->cellAt(0, table->columns() - 1).firstCursorPosition().block().text() != QLatin1String("source"))
            continue;
        return ReportExporter::pagesOf(document, table->cellAt(0, 0).firstCursorPosition().block()).first !=
               ReportExporter::pagesOf(document, table->cellAt(table->rows() - 1, 0).firstCursorPosition().block()).first;
    }
    return false;
}

}  // namespace

class ReportExporterTest : public QObject {
    Q_OBJECT
private slots:
    void defaultFileNameDropsTheJsonEnding();
    void reportCoversTheExplorer();
    void failedRunShowsNoDuration();
    void pdfFillsPageOneAndWidensKernelNames();
    void pdfOfTheExplorerAloneIsOnePage();
    void pdfKeepsHeadingsAndRowsTogether_data();
    void pdfKeepsHeadingsAndRowsTogether();
    void pdfKeepsRowsWholeAtEveryPageHeight_data();
    void pdfKeepsRowsWholeAtEveryPageHeight();
};

void ReportExporterTest::defaultFileNameDropsTheJsonEnding() {
    QCOMPARE(QString::fromStdString(reportBaseName("hta_alexnet_a100.json.gz")), QStringLiteral("hta_alexnet_a100-report"));
    QCOMPARE(QString::fromStdString(reportBaseName("/x/y/run.tilescope.json")), QStringLiteral("run-report"));
    QCOMPARE(QString::fromStdString(reportBaseName("bert.json")), QStringLiteral("bert-report"));
    MainWindow window(false);
    ExplorerState* state = window.state();
    QVERIFY(state->setKernel(QStringLiteral("awq_gemm"), QStringLiteral("gemm")));
    QVERIFY(state->setShapeText(QStringLiteral("M=16,N=4096,K=4096")));
    // No trace open: the kernel and the shape.
    const QString untitled =
        ReportExporter::defaultFileName(*state, window.document()->trace(), window.document()->displayName(), QStringLiteral("pdf"));
    QVERIFY2(untitled.startsWith(QStringLiteral("awq_gemm-gemm-M16-N4096-K4096")), qPrintable(untitled));
    QVERIFY2(untitled.endsWith(QStringLiteral("-report.pdf")), qPrintable(untitled));
    window.document()->setTrace(openOrFail(kAlexnet), kAlexnet, false);
    QCOMPARE(ReportExporter::defaultFileName(*state, window.document()->trace(), window.document()->displayName(), QStringLiteral("html")),
             QStringLiteral("hta_alexnet_a100-report.html"));
}

void ReportExporterTest::reportCoversTheExplorer() {
    MainWindow window(false);
    failingExplorer(window);
    window.document()->setTrace(openOrFail(kGolden), QStringLiteral("golden.tilescope.json"), true);
    const LaunchPlan plan = window.state()->plan();
    QTemporaryDir dir;
    const QString html = dir.filePath(QStringLiteral("report.html"));
    QVERIFY(window.exportReportTo(html));
    const QString text = QString::fromUtf8(readAll(html));
    QVERIFY(text.contains(QStringLiteral("Current shape: attention / fa2")));
    QVERIFY(text.contains(QString::fromStdString(htmlEscape(formatShape(plan.shape, window.state()->parameters())))));
    QVERIFY(text.contains(QStringLiteral("t4 \u2014 ")));        // the device
    QVERIFY(text.contains(QStringLiteral("h100-sxm \u2014 ")));  // and the compare device
    QVERIFY(text.contains(QString::fromStdString(htmlEscape(plan.message))));
    QVERIFY(!plan.fix.empty());
    QVERIFY(text.contains(QString::fromStdString(htmlEscape(plan.fix))));
    if (plan.limit) {
        QVERIFY(text.contains(QString::fromStdString(std::string(plan.limit->name))));
    }
    QVERIFY(text.contains(QStringLiteral("id=\"boundary-map.png\"")));  // the Boundaries page's plot
    QVERIFY(text.contains(QStringLiteral("Boundary map on t4")));
    QCOMPARE(text.count(QStringLiteral("data:image/png;base64,")), 3);  // the map, the timeline, the kernel times
    QVERIFY(text.contains(QStringLiteral("Trace summary")));            // and the trace as before

    const QString md = dir.filePath(QStringLiteral("report.md"));
    QVERIFY(window.exportReportTo(md));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("report_files/boundary-map.png"))).size() > 0);
    QVERIFY(readAll(md).contains("(report_files/boundary-map.png)"));
}

void ReportExporterTest::failedRunShowsNoDuration() {
    Trace trace = openOrFail(kGolden);
    const Run& failed = trace.runs[3];  // cudaErrorInvalidConfiguration, no kernel ran
    QVERIFY(failed.gpu && !failed.gpu->launch.ok());
    QCOMPARE(QString::fromStdString(runDurationText(failed)), QStringLiteral("\u2014, failed"));
    QCOMPARE(QString::fromStdString(runDurationText(trace.runs[0])), QStringLiteral("predicted"));
    QVERIFY(trace.runs[2].gpu && trace.runs[2].gpu->timing);  // a measured run shows its timing's median
    const QString measured = QString::number(trace.runs[2].gpu->timing->medianUs, 'f', 3);
    QCOMPARE(QString::fromStdString(runDurationText(trace.runs[2])), measured);
    const std::string html = reportHtml(trace, builtinKernels(), {}, "r");
    // The failed run's row of the Runs table ends with "—, failed", never 0.000.
    const QString text = QString::fromStdString(html);
    const auto rows = text.split(QLatin1Char('\n')).filter(QStringLiteral("<tr><td>measured</td>"));
    QCOMPARE(rows.size(), 2);
    QVERIFY2(rows[1].endsWith(QStringLiteral("<td>\u2014, failed</td></tr>")), qPrintable(rows[1]));
    QVERIFY(!rows[1].contains(QStringLiteral("0.000")));
    QVERIFY2(rows[0].endsWith(QStringLiteral("<td>%1</td></tr>").arg(measured)), qPrintable(rows[0]));
    // The Runs page says the same.
    RunModel model;
    model.setTrace(&trace);
    QCOMPARE(model.index(3, RunModel::Duration).data().toString(), QStringLiteral("\u2014, failed"));
    QCOMPARE(model.index(2, RunModel::Duration).data().toString(), measured);
}

void ReportExporterTest::pdfFillsPageOneAndWidensKernelNames() {
    MainWindow window(false);
    failingExplorer(window);
    const Trace trace = openOrFail(kAlexnet);
    window.document()->setTrace(Trace(trace), kAlexnet, false);
    ReportContent content = ReportExporter::contentFor(window.state(), window.boundaryPage(), window.document()->trace(),
                                                       QStringLiteral("hta_alexnet_a100.json.gz"));
    QVERIFY(content.explorer && content.explorer->map);
    content.tracePlots = ReportExporter::renderPlots(trace);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    QPdfWriter writer(path);
    ReportExporter::setUpPdfDevice(&writer);
    const auto document = ReportExporter::pdfDocument(content, &writer);
    const QStringList pages = ReportExporter::pageTexts(*document);
    QCOMPARE(pages.size(), document->pageCount());
    QVERIFY(pages.size() >= 2);
    // Page 1: the title, the current shape with its verdict and fix, and the map's caption.
    QVERIFY(pages[0].contains(QStringLiteral("Tilescope report: hta_alexnet_a100.json.gz")));
    QVERIFY(pages[0].contains(QStringLiteral("Current shape: attention / fa2")));
    QVERIFY(pages[0].contains(QString::fromStdString(window.state()->plan().fix)));
    QVERIFY2(pages[0].contains(QStringLiteral("Boundary map on t4")), qPrintable(pages[0]));
    // A kernel name of the "Kernels by total time" table gets most of the page's width.
    const QString name = QStringLiteral("void at::native::");
    const qreal widest = widestLineOf(*document, name);
    QVERIFY2(widest > 0.5 * document->pageSize().width(), qPrintable(QString::number(widest)));
    // The 5,123-character cuDNN name is elided in its cell, whole in the footnote under the table.
    const QString all = pages.join(QString());
    QVERIFY(all.contains(QStringLiteral(" \u2026 ")));
    QVERIFY(all.contains(QRegularExpression(QStringLiteral("\\n\\[1\\] "))));
    // The last page holds more than a widowed line or two.
    QVERIFY2(ReportExporter::lastPageFill(*document) > 0.1, qPrintable(QString::number(ReportExporter::lastPageFill(*document))));

    // The written PDF has exactly the pages laid out here.
    QVERIFY(ReportExporter::exportReport(content, path));
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QCOMPARE(
        static_cast<int>(pdf.count("/Type /Page\n") + pdf.count("/Type /Page\r") + pdf.count("/Type /Page ") + pdf.count("/Type /Page/")),
        document->pageCount());
}

void ReportExporterTest::pdfOfTheExplorerAloneIsOnePage() {
    // No trace: the title, the current shape and the map share one page.
    MainWindow window(false);
    failingExplorer(window);
    const ReportContent content =
        ReportExporter::contentFor(window.state(), window.boundaryPage(), window.document()->trace(), window.document()->displayName());
    QVERIFY(content.title.find("attention / fa2") != std::string::npos);
    QTemporaryDir dir;
    QPdfWriter writer(dir.filePath(QStringLiteral("x.pdf")));
    ReportExporter::setUpPdfDevice(&writer);
    const auto document = ReportExporter::pdfDocument(content, &writer);
    QCOMPARE(document->pageCount(), 1);
    QVERIFY(ReportExporter::pageTexts(*document)[0].contains(QStringLiteral("Boundary map on t4")));
}

// Issue 31: TOUR 5's PDF left the "Boundary map" heading alone at a page foot, split a Devices row
// across two pages, printed a 5,123-character kernel name as a page and a half of footnote, and its
// map had no colour key. Several explorers before the same trace, so that headings and rows fall at
// different places on the pages.
void ReportExporterTest::pdfKeepsHeadingsAndRowsTogether_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("compare");
    QTest::newRow("TOUR 5: fa2 on h100-sxm, compared with t4") << "attention"
                                                               << "fa2"
                                                               << "h100-sxm"
                                                               << "t4";
    QTest::newRow("fa2 on t4, compared with h100-sxm") << "attention"
                                                       << "fa2"
                                                       << "t4"
                                                       << "h100-sxm";
    QTest::newRow("awq_gemm legacy_grid_y on a100") << "awq_gemm"
                                                    << "legacy_grid_y"
                                                    << "a100-80gb-sxm"
                                                    << "";
    QTest::newRow("awq_gemv on h100-sxm") << "awq_gemv"
                                          << "gemv"
                                          << "h100-sxm"
                                          << "";
}

void ReportExporterTest::pdfKeepsHeadingsAndRowsTogether() {
    QFETCH(QString, kernel);
    QFETCH(QString, variant);
    QFETCH(QString, device);
    QFETCH(QString, compare);
    MainWindow window(false);
    ExplorerState* state = window.state();
    QVERIFY(state->setKernel(kernel, variant));
    QVERIFY(state->setDevice(device));
    if (!compare.isEmpty()) QVERIFY(state->setCompareDevice(compare));
    const Trace trace = openOrFail(kAlexnet);
    window.document()->setTrace(Trace(trace), kAlexnet, false);
    ReportContent content =
        ReportExporter::contentFor(state, window.boundaryPage(), window.document()->trace(), QStringLiteral("hta_alexnet_a100.json.gz"));
    QVERIFY(content.explorer && content.explorer->map);
    // The map's figure carries its colour key under the plot: the map's most common verdict colour there.
    const QImage map = QImage::fromData(QByteArray::fromStdString(content.explorer->map->png), "PNG");
    QVERIFY2(map.height() > ReportExporter::kMapHeight, qPrintable(QString::number(map.height())));
    content.tracePlots = ReportExporter::renderPlots(trace);
    QTemporaryDir dir;
    QPdfWriter writer(dir.filePath(QStringLiteral("report.pdf")));
    ReportExporter::setUpPdfDevice(&writer);
    const auto document = ReportExporter::pdfDocument(content, &writer);
    const PdfLayoutCheck check = checkPdfLayout(*document);
    QVERIFY(check.headings >= 6);
    QVERIFY(check.rows >= 20);
    QVERIFY2(check.faults.isEmpty(), qPrintable(check.faults.join(QStringLiteral(", "))));
    // Nothing was dropped on the way: every section is on some page.
    const QString all = ReportExporter::pageTexts(*document).join(QString());
    for (const QString& section : {QStringLiteral("Boundary map"), QStringLiteral("Kernels by total time"), QStringLiteral("Devices")})
        QVERIFY2(all.contains(section), qPrintable(section));
    QVERIFY(all.contains(QStringLiteral("NVIDIA A100")));
}

// Issue 31 again: Qt 6.4 moves a table row to the next page only when none of its cells' first lines
// fits, so a Devices row (cells of two and three lines) split where the one-line Kernels rows moved
// whole. Pages 0 to 23 mm shorter put every table's rows at other places relative to a page's end;
// the traces are those with the longest Devices tables (the AlexNet sample's 8 GPUs, the golden
// trace's devices under its runs).
void ReportExporterTest::pdfKeepsRowsWholeAtEveryPageHeight_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("hta_alexnet_a100: 8 devices") << kAlexnet;
    QTest::newRow("trace_golden: runs and devices") << kGolden;
}

void ReportExporterTest::pdfKeepsRowsWholeAtEveryPageHeight() {
    QFETCH(QString, path);
    MainWindow window(false);
    ExplorerState* state = window.state();
    QVERIFY(state->setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state->setDevice(QStringLiteral("h100-sxm")));
    QVERIFY(state->setCompareDevice(QStringLiteral("t4")));
    const Trace trace = openOrFail(path);
    window.document()->setTrace(Trace(trace), path, false);
    ReportContent content =
        ReportExporter::contentFor(state, window.boundaryPage(), window.document()->trace(), QFileInfo(path).fileName());
    content.tracePlots = ReportExporter::renderPlots(trace);
    QTemporaryDir dir;
    QStringList faults;
    int devicesOverPageEnd = 0;
    for (int shorter = 0; shorter < 24; ++shorter) {
        QPdfWriter writer(dir.filePath(QStringLiteral("report.pdf")));
        ReportExporter::setUpPdfDevice(&writer);
        QMarginsF margins = writer.pageLayout().margins(QPageLayout::Millimeter);
        margins.setTop(margins.top() + shorter);
        QVERIFY(writer.setPageMargins(margins, QPageLayout::Millimeter));
        const auto document = ReportExporter::pdfDocument(content, &writer);
        for (const QString& fault : checkPdfLayout(*document).faults) faults << QStringLiteral("%1 mm shorter: %2").arg(shorter).arg(fault);
        if (!ReportExporter::pageTexts(*document).join(QString()).contains(QStringLiteral("Devices")))
            faults << QStringLiteral("%1 mm shorter: no Devices section").arg(shorter);
        if (devicesTableCrossesPageEnd(*document)) ++devicesOverPageEnd;
    }
    QVERIFY2(faults.isEmpty(), qPrintable(faults.join(QLatin1Char('\n'))));
    // The sweep reached what it is for: a Devices table over a page end, its rows whole on each side.
    QVERIFY(devicesOverPageEnd > 0);
}

QTEST_MAIN(ReportExporterTest)
#include "report_exporter_test.moc"

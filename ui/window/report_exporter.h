// ReportExporter: a report file, chosen by suffix: .html (one self-contained file), .pdf (the same
// content through QTextDocument, laid out on A4 landscape pages: a figure and its heading shrink
// to fill a page rather than leave it half empty) or .md (Markdown with its PNG
// plots in a folder beside it, "<name>_files/"). Plots are rendered offscreen, so the command line
// can export without a display; the text itself comes from core/report_text.
#pragma once

#include <utility>

#include <QImage>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "core/series/report_text.h"
#include "core/model/result.h"

class QPagedPaintDevice;
class QTextBlock;
class QTextDocument;

namespace tilescope {

class BoundaryPage;
class ExplorerState;

class ReportExporter {
public:
    // The timeline and the kernels by total time, as PNGs (none when the trace has no records).
    static std::vector<ReportPlot> renderPlots(const Trace& trace);
    static QImage renderTimeline(const Trace& trace, QSize size);
    static QImage renderKernelTimes(const Trace& trace, QSize size);

    // What the explorer shows: its kernel, shape, devices and plans, and the Boundaries page's plot
    // (waiting up to kMapWaitMs for a map still being computed; none when it is not ready).
    static ReportExplorer explorerPart(const ExplorerState& state, BoundaryPage* boundary);
    // A report of the window: the explorer (when given) and the trace (when it holds anything).
    // `traceName` is the trace's file name ("untitled" or empty: none).
    static ReportContent contentFor(const ExplorerState* state, BoundaryPage* boundary, const Trace& trace, const QString& traceName);
    // "alexnet-report.html" for alexnet.json.gz; with no trace, from the kernel and shape.
    static QString defaultFileName(const ExplorerState& state, const Trace& trace, const QString& traceName, const QString& suffix);

    // The trace's plots are rendered here when content.tracePlots is empty.
    static Result<void> exportReport(ReportContent content, const QString& path);
    static Result<void> exportReport(const Trace& trace, const QString& path, const QString& title);

    // The PDF's pages: `content` laid out for `device` (a QPdfWriter set up by pdfWriterLayout), with
    // figures fitted. Page i covers y in [i, i + 1) * pageSize().height().
    static std::unique_ptr<QTextDocument> pdfDocument(const ReportContent& content, QPagedPaintDevice* device);
    static void setUpPdfDevice(QPagedPaintDevice* device);  // A4 landscape, 12 mm margins, kPdfDpi
    // The text of each laid-out page (tests: what page 1 holds, what the last one holds).
    static QStringList pageTexts(const QTextDocument& document);
    // How much of the last page its content fills, 0..1.
    static double lastPageFill(const QTextDocument& document);
    // The pages (0-based) of a block's first and last line as laid out (tests: a row or heading kept together).
    static std::pair<int, int> pagesOf(const QTextDocument& document, const QTextBlock& block);

    static constexpr int kPlotWidth = 1200;
    static constexpr int kPlotHeight = 420;
    static constexpr int kTopKernels = 15;
    static constexpr int kMinTimelineHeight = 80;
    static constexpr int kMapHeight = 440;
    static constexpr int kMapWaitMs = 20000;
    static constexpr int kPdfDpi = 96;  // layout pixels = PDF device pixels
    static constexpr int kPdfFontPoints = 9;
    // A figure pushed to the next page shrinks into the gap it would leave when it keeps at least
    // this much of its size; a gap smaller than kPdfMinGap of the page is left as it is.
    static constexpr double kPdfMinFigureScale = 0.4;
    static constexpr double kPdfMinGap = 0.15;
};

}  // namespace tilescope

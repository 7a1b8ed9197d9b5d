#include "ui/window/report_exporter.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextTable>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/series/timeline_layout.h"
#include "kernels/builtin_kernels.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/timeline_view.h"

namespace tilescope {

namespace {

std::string pngBytes(const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes.toStdString();
}

Result<void> writeText(const QString& path, const QByteArray& bytes) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return Error{"cannot write " + path.toStdString() + ": " + file.errorString().toStdString()};
    return {};
}

// Names are often hundreds of characters of template arguments; a plot label needs the start.
QString shortName(const std::string& name) {
    constexpr int kMaxLabel = 60;
    const QString text = QString::fromStdString(name);
    return text.size() > kMaxLabel ? text.left(kMaxLabel - 1) + QChar(0x2026) : text;
}

}  // namespace

QImage ReportExporter::renderTimeline(const Trace& trace, QSize size) {
    TimelineView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.setPalette(QPalette(Qt::white));
    TimelineLayout layout = TimelineLayout::fromTrace(trace);
    const int lanes = static_cast<int>(layout.lanes().size());
    // As tall as its lanes: a one-stream trace gives a strip, not a mostly empty page.
    view.resize(size.width(), std::max(TimelineView::kAxisHeight + lanes * TimelineView::kLaneHeight + 8, kMinTimelineHeight));
    view.setTimeline(std::move(layout));
    QImage image(view.size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    view.render(&image);
    return image;
}

QImage ReportExporter::renderKernelTimes(const Trace& trace, QSize size) {
    std::map<std::string, double> totalUs;
    for (const auto& r : trace.records) totalUs[r.name] += static_cast<double>(r.durationNs()) / 1000.0;
    for (const auto& run : trace.runs)
        if (run.gpu)
            for (const auto& r : run.gpu->records) totalUs[r.name] += static_cast<double>(r.durationNs()) / 1000.0;
    std::vector<std::pair<std::string, double>> sorted(totalUs.begin(), totalUs.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (sorted.size() > kTopKernels) sorted.resize(kTopKernels);

    PlotWidget plot;
    plot.setAttribute(Qt::WA_DontShowOnScreen);
    plot.resize(size);
    auto* bars = new QCPBars(plot.yAxis, plot.xAxis);  // horizontal: names on the left axis
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QVector<double> keys, values;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const double key = static_cast<double>(sorted.size() - i);  // longest at the top
        keys << key;
        values << sorted[i].second;
        ticker->addTick(key, shortName(sorted[i].first));
    }
    bars->setData(keys, values);
    bars->setBrush(QColor(0x42, 0x85, 0xf4));
    bars->setPen(Qt::NoPen);
    plot.yAxis->setTicker(ticker);
    plot.yAxis->setRange(0.4, static_cast<double>(sorted.size()) + 0.6);
    plot.xAxis->setLabel(QObject::tr("total time (µs)"));
    plot.xAxis->setRange(0.0, sorted.empty() ? 1.0 : sorted.front().second * 1.05);
    return plot.toPixmap(size.width(), size.height()).toImage();
}

std::vector<ReportPlot> ReportExporter::renderPlots(const Trace& trace) {
    bool anyRecord = !trace.records.empty();
    for (const auto& run : trace.runs)
        anyRecord = anyRecord || (run.gpu && !run.gpu->records.empty()) || (run.gpu && !run.gpu->launch.ok());
    if (!anyRecord) return {};
    const QSize size(kPlotWidth, kPlotHeight);
    return {{"Timeline: kernels by device and stream, failed launches in red", "timeline.png", pngBytes(renderTimeline(trace, size))},
            {"Kernels by total time (at most the " + std::to_string(kTopKernels) + " longest)", "kernel-times.png",
             pngBytes(renderKernelTimes(trace, size))}};
}

namespace {

// The absolute top of a block's first line and bottom of its last (document coordinates).
struct BlockSpan {
    qreal top = 0.0;
    qreal bottom = 0.0;
    qreal height = 0.0;  // of its lines as laid out, before a page break moves the first one
};

BlockSpan spanOf(const QTextDocument& document, const QTextBlock& block) {
    const QRectF rect = document.documentLayout()->blockBoundingRect(block);
    const QTextLayout* layout = block.layout();
    if (!layout || layout->lineCount() == 0) return {rect.top(), rect.top(), 0.0};
    const QTextLine first = layout->lineAt(0);
    const QTextLine last = layout->lineAt(layout->lineCount() - 1);
    const qreal origin = rect.top() - layout->boundingRect().top();
    BlockSpan span{origin + first.y(), origin + last.y() + last.height(), last.y() + last.height() - first.y()};
    // A first line that crosses a page's end (a figure) is drawn at the top of the next page.
    const qreal pageHeight = document.pageSize().height();
    const qreal pageEnd = (std::floor(span.top / pageHeight) + 1.0) * pageHeight;
    if (pageHeight > 0 && span.top + first.height() > pageEnd && first.height() < pageHeight) {
        span.top = pageEnd;
        span.bottom = pageEnd + span.height;
    }
    return span;
}

bool holdsImage(QTextDocument& document, const QTextBlock& block, QTextCursor* at) {
    for (auto it = block.begin(); !it.atEnd(); ++it) {
        const QTextFragment fragment = it.fragment();
        if (!fragment.charFormat().isImageFormat()) continue;
        if (at) {
            *at = QTextCursor(&document);
            at->setPosition(fragment.position());
            at->setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
        }
        return true;
    }
    return false;
}

// A figure that its page could not hold leaves a gap; it shrinks into that gap when it keeps at
// least kPdfMinFigureScale of its size. True when one changed (the document lays out again).
bool fitFigure(QTextDocument& document) {
    const qreal pageHeight = document.pageSize().height();
    QTextBlock previous;
    for (QTextBlock block = document.begin(); block.isValid(); previous = block, block = block.next()) {
        QTextCursor image;
        if (!previous.isValid() || !holdsImage(document, block, &image)) continue;
        const BlockSpan span = spanOf(document, block);
        const qreal pageTop = std::floor(span.top / pageHeight) * pageHeight;
        // A figure and the heading right above it move as one: the gap is above the heading.
        QTextBlock before = previous;
        qreal heading = 0.0;
        const QTextBlockFormat previousFormat = previous.blockFormat();
        if (previousFormat.headingLevel() >= 2 && previous.previous().isValid()) {
            const BlockSpan h = spanOf(document, previous);
            heading = (h.bottom - h.top) + previousFormat.topMargin() + previousFormat.bottomMargin();
            before = previous.previous();
        }
        const qreal gap = pageTop - spanOf(document, before).bottom;
        if (span.top - pageTop > 1.0 || gap < ReportExporter::kPdfMinGap * pageHeight) continue;  // not pushed, or little lost
        QTextImageFormat format = image.charFormat().toImageFormat();
        const qreal caption = span.height - format.height();
        const qreal room = gap - heading - caption - block.blockFormat().topMargin() - 8.0;
        const qreal scale = room / format.height();
        if (scale < ReportExporter::kPdfMinFigureScale || scale >= 1.0) continue;
        format.setWidth(std::floor(format.width() * scale));
        format.setHeight(std::floor(format.height() * scale));
        image.setCharFormat(format);
        // The whole document again: laid out from the figure on only, the blocks between two
        // later tables kept no lines and were never drawn.
        document.markContentsDirty(0, document.characterCount());
        return true;
    }
    return false;
}

qreal pageEndOf(qreal y, qreal pageHeight) { return (std::floor(y / pageHeight) + 1.0) * pageHeight; }
int pageOf(qreal y, qreal pageHeight) { return static_cast<int>(std::floor(y / pageHeight)); }
// Moving what starts a page to the next one would only leave an empty page.
bool atPageTop(qreal y, qreal pageHeight) { return y - std::floor(y / pageHeight) * pageHeight < 0.05 * pageHeight; }

// Moves a block's first line to the next page: its top margin grows by the room left on its page.
void pushToNextPage(QTextDocument& document, const QTextBlock& block) {
    const qreal pageHeight = document.pageSize().height();
    const BlockSpan span = spanOf(document, block);
    QTextBlockFormat format = block.blockFormat();
    format.setTopMargin(format.topMargin() + pageEndOf(span.top, pageHeight) - span.top + 1.0);
    QTextCursor(block).setBlockFormat(format);
}

// A table row's top (its first lines) and bottom (its last lines), over all its cells.
BlockSpan rowSpan(const QTextDocument& document, const QTextTable& table, int row) {
    BlockSpan span{std::numeric_limits<qreal>::max(), 0.0, 0.0};
    for (int c = 0; c < table.columns(); ++c) {
        const QTextTableCell cell = table.cellAt(row, c);
        if (!cell.isValid() || cell.row() != row || cell.column() != c) continue;
        span.top = std::min(span.top, spanOf(document, cell.firstCursorPosition().block()).top);
        span.bottom = std::max(span.bottom, spanOf(document, cell.lastCursorPosition().block()).bottom);
    }
    return span;
}

// What a table row needs to be kept on one page: its cells' edges as Qt 6.4's layoutTable sees them.
struct RowGeometry {
    qreal top = std::numeric_limits<qreal>::max();        // the row's upper edge, where its cells' padding starts
    qreal firstLine = std::numeric_limits<qreal>::max();  // its shortest first line
    qreal topPadding = 0.0;                               // the largest over its cells, half the collapsed border included
    qreal bottomPadding = 0.0;                            // the same
    qreal naturalHeight = 0.0;                            // the tallest cell's lines and padding, with no page break inside
};

qreal cellPadding(const QTextTable& table, const QTextTableCell& cell, QTextFormat::Property padding, QTextFormat::Property border) {
    const QTextTableCellFormat format = cell.format().toTableCellFormat();
    const qreal own = format.hasProperty(padding) ? format.doubleProperty(padding) : table.format().cellPadding();
    // With border-collapse, Qt puts half of a cell's border inside its padding.
    return own + (table.format().borderCollapse() ? format.doubleProperty(border) / 2.0 : 0.0);
}

RowGeometry rowGeometry(const QTextDocument& document, const QTextTable& table, int row) {
    RowGeometry geometry;
    for (int c = 0; c < table.columns(); ++c) {
        const QTextTableCell cell = table.cellAt(row, c);
        if (!cell.isValid() || cell.row() != row || cell.column() != c) continue;
        const qreal top = cellPadding(table, cell, QTextFormat::TableCellTopPadding, QTextFormat::TableCellTopBorder);
        const qreal bottom = cellPadding(table, cell, QTextFormat::TableCellBottomPadding, QTextFormat::TableCellBottomBorder);
        geometry.topPadding = std::max(geometry.topPadding, top);
        geometry.bottomPadding = std::max(geometry.bottomPadding, bottom);
        const QTextBlock first = cell.firstCursorPosition().block();
        geometry.top = std::min(geometry.top, spanOf(document, first).top - first.blockFormat().topMargin() - top);
        qreal lines = 0.0;
        for (QTextBlock block = first; block.isValid() && block.position() <= cell.lastPosition(); block = block.next()) {
            const QTextLayout* layout = block.layout();
            for (int i = 0; layout && i < layout->lineCount(); ++i) lines += layout->lineAt(i).height();
            if (layout && layout->lineCount() > 0 && block == first)
                geometry.firstLine = std::min(geometry.firstLine, layout->lineAt(0).height());
        }
        geometry.naturalHeight = std::max(geometry.naturalHeight, lines + top + bottom);
    }
    if (geometry.firstLine == std::numeric_limits<qreal>::max()) geometry.firstLine = 0.0;
    return geometry;
}

// The room Qt 6.4 keeps free at each page's foot below a table's rows: layoutFrame counts the
// table's *top* margin (and its border and padding) into effectiveBottomMargin, and layoutCell
// adds half the widest outer cell border.
qreal tableFootRoom(const QTextTable& table) {
    const QTextTableFormat format = table.format();
    qreal border = 0.0;
    if (format.borderCollapse())
        for (int c = 0; c < table.columns(); ++c)
            border = std::max(border, table.cellAt(table.rows() - 1, c).format().doubleProperty(QTextFormat::TableCellBottomBorder));
    return format.topMargin() + format.border() + format.padding() + std::ceil(border / 2.0);
}

// The nearest heading above `block`, or an invalid block.
QTextBlock headingAbove(QTextBlock block) {
    for (block = block.previous(); block.isValid(); block = block.previous())
        if (block.blockFormat().headingLevel() >= 2) return block;
    return {};
}

// Moves a table whose first body row does not fit under its header row to the next page, by moving
// what introduces it: its section's heading when that shares the row's page, else the text right above it.
bool pushTableToNextPage(QTextDocument& document, const QTextTable& table, qreal rowTop) {
    const qreal pageHeight = document.pageSize().height();
    const int page = pageOf(rowTop, pageHeight);
    const auto movable = [&](const QTextBlock& block) {
        const qreal top = spanOf(document, block).top;
        return pageOf(top, pageHeight) == page && !atPageTop(top, pageHeight);
    };
    const QTextBlock heading = headingAbove(table.firstCursorPosition().block());
    if (heading.isValid() && movable(heading)) {
        pushToNextPage(document, heading);
        return true;
    }
    QTextBlock above = table.firstCursorPosition().block().previous();
    while (above.isValid() && above.text().isEmpty()) above = above.previous();
    if (!above.isValid() || QTextCursor(above).currentTable() || !movable(above)) return false;
    pushToNextPage(document, above);
    return true;
}

// Keeps a heading with what follows it and a table row on one page (issue 31: the "Boundary map"
// heading sat alone at a page foot, a Devices row was split across two pages). Fixes the first
// case in document order, so what it changes lies below everything already fixed; true when one
// changed (the document lays out again). A heading goes to the next page; so does a table's first
// body row, with the table and its section's heading.
//
// Any later row: Qt 6.4 (QTextDocumentLayoutPrivate::layoutTable) moves a row to the next page
// only when none of its cells' first lines fits on this one; when some do, the row splits, line by
// line in each cell. So the row above is stretched, by bottom padding on its cells, to just short of
// where the table's rows stop on the page: then no first line of this row fits and Qt moves the
// row whole, stretching the row above to the page's foot as it draws any row it moves. Not further:
// layoutCell subtracts a cell's bottom padding from the page room of that cell's own lines, so a
// row above stretched past the foot (what this did before) pushed its own last lines over the page
// end, and a Devices row of three-line cells split instead of the one below it.
bool keepTogether(QTextDocument& document) {
    const qreal pageHeight = document.pageSize().height();
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() >= 2 && block.next().isValid()) {
            const BlockSpan heading = spanOf(document, block);
            if (!atPageTop(heading.top, pageHeight) &&
                pageOf(heading.top, pageHeight) < pageOf(spanOf(document, block.next()).top, pageHeight)) {
                pushToNextPage(document, block);
                document.markContentsDirty(0, document.characterCount());
                return true;
            }
            continue;
        }
        QTextCursor at(block);
        QTextTable* table = at.currentTable();
        if (!table) continue;
        const QTextTableCell cell = table->cellAt(at);
        if (cell.column() != 0 || cell.firstCursorPosition().block() != block) continue;
        const int row = cell.row();
        const int firstBody = std::max(1, table->format().headerRowCount());
        if (row < firstBody) continue;
        const BlockSpan span = rowSpan(document, *table, row);
        if (pageOf(span.top, pageHeight) == pageOf(span.bottom - 0.5, pageHeight)) continue;
        const RowGeometry geometry = rowGeometry(document, *table, row);
        if (geometry.naturalHeight > pageHeight * 0.9) continue;  // a row taller than a page splits anyway
        if (row == firstBody) {
            // The header row alone at a page foot is no better: the table goes, with what introduces it.
            if (!pushTableToNextPage(document, *table, geometry.top)) continue;
        } else {
            // The middle of the band where the row above may end: ending sooner, it leaves room for
            // some of this row's first lines; ending later, its own last lines no longer fit.
            const qreal rowsEnd = pageEndOf(geometry.top, pageHeight) - tableFootRoom(*table);
            const qreal target = rowsEnd - (geometry.topPadding + geometry.firstLine + geometry.bottomPadding) / 2.0;
            const qreal stretch = target - geometry.top;
            if (stretch < 0.5) continue;  // already there: nothing more to gain from the row above
            for (int c = 0; c < table->columns(); ++c) {
                QTextTableCell above = table->cellAt(row - 1, c);
                if (!above.isValid() || above.column() != c || above.row() + above.rowSpan() != row) continue;
                QTextTableCellFormat format = above.format().toTableCellFormat();
                const qreal padding =
                    format.hasProperty(QTextFormat::TableCellBottomPadding) ? format.bottomPadding() : table->format().cellPadding();
                format.setBottomPadding(padding + stretch);
                above.setFormat(format);
            }
        }
        document.markContentsDirty(0, document.characterCount());
        return true;
    }
    return false;
}

}  // namespace

ReportExplorer ReportExporter::explorerPart(const ExplorerState& state, BoundaryPage* boundary) {
    ReportExplorer part{state.parameters(), state.device(), state.plan(), std::nullopt, std::nullopt, std::nullopt, {}};
    if (state.compareDevice() && state.comparePlan()) {
        part.compareDevice = *state.compareDevice();
        part.comparePlan = *state.comparePlan();
    }
    if (!boundary) return part;
    QElapsedTimer waited;
    waited.start();
    while (boundary->isBusy() && waited.elapsed() < kMapWaitMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (boundary->isBusy() || !boundary->result()) return part;
    const ParameterList& parameters = state.parameters();
    const auto nameOf = [&](int index) {
        return index >= 0 && index < static_cast<int>(parameters.size()) ? parameters[static_cast<std::size_t>(index)].name
                                                                         : std::string("?");
    };
    std::string title = "Boundary map on " + state.device().id + ": the verdict along " + nameOf(boundary->xAxis().parameter);
    if (boundary->yAxis()) title += " \u00d7 " + nameOf(boundary->yAxis()->parameter);
    // With its colour key under it: the verdict colours read nowhere else in a printed report (issue 31).
    const QImage image = boundary->plot()->imageWithKey(kPlotWidth, kMapHeight);
    part.map = ReportPlot{title, "boundary-map.png", pngBytes(image)};
    // The legend as plain text, less what only the window can do (hover, click).
    QTextDocument legend;
    legend.setHtml(boundary->legendText());
    QString text = legend.toPlainText().simplified();
    text.replace(QStringLiteral(" Hover a cell for its message; click to move the shape there."), QString());
    part.mapLegend = text.toStdString();
    return part;
}

ReportContent ReportExporter::contentFor(const ExplorerState* state, BoundaryPage* boundary, const Trace& trace, const QString& traceName) {
    ReportContent content;
    const bool hasTrace = !trace.runs.empty() || !trace.records.empty() || !trace.sweeps.empty();
    content.trace = &trace;
    std::string subject;
    if (state) {
        content.explorer = explorerPart(*state, boundary);
        const LaunchPlan& plan = content.explorer->plan;
        subject = std::string(plan.family) + " / " + std::string(plan.variant) + " at " + formatShape(plan.shape, state->parameters()) +
                  " on " + state->device().id + (state->compareDevice() ? " (compared with " + state->compareDevice()->id + ")" : "");
    }
    std::string shortSubject;
    if (state)
        shortSubject =
            std::string(content.explorer->plan.family) + " / " + std::string(content.explorer->plan.variant) + " on " + state->device().id;
    content.title = "Tilescope report: " + (hasTrace ? traceName.toStdString() : shortSubject);
    std::string subtitle = "Exported " + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm")).toStdString() +
                           " UTC by tilescope " + QCoreApplication::applicationVersion().toStdString() + ".";
    if (state && hasTrace) subtitle += " Explorer: " + subject + ".";  // with no trace, the title and the next section say it
    subtitle += hasTrace ? " Trace: " + traceName.toStdString() + "." : " No trace was open.";
    content.subtitle = subtitle;
    return content;
}

QString ReportExporter::defaultFileName(const ExplorerState& state, const Trace& trace, const QString& traceName, const QString& suffix) {
    const bool hasTrace = !trace.runs.empty() || !trace.records.empty() || !trace.sweeps.empty();
    const std::string base = reportBaseName(hasTrace ? traceName.toStdString() : std::string(), state.kernel().family->name(),
                                            state.kernel().variantName(), formatShape(state.shape(), state.parameters()));
    return QString::fromStdString(base) + QLatin1Char('.') + suffix;
}

void ReportExporter::setUpPdfDevice(QPagedPaintDevice* device) {
    if (auto* writer = dynamic_cast<QPdfWriter*>(device)) writer->setResolution(kPdfDpi);
    device->setPageSize(QPageSize(QPageSize::A4));
    device->setPageOrientation(QPageLayout::Landscape);
    device->setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
}

std::unique_ptr<QTextDocument> ReportExporter::pdfDocument(const ReportContent& content, QPagedPaintDevice* device) {
    // QTextDocument reads images from its resources: the embedded data URIs become named ones,
    // scaled to the page width; it knows no <figure>, so captions become paragraphs.
    QString text = QString::fromStdString(reportHtml(content, builtinKernels()));
    auto document = std::make_unique<QTextDocument>();
    document->documentLayout()->setPaintDevice(device);
    const QSizeF page(device->width(), device->height());
    std::vector<ReportPlot> plots = content.tracePlots;
    if (content.explorer && content.explorer->map) plots.push_back(*content.explorer->map);
    for (const auto& plot : plots) {
        const QString name = QString::fromStdString(plot.fileName);
        const QImage image = QImage::fromData(QByteArray::fromStdString(plot.png), "PNG");
        // As wide as the text, but never so tall that a figure and its caption need more than a page.
        double width = page.width() * 0.9;
        if (image.width() > 0 && image.height() * width / image.width() > page.height() * 0.8)
            width = page.height() * 0.8 * image.width() / image.height();
        const int height = image.width() > 0 ? static_cast<int>(image.height() * width / image.width()) : 0;
        text.replace(QStringLiteral("src=\"data:image/png;base64,") + QString::fromStdString(base64Encode(plot.png)) + QLatin1Char('"'),
                     QStringLiteral("width=\"%1\" height=\"%2\" src=\"%3\"").arg(static_cast<int>(width)).arg(height).arg(name));
        document->addResource(QTextDocument::ImageResource, QUrl(name), image);
    }
    text.replace(QRegularExpression(QStringLiteral("<figure[^>]*>")), QStringLiteral("<p>"));
    text.replace(QStringLiteral("</figure>"), QStringLiteral("</p>"));
    text.replace(QStringLiteral("<figcaption>"), QStringLiteral("<br><i>"));
    text.replace(QStringLiteral("</figcaption>"), QStringLiteral("</i>"));
    QFont font(QStringLiteral("sans-serif"));
    font.setStyleHint(QFont::SansSerif);
    font.setPointSize(kPdfFontPoints);
    document->setDefaultFont(font);
    document->setDocumentMargin(0);
    document->setPageSize(page);
    document->setHtml(text);
    // Each pass shrinks one figure; a report has a few of them. (A heading given a page break
    // before it here makes Qt 6.4 drop the blocks after the next table, so headings are left as laid out.)
    for (int pass = 0; pass < 200 && fitFigure(*document); ++pass) {
    }
    // Then headings and table rows, each moved at most once: a moved one is on a page's top.
    for (int pass = 0; pass < 200 && keepTogether(*document); ++pass) {
    }
    return document;
}

QStringList ReportExporter::pageTexts(const QTextDocument& document) {
    const qreal pageHeight = document.pageSize().height();
    QStringList pages(std::max(1, document.pageCount()));
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (block.text().isEmpty()) continue;
        const int page = std::clamp(static_cast<int>(spanOf(document, block).top / pageHeight), 0, static_cast<int>(pages.size()) - 1);
        pages[page] += block.text() + QLatin1Char('\n');
    }
    return pages;
}

std::pair<int, int> ReportExporter::pagesOf(const QTextDocument& document, const QTextBlock& block) {
    const qreal pageHeight = document.pageSize().height();
    const BlockSpan span = spanOf(document, block);
    return {pageOf(span.top, pageHeight), pageOf(std::max(span.top, span.bottom - 0.5), pageHeight)};
}

double ReportExporter::lastPageFill(const QTextDocument& document) {
    const qreal pageHeight = document.pageSize().height();
    qreal bottom = 0.0;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        bottom = std::max(bottom, spanOf(document, block).bottom);
    const qreal onLast = bottom - (document.pageCount() - 1) * pageHeight;
    return std::clamp(onLast / pageHeight, 0.0, 1.0);
}

Result<void> ReportExporter::exportReport(const Trace& trace, const QString& path, const QString& title) {
    return exportReport(ReportContent{title.toStdString(), {}, &trace, {}, std::nullopt}, path);
}

Result<void> ReportExporter::exportReport(ReportContent content, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("html") && suffix != QLatin1String("htm") && suffix != QLatin1String("pdf") &&
        suffix != QLatin1String("md"))
        return Error{"unknown report format '" + suffix.toStdString() + "': use .html, .pdf or .md"};
    if (content.tracePlots.empty() && content.trace) content.tracePlots = renderPlots(*content.trace);
    if (suffix == QLatin1String("md")) {
        const QFileInfo info(path);
        const QString folderName = info.completeBaseName() + QStringLiteral("_files");
        const QDir folder(info.absoluteDir().filePath(folderName));
        std::vector<ReportPlot> plots = content.tracePlots;
        if (content.explorer && content.explorer->map) plots.push_back(*content.explorer->map);
        if (!plots.empty() && !QDir().mkpath(folder.path())) return Error{"cannot create " + folder.path().toStdString()};
        for (const auto& plot : plots) {
            auto written = writeText(folder.filePath(QString::fromStdString(plot.fileName)), QByteArray::fromStdString(plot.png));
            if (!written) return written;
        }
        return writeText(path, QByteArray::fromStdString(reportMarkdown(content, builtinKernels(), folderName.toStdString())));
    }
    if (suffix != QLatin1String("pdf")) return writeText(path, QByteArray::fromStdString(reportHtml(content, builtinKernels())));

    QPdfWriter writer(path);
    writer.setTitle(QString::fromStdString(content.title));
    writer.setCreator(QStringLiteral("Tilescope"));
    setUpPdfDevice(&writer);
    const auto document = pdfDocument(content, &writer);
    // The document's own pages, painted one by one (QTextDocument::print would paginate a copy
    // with its own margins and page numbers, so what was fitted above would not hold).
    QPainter painter;
    if (!painter.begin(&writer)) return Error{"cannot write " + path.toStdString()};
    const QSizeF page = document->pageSize();
    for (int i = 0; i < document->pageCount(); ++i) {
        if (i > 0) writer.newPage();
        painter.save();
        const QRectF clip(0, i * page.height(), page.width(), page.height());
        painter.translate(0, -clip.top());
        painter.setClipRect(clip);
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = clip;
        context.palette.setColor(QPalette::Text, Qt::black);
        document->documentLayout()->draw(&painter, context);
        painter.restore();
    }
    painter.end();
    if (!QFileInfo(path).isFile() || QFileInfo(path).size() == 0) return Error{"cannot write " + path.toStdString()};
    return {};
}

}  // namespace tilescope

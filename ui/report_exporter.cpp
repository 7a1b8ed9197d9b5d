#include "ui/report_exporter.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTextDocument>
#include <algorithm>
#include <map>

#include "core/timeline_layout.h"
#include "ui/plot_widget.h"
#include "ui/timeline_view.h"

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
    for (const auto& run : trace.runs) anyRecord = anyRecord || (run.gpu && !run.gpu->records.empty()) || (run.gpu && !run.gpu->launch.ok());
    if (!anyRecord) return {};
    const QSize size(kPlotWidth, kPlotHeight);
    return {{"Timeline: kernels by device and stream, failed launches in red", "timeline.png", pngBytes(renderTimeline(trace, size))},
            {"Kernels by total time (at most the " + std::to_string(kTopKernels) + " longest)", "kernel-times.png",
             pngBytes(renderKernelTimes(trace, size))}};
}

Result<void> ReportExporter::exportReport(const Trace& trace, const QString& path, const QString& title) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("html") && suffix != QLatin1String("htm") && suffix != QLatin1String("pdf") && suffix != QLatin1String("md"))
        return Error{"unknown report format '" + suffix.toStdString() + "': use .html, .pdf or .md"};
    const std::vector<ReportPlot> plots = renderPlots(trace);
    const std::string titleText = title.toStdString();
    if (suffix == QLatin1String("md")) {
        const QFileInfo info(path);
        const QString folderName = info.completeBaseName() + QStringLiteral("_files");
        const QDir folder(info.absoluteDir().filePath(folderName));
        if (!plots.empty() && !QDir().mkpath(folder.path())) return Error{"cannot create " + folder.path().toStdString()};
        for (const auto& plot : plots) {
            auto written = writeText(folder.filePath(QString::fromStdString(plot.fileName)), QByteArray::fromStdString(plot.png));
            if (!written) return written;
        }
        return writeText(path, QByteArray::fromStdString(reportMarkdown(trace, plots, titleText, folderName.toStdString())));
    }
    const std::string html = reportHtml(trace, plots, titleText);
    if (suffix != QLatin1String("pdf")) return writeText(path, QByteArray::fromStdString(html));

    // QTextDocument reads images from its resources: the embedded data URIs become named ones,
    // scaled to the page; it knows no <figure>, so captions become paragraphs.
    QString text = QString::fromStdString(html);
    QTextDocument document;
    for (const auto& plot : plots) {
        const QString name = QString::fromStdString(plot.fileName);
        const QImage image = QImage::fromData(QByteArray::fromStdString(plot.png), "PNG");
        const int height = image.width() > 0 ? image.height() * kPdfImageWidth / image.width() : 0;
        text.replace(QStringLiteral("src=\"data:image/png;base64,") + QString::fromStdString(base64Encode(plot.png)) + QLatin1Char('"'),
                     QStringLiteral("width=\"%1\" height=\"%2\" src=\"%3\"").arg(kPdfImageWidth).arg(height).arg(name));
        document.addResource(QTextDocument::ImageResource, QUrl(name), image);
    }
    text.replace(QRegularExpression(QStringLiteral("<figure[^>]*>")), QStringLiteral("<p>"));
    text.replace(QStringLiteral("</figure>"), QStringLiteral("</p>"));
    text.replace(QStringLiteral("<figcaption>"), QStringLiteral("<br><i>"));
    text.replace(QStringLiteral("</figcaption>"), QStringLiteral("</i>"));
    QPdfWriter writer(path);
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Tilescope"));
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageOrientation(QPageLayout::Landscape);
    writer.setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
    document.setHtml(text);
    document.print(&writer);
    if (!QFileInfo(path).isFile() || QFileInfo(path).size() == 0) return Error{"cannot write " + path.toStdString()};
    return {};
}

}  // namespace tilescope

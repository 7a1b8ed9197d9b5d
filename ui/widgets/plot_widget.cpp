#include "ui/widgets/plot_widget.h"

#include <QAbstractTextDocumentLayout>
#include <QFontMetrics>
#include <QFileDialog>
#include <QMenu>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <algorithm>
#include <cmath>

#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// Whole numbers from 1,000 up grouped as everywhere else in the app: the Shared memory and Occupancy
// axes read "250000" and "20000" beside a table and banner that read "232,448".
class GroupedTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override {
        if (std::abs(tick) >= 1000.0 && tick == std::floor(tick)) return groupedNumber(tick);
        return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
    }
};

}  // namespace

PlotWidget::PlotWidget(QWidget* parent) : QCustomPlot(parent) {
    // A page that needs other ticks (text, log) sets its own ticker over this one.
    xAxis->setTicker(QSharedPointer<GroupedTicker>::create());
    yAxis->setTicker(QSharedPointer<GroupedTicker>::create());
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &PlotWidget::showContextMenu);
    // After a replot the axis rects have their laid-out size: a title that no longer fits (or now fits)
    // changes, and one more replot shows it (an axis's length does not depend on its title's).
    connect(this, &QCustomPlot::afterReplot, this, [this] {
        if (fitAxisTitles()) replot(QCustomPlot::rpQueuedReplot);
    });
    setNoAntialiasingOnDrag(true);
    setMinimumSize(240, 180);
    applyPalette();
}

QColor PlotWidget::textColour() const { return palette().color(QPalette::WindowText); }

void PlotWidget::styleAxis(QCPAxis* axis) {
    const QColor text = textColour();
    QColor grid = text;
    grid.setAlpha(40);
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

void PlotWidget::applyPalette() {
    setBackground(palette().brush(QPalette::Base));
    for (QCPAxisRect* rect : axisRects()) {
        for (QCPAxis* axis : rect->axes()) styleAxis(axis);
    }
    if (legend) {
        legend->setBrush(palette().brush(QPalette::Base));
        legend->setTextColor(textColour());
        legend->setBorderPen(QPen(textColour()));
    }
}

void PlotWidget::setAxisTitles(QCPAxis* axis, const QStringList& longestFirst) {
    m_axisTitles.insert(axis, longestFirst);
    axis->setLabel(longestFirst.value(0));
    fitAxisTitles();
}

bool PlotWidget::fitAxisTitles() {
    bool changed = false;
    for (auto it = m_axisTitles.cbegin(); it != m_axisTitles.cend(); ++it) {
        QCPAxis* axis = it.key();
        const QStringList& titles = it.value();
        if (titles.isEmpty()) continue;
        const QRect rect = axis->axisRect()->rect();
        const int length = axis->orientation() == Qt::Vertical ? rect.height() : rect.width();
        if (length <= 0) continue;  // not laid out yet
        const QFontMetrics metrics(axis->labelFont());
        const auto fits =
            std::find_if(titles.begin(), titles.end(), [&](const QString& t) { return metrics.horizontalAdvance(t) <= length; });
        const QString& shown = fits != titles.end() ? *fits : titles.back();
        if (axis->label() == shown) continue;
        axis->setLabel(shown);
        changed = true;
    }
    return changed;
}

void PlotWidget::placeLegendBelow(int entriesPerRow) {
    legend->setVisible(true);
    plotLayout()->addElement(1, 0, legend);  // takes it out of the axis rect's inset layout
    plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(entriesPerRow);
    if (m_legendColumns == 0) connect(this, &QCustomPlot::beforeReplot, this, &PlotWidget::fitLegendColumns);
    m_legendColumns = entriesPerRow;
}

void PlotWidget::fitLegendColumns() {
    // As many entries to a row as the plot's width holds, down to one: in the smallest window (800 x 500)
    // the Tiles legend's three entries need 521 px on a 468 px plot and were cut at the right.
    if (m_legendColumns <= 0 || !legend->visible()) return;
    const int available = viewport().width();
    for (int columns = m_legendColumns; columns >= 1; --columns) {
        if (legend->wrap() != columns) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // rearranges the entries it holds
        }
        if (legend->minimumOuterSizeHint().width() <= available) return;
    }
}

void PlotWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        replot(QCustomPlot::rpQueuedReplot);
    }
    QCustomPlot::changeEvent(event);
}

QImage PlotWidget::imageWithKey(int width, int height, qreal scale) {
    const QImage plot = toPixmap(width, height, scale).toImage();
    if (m_exportKey.isEmpty()) return plot;
    QTextDocument key;
    key.setDefaultFont(font());
    key.setHtml(m_exportKey);
    key.setTextWidth(width);
    const int keyHeight = static_cast<int>(std::ceil(key.size().height()));
    QImage image(plot.width(), plot.height() + static_cast<int>(std::ceil(keyHeight * scale)), QImage::Format_ARGB32);
    image.fill(palette().color(QPalette::Window));
    QPainter painter(&image);
    painter.drawImage(0, 0, plot);
    painter.translate(0, plot.height());
    painter.scale(scale, scale);
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette.setColor(QPalette::Text, textColour());
    key.documentLayout()->draw(&painter, context);
    painter.end();
    return image;
}

bool PlotWidget::savePngWithKey(const QString& fileName) { return imageWithKey(width(), height(), 2.0).save(fileName, "PNG"); }

bool PlotWidget::savePdfWithKey(const QString& fileName) {
    // As QCustomPlot::savePdf (one page the plot's size in points, drawn as vectors), the key under it.
    QTextDocument key;
    key.setDefaultFont(font());
    key.setHtml(m_exportKey);
    key.setTextWidth(width());
    const QSize page(width(), height() + static_cast<int>(std::ceil(key.size().height())));
    QPdfWriter writer(fileName);
    writer.setCreator(QStringLiteral("Tilescope"));
    QPageLayout layout;
    layout.setMode(QPageLayout::FullPageMode);
    layout.setOrientation(QPageLayout::Portrait);
    layout.setMargins(QMarginsF());
    layout.setPageSize(QPageSize(page, QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageLayout(layout);
    QCPPainter painter;
    if (!painter.begin(&writer)) return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setWindow(QRect(QPoint(), page));
    painter.fillRect(QRect(QPoint(), page), palette().color(QPalette::Window));
    toPainter(&painter, width(), height());
    painter.translate(0, height());
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette.setColor(QPalette::Text, textColour());
    key.documentLayout()->draw(&painter, context);
    return painter.end();
}

bool PlotWidget::exportTo(const QString& fileName) {
    if (fileName.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return !m_exportKey.isEmpty() ? savePngWithKey(fileName) : savePng(fileName, width(), height(), 2.0);
    if (fileName.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return !m_exportKey.isEmpty() ? savePdfWithKey(fileName) : savePdf(fileName, width(), height());
    return false;
}

void PlotWidget::showContextMenu(const QPoint& position) {
    QMenu menu(this);
    auto save = [this](const QString& filter, const QString& suffix) {
        QString file = QFileDialog::getSaveFileName(this, tr("Save plot"), objectName() + suffix, filter);
        if (file.isEmpty()) return;
        if (!file.endsWith(suffix, Qt::CaseInsensitive)) file += suffix;
        if (!exportTo(file)) QMessageBox::warning(this, tr("Save plot"), tr("Could not write %1.").arg(file));
    };
    menu.addAction(tr("Save as PNG…"), this, [save] { save(tr("PNG image (*.png)"), QStringLiteral(".png")); });
    menu.addAction(tr("Save as PDF…"), this, [save] { save(tr("PDF document (*.pdf)"), QStringLiteral(".pdf")); });
    menu.exec(mapToGlobal(position));
}

QCPItemText* addPlotLabel(PlotWidget* plot, const QString& text) {
    auto* label = new QCPItemText(plot);
    label->setText(text);
    label->setColor(plot->textColour());
    label->setClipToAxisRect(false);
    return label;
}

}  // namespace tilescope

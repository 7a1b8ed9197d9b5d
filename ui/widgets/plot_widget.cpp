#include "ui/widgets/plot_widget.h"

#include <QFileDialog>
#include <QMenu>
#include <QPainter>
#include <algorithm>

namespace tilescope {

PlotWidget::PlotWidget(QWidget* parent) : QCustomPlot(parent) {
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &PlotWidget::showContextMenu);
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

void PlotWidget::placeLegendBelow(int entriesPerRow) {
    legend->setVisible(true);
    plotLayout()->addElement(1, 0, legend);  // takes it out of the axis rect's inset layout
    plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(entriesPerRow);
}

void PlotWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        replot(QCustomPlot::rpQueuedReplot);
    }
    QCustomPlot::changeEvent(event);
}

bool PlotWidget::savePngWithKey(const QString& fileName) {
    constexpr qreal kScale = 2.0;
    const QImage plot = toPixmap(width(), height(), kScale).toImage();
    const QPixmap key = m_exportKey->grab();  // at the screen's device pixel ratio
    const QSize keySize = (QSizeF(key.size()) / key.devicePixelRatio() * kScale).toSize();
    QImage image(std::max(plot.width(), keySize.width()), plot.height() + keySize.height(), QImage::Format_ARGB32);
    image.fill(palette().color(QPalette::Window));
    QPainter painter(&image);
    painter.drawImage(0, 0, plot);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.drawPixmap(QRect(QPoint(0, plot.height()), keySize), key);
    painter.end();
    return image.save(fileName, "PNG");
}

bool PlotWidget::exportTo(const QString& fileName) {
    if (fileName.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return m_exportKey && m_exportKey->isVisible() ? savePngWithKey(fileName) : savePng(fileName, width(), height(), 2.0);
    if (fileName.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) return savePdf(fileName, width(), height());
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

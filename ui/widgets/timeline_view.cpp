#include "ui/widgets/timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "ui/widgets/timeline_lanes.h"

namespace tilescope {

namespace {

// Wheel steps of this many eighths of a degree zoom by kWheelZoom (Qt: one notch = 120).
constexpr double kWheelNotch = 120.0;
constexpr double kWheelZoom = 1.25;

QString durationText(std::int64_t ns) {
    if (ns == 0) return QStringLiteral("0");
    // Three decimals at most, trailing zeros dropped: "1.5 ms", "500 µs", "0.125 µs".
    auto trimmed = [](double value) {
        QString text = QString::number(value, 'f', 3);
        while (text.endsWith(QLatin1Char('0'))) text.chop(1);
        if (text.endsWith(QLatin1Char('.'))) text.chop(1);
        return text;
    };
    if (ns >= 1'000'000) return trimmed(static_cast<double>(ns) / 1e6) + QStringLiteral(" ms");
    return trimmed(static_cast<double>(ns) / 1e3) + QStringLiteral(" µs");
}

QString dimText(const Dim3& d) { return QStringLiteral("(%1, %2, %3)").arg(d.x).arg(d.y).arg(d.z); }

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timelineView"));
    setMouseTracking(true);
    setMinimumHeight(kAxisHeight + 2 * kLaneHeight);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void TimelineView::setTimeline(TimelineLayout layout) {
    m_layout = std::move(layout);
    m_layout.setWidth(std::max(1, width() - kTitleWidth));
    setMinimumHeight(kAxisHeight + std::max<int>(2, static_cast<int>(m_layout.lanes().size())) * kLaneHeight);
    update();
    emit viewChanged();
}

void TimelineView::zoomBy(double factor) {
    m_layout.zoom(factor, m_layout.width() / 2.0);
    update();
    emit viewChanged();
}

void TimelineView::resetZoom() {
    m_layout.resetView();
    update();
    emit viewChanged();
}

int TimelineView::laneAt(int y) const {
    if (y < kAxisHeight) return -1;
    const int lane = (y - kAxisHeight) / kLaneHeight;
    return lane < static_cast<int>(m_layout.lanes().size()) ? lane : -1;
}

QString TimelineView::textAt(const QPoint& position) const {
    const int lane = laneAt(position.y());
    if (lane < 0) return {};
    if (position.x() < kTitleWidth) return QString::fromStdString(m_layout.lanes()[static_cast<std::size_t>(lane)].title);
    const double x = position.x() - kTitleWidth;
    if (const TimelineMarker* marker = m_layout.markerAt(lane, x))
        return tr("Failed launch (run %1)\n%2").arg(marker->run + 1).arg(QString::fromStdString(marker->text));
    if (const TimelineBar* bar = m_layout.barAt(lane, x)) {
        const KernelRecord& r = *bar->record;
        QString text = QString::fromStdString(r.name) + QLatin1Char('\n') +
                       tr("duration %1 · grid %2 · block %3").arg(durationText(r.durationNs()), dimText(r.grid), dimText(r.block));
        if (r.registersPerThread) text += tr(" · %1 registers").arg(*r.registersPerThread);
        if (r.sharedMemory) text += tr(" · %1 B shared memory").arg(*r.sharedMemory);
        else if (r.staticSmem || r.dynamicSmem)
            text += tr(" · %1 B shared memory").arg(r.staticSmem.value_or(0) + r.dynamicSmem.value_or(0));
        text += tr("\nstream %1 · correlation id %2").arg(r.stream).arg(r.correlationId);
        if (bar->run >= 0) text += tr(" · run %1").arg(bar->run + 1);
        return text;
    }
    return {};
}

void TimelineView::paintAxis(QPainter& painter) {
    const QRect axis(kTitleWidth, 0, width() - kTitleWidth, kAxisHeight);
    painter.setPen(palette().color(QPalette::WindowText));
    const std::int64_t span = m_layout.viewEndNs() - m_layout.viewBeginNs();
    if (span <= 0) return;
    // A 1-2-5 step giving about one tick per 120 pixels.
    const double target = static_cast<double>(span) * 120.0 / std::max(1.0, m_layout.width());
    double step = std::pow(10.0, std::floor(std::log10(target)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= target) {
            step *= m;
            break;
        }
    const auto stepNs = static_cast<std::int64_t>(std::max(1.0, step));
    const std::int64_t offset = m_layout.viewBeginNs() - m_layout.beginNs();
    for (std::int64_t t = (offset / stepNs) * stepNs; t <= offset + span; t += stepNs) {
        const double x = kTitleWidth + m_layout.xForNs(m_layout.beginNs() + t);
        if (x < kTitleWidth) continue;
        const QString label = durationText(t);
        if (x + 2 + painter.fontMetrics().horizontalAdvance(label) > width()) break;  // no clipped last label
        painter.drawLine(QPointF(x, kAxisHeight - 5), QPointF(x, kAxisHeight));
        painter.drawText(QRectF(x + 2, 0, 110, kAxisHeight - 4), Qt::AlignLeft | Qt::AlignBottom, label);
    }
    painter.drawLine(axis.bottomLeft(), axis.bottomRight());
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (m_layout.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No kernel records: open a trace with GPU runs or a PyTorch profiler trace."));
        return;
    }
    paintAxis(painter);
    const auto& lanes = m_layout.lanes();
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const int top = kAxisHeight + static_cast<int>(i) * kLaneHeight;
        const QRect title(0, top, kTitleWidth, kLaneHeight);
        const QRect area(kTitleWidth, top, width() - kTitleWidth, kLaneHeight);
        painter.setClipRect(area);
        if (lanes[i].kind == LaneKind::Stream) StreamLanePainter::paint(painter, m_layout, lanes[i], area, palette());
        else FailedLaunchLanePainter::paint(painter, m_layout, lanes[i], area, palette());
        painter.setClipping(false);
        painter.setPen(lanes[i].kind == LaneKind::FailedLaunches ? QColor(0xd3, 0x2f, 0x2f) : palette().color(QPalette::WindowText));
        painter.drawText(title.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                         painter.fontMetrics().elidedText(QString::fromStdString(lanes[i].title), Qt::ElideMiddle, kTitleWidth - 12));
    }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_layout.setWidth(std::max(1, width() - kTitleWidth));
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double notches = event->angleDelta().y() / kWheelNotch;
    m_layout.zoom(std::pow(kWheelZoom, notches), event->position().x() - kTitleWidth);
    update();
    emit viewChanged();
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_lastX = event->position().x();
        setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragging) return;
    m_layout.pan(m_lastX - event->position().x());
    m_lastX = event->position().x();
    update();
    emit viewChanged();
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
    m_dragging = false;
    unsetCursor();
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = textAt(help->pos());
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

}  // namespace tilescope

#include "ui/widgets/timeline_lanes.h"

#include <QColor>
#include <QPainter>
#include <QPalette>
#include <QPolygonF>
#include <algorithm>
#include <functional>
#include <string>

#include "core/series/timeline_layout.h"

namespace tilescope {

namespace {

// A stable colour per kernel name, so the same kernel reads the same on every lane.
QColor kernelColour(const std::string& name) {
    const auto hash = std::hash<std::string>{}(name);
    return QColor::fromHsl(static_cast<int>(hash % 360), 150, 120);
}

}  // namespace

void StreamLanePainter::paint(QPainter& painter, const TimelineLayout& layout, const TimelineLane& lane, const QRect& area,
                              const QPalette& palette) {
    const double left = area.left();
    const double top = area.top() + 3.0;
    const double height = area.height() - 6.0;
    for (const auto& bar : lane.bars) {
        if (bar.endNs < layout.viewBeginNs() || bar.startNs > layout.viewEndNs()) continue;
        const double x0 = std::max(0.0, layout.xForNs(bar.startNs));
        const double x1 = std::min(layout.width(), layout.xForNs(bar.endNs));
        const QRectF rect(left + x0, top, std::max(1.0, x1 - x0), height);
        painter.fillRect(rect, kernelColour(bar.record->name));
        if (rect.width() > 40.0) {
            painter.setPen(QColor(Qt::white));
            painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                             painter.fontMetrics().elidedText(QString::fromStdString(bar.record->name), Qt::ElideRight,
                                                              static_cast<int>(rect.width()) - 6));
        }
    }
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
}

void FailedLaunchLanePainter::paint(QPainter& painter, const TimelineLayout& layout, const TimelineLane& lane, const QRect& area,
                                    const QPalette& palette) {
    const QColor red(0xd3, 0x2f, 0x2f);
    painter.setPen(Qt::NoPen);
    painter.setBrush(red);
    const double middle = area.center().y();
    const double half = std::min(8.0, area.height() / 2.0 - 2.0);
    for (const auto& marker : lane.markers) {
        if (marker.atNs < layout.viewBeginNs() || marker.atNs > layout.viewEndNs()) continue;
        const double x = area.left() + layout.xForNs(marker.atNs);
        painter.drawPolygon(
            QPolygonF({QPointF(x, middle - half), QPointF(x + half, middle), QPointF(x, middle + half), QPointF(x - half, middle)}));
    }
    painter.setBrush(Qt::NoBrush);
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
}

}  // namespace tilescope

// TimelineView: paints a TimelineLayout, one row per lane with its title on the left; the wheel
// zooms around the pointer, dragging pans, hovering shows the record or the failure.
#pragma once

#include <QWidget>

#include "core/series/timeline_layout.h"

namespace tilescope {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setTimeline(TimelineLayout layout);
    const TimelineLayout& timeline() const { return m_layout; }
    void zoomBy(double factor);  // around the middle of the view
    void resetZoom();
    // The text hovering at `position` shows (empty over nothing).
    QString textAt(const QPoint& position) const;

    static constexpr int kLaneHeight = 26;
    static constexpr int kTitleWidth = 230;
    static constexpr int kAxisHeight = 22;

signals:
    void viewChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // tooltips

private:
    int laneAt(int y) const;
    void paintAxis(QPainter& painter);

    TimelineLayout m_layout;
    bool m_dragging = false;
    double m_lastX = 0.0;
};

}  // namespace tilescope

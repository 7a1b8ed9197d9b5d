// One small painter per Timeline lane type (tracy's pattern): kernel bars on a stream lane, red
// markers on a failed-launches lane. Positions come from core's TimelineLayout.
#pragma once

#include <QRect>

class QPainter;
class QPalette;

namespace tilescope {

struct TimelineLane;
class TimelineLayout;

class StreamLanePainter {
public:
    // Bars narrower than a pixel are drawn one pixel wide so short kernels stay visible.
    static void paint(QPainter& painter, const TimelineLayout& layout, const TimelineLane& lane, const QRect& area,
                      const QPalette& palette);
};

class FailedLaunchLanePainter {
public:
    static void paint(QPainter& painter, const TimelineLayout& layout, const TimelineLane& lane, const QRect& area,
                      const QPalette& palette);
};

}  // namespace tilescope

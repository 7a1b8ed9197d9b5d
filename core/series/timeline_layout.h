// TimelineLayout: the kernel records of a Trace as lanes (one per device and stream, plus one
// lane of failed launches per device), and the mapping between time and pixels behind zoom and
// pan. The Timeline page only paints what this computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/trace.h"

namespace tilescope {

enum class LaneKind { Stream, FailedLaunches };

struct TimelineBar {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    const KernelRecord* record = nullptr;  // points into the Trace (valid while it lives)
    int run = -1;                          // index into Trace::runs; -1: an imported record
};

// A failed launch left no record: it is placed where its device's timeline had got to.
struct TimelineMarker {
    std::int64_t atNs = 0;
    int run = -1;
    std::string text;  // "cudaErrorInvalidConfiguration: invalid configuration argument"
};

struct TimelineLane {
    LaneKind kind = LaneKind::Stream;
    int device = 0;
    std::int64_t stream = 0;
    std::string title;              // "GPU 0 · stream 7", "GPU 0 · failed launches"
    std::vector<TimelineBar> bars;  // sorted by start
    std::vector<TimelineMarker> markers;
};

class TimelineLayout {
public:
    static TimelineLayout fromTrace(const Trace& trace);

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    bool empty() const { return m_lanes.empty(); }
    std::int64_t beginNs() const { return m_beginNs; }  // earliest start of anything
    std::int64_t endNs() const { return m_endNs; }

    // The visible window [viewBegin, viewEnd) drawn over `widthPx` pixels.
    void setWidth(double widthPx);
    double width() const { return m_widthPx; }
    std::int64_t viewBeginNs() const { return m_viewBeginNs; }
    std::int64_t viewEndNs() const { return m_viewEndNs; }
    void resetView();  // everything visible
    // The opening view: the shortest stretch holding kBusyShare of the kernels when that is under a
    // quarter of the trace (a profiler trace with a warm-up kernel seconds before the profiled step),
    // else everything. fromTrace starts there; resetView still shows the whole trace.
    void focusOnBusiest();
    static constexpr double kBusyShare = 0.9;
    double xForNs(std::int64_t ns) const;
    std::int64_t nsForX(double x) const;
    // factor > 1 zooms in, keeping the time under anchorPx where it is; never narrower than
    // kMinViewNs nor wider than the whole trace.
    void zoom(double factor, double anchorPx);
    // Moves the view by dx pixels (positive: later times come into view), clamped to the trace.
    void pan(double dxPx);

    // The bar of a lane under pixel x (within tolerancePx); nullptr when none.
    const TimelineBar* barAt(int lane, double x, double tolerancePx = 2.0) const;
    const TimelineMarker* markerAt(int lane, double x, double tolerancePx = 4.0) const;

    static constexpr std::int64_t kMinViewNs = 1000;  // 1 µs across the whole width

private:
    void clampView();

    std::vector<TimelineLane> m_lanes;
    std::int64_t m_beginNs = 0, m_endNs = 0;
    std::int64_t m_viewBeginNs = 0, m_viewEndNs = 0;
    double m_widthPx = 1.0;
};

}  // namespace tilescope

#include "core/series/timeline_layout.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <utility>

namespace tilescope {

namespace {

// Short enough for the lane's title column; the device's name is in the report and the Runs page.
std::string deviceTitle(const Trace&, int device) { return "GPU " + std::to_string(device); }

// "local:3" -> 3; a run on a database device (no live ordinal) goes on GPU 0.
int deviceOrdinal(const std::string& id) {
    const auto colon = id.rfind(':');
    if (colon == std::string::npos) return 0;
    try {
        return std::stoi(id.substr(colon + 1));
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

TimelineLayout TimelineLayout::fromTrace(const Trace& trace) {
    TimelineLayout layout;
    std::map<std::pair<int, std::int64_t>, TimelineLane> streams;
    std::map<int, TimelineLane> failures;
    std::map<int, std::int64_t> cursor;  // where each device's timeline had got to
    auto addBar = [&](const KernelRecord& r, int run) {
        TimelineLane& lane = streams[{r.device, r.stream}];
        lane.bars.push_back({r.startNs, std::max(r.endNs, r.startNs), &r, run});
        cursor[r.device] = std::max(cursor[r.device], r.endNs);
    };
    for (std::size_t i = 0; i < trace.runs.size(); ++i) {
        const Run& run = trace.runs[i];
        if (!run.gpu) continue;  // predicted runs never ran
        for (const auto& r : run.gpu->records) addBar(r, static_cast<int>(i));
        const CudaOutcome* failure = !run.gpu->launch.ok()        ? &run.gpu->launch
                                     : !run.gpu->synchronize.ok() ? &run.gpu->synchronize
                                                                  : nullptr;
        if (failure) {
            const int device = run.gpu->records.empty() ? deviceOrdinal(run.plan.deviceId) : run.gpu->records.front().device;
            failures[device].markers.push_back({cursor[device], static_cast<int>(i), failure->errorName + ": " + failure->errorText});
        }
    }
    for (const auto& r : trace.records) addBar(r, -1);

    for (auto& [key, lane] : streams) {
        lane.kind = LaneKind::Stream;
        lane.device = key.first;
        lane.stream = key.second;
        lane.title = deviceTitle(trace, key.first) + " · stream " + std::to_string(key.second);
        std::sort(lane.bars.begin(), lane.bars.end(), [](const TimelineBar& a, const TimelineBar& b) { return a.startNs < b.startNs; });
        layout.m_lanes.push_back(std::move(lane));
    }
    for (auto& [device, lane] : failures) {
        lane.kind = LaneKind::FailedLaunches;
        lane.device = device;
        lane.title = deviceTitle(trace, device) + " · failed launches";
        layout.m_lanes.push_back(std::move(lane));
    }
    bool any = false;
    std::int64_t begin = std::numeric_limits<std::int64_t>::max(), end = std::numeric_limits<std::int64_t>::min();
    for (const auto& lane : layout.m_lanes) {
        for (const auto& b : lane.bars) begin = std::min(begin, b.startNs), end = std::max(end, b.endNs), any = true;
        for (const auto& m : lane.markers) begin = std::min(begin, m.atNs), end = std::max(end, m.atNs), any = true;
    }
    if (any) {
        layout.m_beginNs = begin;
        layout.m_endNs = std::max(end, begin + kMinViewNs);
    }
    layout.focusOnBusiest();
    return layout;
}

void TimelineLayout::focusOnBusiest() {
    resetView();
    struct Span {
        std::int64_t begin, end;
    };
    std::vector<Span> spans;
    for (const auto& lane : m_lanes) {
        for (const auto& b : lane.bars) spans.push_back({b.startNs, b.endNs});
        for (const auto& m : lane.markers) spans.push_back({m.atNs, m.atNs});
    }
    const std::size_t count = spans.size();
    const auto keep = static_cast<std::size_t>(std::ceil(kBusyShare * static_cast<double>(count)));
    if (count < 2 || keep >= count) return;
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    // Slide a window over `keep` consecutive starts; its extent runs to the latest end inside it
    // (a monotonic deque of indices by end keeps that maximum in O(1) per step).
    std::deque<std::size_t> latest;  // indices in the window, ends decreasing
    std::int64_t bestBegin = m_beginNs, bestEnd = m_endNs;
    for (std::size_t i = 0; i < count; ++i) {
        while (!latest.empty() && spans[latest.back()].end <= spans[i].end) latest.pop_back();
        latest.push_back(i);
        if (i + 1 < keep) continue;
        const std::size_t first = i + 1 - keep;
        while (latest.front() < first) latest.pop_front();
        const std::int64_t begin = spans[first].begin, end = spans[latest.front()].end;
        if (end - begin < bestEnd - bestBegin) bestBegin = begin, bestEnd = end;
    }
    const std::int64_t whole = m_endNs - m_beginNs;
    if (4 * (bestEnd - bestBegin) >= whole) return;
    const std::int64_t margin = std::max<std::int64_t>((bestEnd - bestBegin) / 50, kMinViewNs / 2);
    m_viewBeginNs = bestBegin - margin;
    m_viewEndNs = std::max(bestEnd + margin, m_viewBeginNs + kMinViewNs);
    clampView();
}

void TimelineLayout::setWidth(double widthPx) { m_widthPx = std::max(1.0, widthPx); }

void TimelineLayout::resetView() {
    m_viewBeginNs = m_beginNs;
    m_viewEndNs = m_endNs;
}

double TimelineLayout::xForNs(std::int64_t ns) const {
    const double span = static_cast<double>(m_viewEndNs - m_viewBeginNs);
    if (span <= 0.0) return 0.0;
    return static_cast<double>(ns - m_viewBeginNs) / span * m_widthPx;
}

std::int64_t TimelineLayout::nsForX(double x) const {
    const double span = static_cast<double>(m_viewEndNs - m_viewBeginNs);
    return m_viewBeginNs + static_cast<std::int64_t>(std::llround(x / m_widthPx * span));
}

void TimelineLayout::zoom(double factor, double anchorPx) {
    if (!(factor > 0.0)) return;
    const std::int64_t anchor = nsForX(anchorPx);
    const double span = static_cast<double>(m_viewEndNs - m_viewBeginNs);
    const double total = static_cast<double>(m_endNs - m_beginNs);
    const double newSpan = std::clamp(span / factor, static_cast<double>(kMinViewNs), std::max(total, static_cast<double>(kMinViewNs)));
    const double fraction = std::clamp(anchorPx / m_widthPx, 0.0, 1.0);
    m_viewBeginNs = anchor - static_cast<std::int64_t>(std::llround(fraction * newSpan));
    m_viewEndNs = m_viewBeginNs + static_cast<std::int64_t>(std::llround(newSpan));
    clampView();
}

void TimelineLayout::pan(double dxPx) {
    const double span = static_cast<double>(m_viewEndNs - m_viewBeginNs);
    const auto shift = static_cast<std::int64_t>(std::llround(dxPx / m_widthPx * span));
    m_viewBeginNs += shift;
    m_viewEndNs += shift;
    clampView();
}

void TimelineLayout::clampView() {
    const std::int64_t span = m_viewEndNs - m_viewBeginNs;
    if (m_viewBeginNs < m_beginNs) m_viewBeginNs = m_beginNs, m_viewEndNs = m_beginNs + span;
    if (m_viewEndNs > m_endNs) m_viewEndNs = m_endNs, m_viewBeginNs = std::max(m_beginNs, m_endNs - span);
}

const TimelineBar* TimelineLayout::barAt(int lane, double x, double tolerancePx) const {
    if (lane < 0 || lane >= static_cast<int>(m_lanes.size())) return nullptr;
    const TimelineBar* best = nullptr;
    double bestDistance = tolerancePx;
    for (const auto& b : m_lanes[static_cast<std::size_t>(lane)].bars) {
        const double x0 = xForNs(b.startNs), x1 = xForNs(b.endNs);
        const double distance = x < x0 ? x0 - x : x > x1 ? x - x1 : 0.0;
        if (distance <= bestDistance) best = &b, bestDistance = distance;
        if (distance == 0.0) break;
    }
    return best;
}

const TimelineMarker* TimelineLayout::markerAt(int lane, double x, double tolerancePx) const {
    if (lane < 0 || lane >= static_cast<int>(m_lanes.size())) return nullptr;
    for (const auto& m : m_lanes[static_cast<std::size_t>(lane)].markers)
        if (std::fabs(xForNs(m.atNs) - x) <= tolerancePx) return &m;
    return nullptr;
}

}  // namespace tilescope

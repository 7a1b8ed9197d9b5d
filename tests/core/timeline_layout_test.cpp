#include <gtest/gtest.h>

#include "core/trace/kineto_import.h"
#include "core/series/timeline_layout.h"
#include "kernels/builtin_kernels.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

TEST(TimelineLayout, OneLanePerDeviceAndStreamAndOneForFailedLaunches) {
    const Trace trace = test::fixtureTrace();
    const TimelineLayout layout = TimelineLayout::fromTrace(trace);
    // Streams: device 0 stream 7 (the measured run and one record), device 1 stream 13; failures on GPU 0.
    ASSERT_EQ(layout.lanes().size(), 3U);
    EXPECT_EQ(layout.lanes()[0].kind, LaneKind::Stream);
    EXPECT_EQ(layout.lanes()[0].device, 0);
    EXPECT_EQ(layout.lanes()[0].stream, 7);
    EXPECT_EQ(layout.lanes()[0].bars.size(), 2U);
    EXPECT_EQ(layout.lanes()[0].bars[0].run, 2);   // the measured run comes first in time
    EXPECT_EQ(layout.lanes()[0].bars[1].run, -1);  // the imported record
    EXPECT_EQ(layout.lanes()[1].device, 1);
    EXPECT_EQ(layout.lanes()[2].kind, LaneKind::FailedLaunches);
    ASSERT_EQ(layout.lanes()[2].markers.size(), 1U);
    EXPECT_EQ(layout.lanes()[2].markers[0].run, 3);
    EXPECT_EQ(layout.lanes()[2].markers[0].text, "cudaErrorInvalidConfiguration: invalid configuration argument");
    // Placed where GPU 0's timeline had got to: the end of the measured run's record.
    EXPECT_EQ(layout.lanes()[2].markers[0].atNs, 1'000'000 + 12'345);
    EXPECT_EQ(layout.beginNs(), 1'000'000);
    EXPECT_EQ(layout.endNs(), 2'000'100'000 + 12'345);
}

TEST(TimelineLayout, MapsTimeToPixelsBothWays) {
    TimelineLayout layout = TimelineLayout::fromTrace(test::fixtureTrace());
    layout.setWidth(1000.0);
    EXPECT_DOUBLE_EQ(layout.xForNs(layout.beginNs()), 0.0);
    EXPECT_DOUBLE_EQ(layout.xForNs(layout.endNs()), 1000.0);
    const std::int64_t middle = layout.beginNs() + (layout.endNs() - layout.beginNs()) / 2;
    EXPECT_NEAR(layout.xForNs(middle), 500.0, 1e-6);
    EXPECT_NEAR(static_cast<double>(layout.nsForX(500.0)), static_cast<double>(middle), 1.0);
}

TEST(TimelineLayout, ZoomKeepsTheAnchorAndPanStaysInsideTheTrace) {
    TimelineLayout layout = TimelineLayout::fromTrace(test::fixtureTrace());
    layout.setWidth(1000.0);
    const std::int64_t anchor = layout.nsForX(250.0);
    layout.zoom(4.0, 250.0);
    EXPECT_NEAR(static_cast<double>(layout.viewEndNs() - layout.viewBeginNs()),
                static_cast<double>(layout.endNs() - layout.beginNs()) / 4.0, 2.0);
    EXPECT_NEAR(static_cast<double>(layout.nsForX(250.0)), static_cast<double>(anchor), 2.0);
    layout.pan(-1e9);  // far left: clamped to the start, the span kept
    const std::int64_t span = layout.viewEndNs() - layout.viewBeginNs();
    EXPECT_EQ(layout.viewBeginNs(), layout.beginNs());
    layout.pan(1e9);
    EXPECT_EQ(layout.viewEndNs(), layout.endNs());
    EXPECT_EQ(layout.viewEndNs() - layout.viewBeginNs(), span);
    layout.zoom(1e12, 0.0);  // never narrower than the minimum
    EXPECT_EQ(layout.viewEndNs() - layout.viewBeginNs(), TimelineLayout::kMinViewNs);
    layout.zoom(1e-12, 0.0);  // never wider than the trace
    EXPECT_EQ(layout.viewBeginNs(), layout.beginNs());
    EXPECT_EQ(layout.viewEndNs(), layout.endNs());
}

TEST(TimelineLayout, HitTestingFindsTheBarAndTheMarkerUnderThePointer) {
    TimelineLayout layout = TimelineLayout::fromTrace(test::fixtureTrace());
    layout.setWidth(1000.0);
    // Zoom onto the measured run's record so it is wide.
    layout.zoom(1e5, 0.0);
    const TimelineBar& first = layout.lanes()[0].bars[0];
    const double x = (layout.xForNs(first.startNs) + layout.xForNs(first.endNs)) / 2.0;
    EXPECT_EQ(layout.barAt(0, x), &first);
    EXPECT_EQ(layout.barAt(0, layout.xForNs(first.endNs) + 50.0), nullptr);
    const TimelineMarker& marker = layout.lanes()[2].markers[0];
    EXPECT_EQ(layout.markerAt(2, layout.xForNs(marker.atNs) + 1.0), &marker);
    EXPECT_EQ(layout.markerAt(2, layout.xForNs(marker.atNs) + 40.0), nullptr);
    EXPECT_EQ(layout.barAt(7, x), nullptr);
}

TEST(TimelineLayout, ASampleTraceGivesOneBarPerRecord) {
    auto trace = openTraceFile(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels());
    ASSERT_TRUE(trace) << trace.error();
    const TimelineLayout layout = TimelineLayout::fromTrace(*trace);
    std::size_t bars = 0;
    for (const auto& lane : layout.lanes()) bars += lane.bars.size();
    EXPECT_EQ(bars, trace->records.size());
    EXPECT_GT(bars, 0U);
}

// Issue #15 item 13: the alexnet sample opened on 12.8 s with its kernels crowded at the end (one
// warm-up kernel 10.9 s before the profiled step). It opens on the busy stretch; "Whole trace" shows all.
TEST(TimelineLayout, OpensOnTheBusyStretchAndResetShowsTheWholeTrace) {
    auto trace = openTraceFile(TILESCOPE_SOURCE_DIR "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels());
    ASSERT_TRUE(trace) << trace.error();
    TimelineLayout layout = TimelineLayout::fromTrace(*trace);
    const std::int64_t whole = layout.endNs() - layout.beginNs();
    const std::int64_t view = layout.viewEndNs() - layout.viewBeginNs();
    EXPECT_GT(whole, 12'000'000'000);  // 12.8 s from the first kernel to the last
    EXPECT_LT(4 * view, whole);
    std::size_t bars = 0, visible = 0;
    for (const auto& lane : layout.lanes())
        for (const auto& b : lane.bars) {
            ++bars;
            visible += b.startNs >= layout.viewBeginNs() && b.endNs <= layout.viewEndNs();
        }
    EXPECT_GE(static_cast<double>(visible), TimelineLayout::kBusyShare * static_cast<double>(bars));
    layout.resetView();
    EXPECT_EQ(layout.viewBeginNs(), layout.beginNs());
    EXPECT_EQ(layout.viewEndNs(), layout.endNs());
}

TEST(TimelineLayout, ATraceWithoutOutliersOpensWhole) {
    const TimelineLayout layout = TimelineLayout::fromTrace(test::fixtureTrace());
    EXPECT_EQ(layout.viewBeginNs(), layout.beginNs());
    EXPECT_EQ(layout.viewEndNs(), layout.endNs());
}

TEST(TimelineLayout, AnEmptyTraceHasNoLanes) {
    TimelineLayout layout = TimelineLayout::fromTrace(Trace{});
    layout.setWidth(100.0);
    EXPECT_TRUE(layout.empty());
    layout.zoom(2.0, 50.0);
    layout.pan(10.0);
    EXPECT_EQ(layout.viewBeginNs(), layout.viewEndNs());
}

}  // namespace
}  // namespace tilescope

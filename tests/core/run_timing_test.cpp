// Kernel time of a GPU run from its CUPTI records: the checked launch is not a timed repeat, and a
// two-kernel call (split-KV + combine) is timed as the sum of its kernels.
#include <gtest/gtest.h>

#include "core/trace/run_timing.h"

namespace tilescope {
namespace {

KernelRecord record(std::int64_t startNs, std::int64_t durationNs) {
    KernelRecord r;
    r.startNs = startNs;
    r.endNs = startNs + durationNs;
    return r;
}

TEST(RunTiming, SamplesGiveMedianMinMean) {
    const Timing t = timingOfSamples({5.0, 1.0, 3.0, 100.0});
    EXPECT_EQ(t.repeats, 4);
    EXPECT_DOUBLE_EQ(t.minUs, 1.0);
    EXPECT_DOUBLE_EQ(t.medianUs, 5.0);  // upper median of an even count
    EXPECT_DOUBLE_EQ(t.meanUs, 27.25);
    EXPECT_EQ(timingOfSamples({}).repeats, 0);
}

TEST(RunTiming, CheckedLaunchIsDroppedWhateverOrderCuptiDeliversIn) {
    // The checked launch came first and ran cold (900 ns); three repeats of 40, 10 and 20 µs.
    std::vector<KernelRecord> records{record(3'000'000, 20'000), record(1'000, 900), record(1'000'000, 40'000), record(2'000'000, 10'000)};
    const auto t = timingFromRecords(records, 3, 1, true);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->source, "cupti");
    EXPECT_TRUE(t->l2Flushed);
    EXPECT_EQ(t->repeats, 3);
    EXPECT_DOUBLE_EQ(t->minUs, 10.0);
    EXPECT_DOUBLE_EQ(t->medianUs, 20.0);
}

TEST(RunTiming, TwoKernelsPerCallAreSummed) {
    std::vector<KernelRecord> records{record(0, 1'000),      record(2'000, 500),      // checked call
                                      record(10'000, 8'000), record(19'000, 2'000),   // 10 µs
                                      record(30'000, 9'000), record(40'000, 3'000)};  // 12 µs
    const auto t = timingFromRecords(records, 2, 2, false);
    ASSERT_TRUE(t);
    EXPECT_DOUBLE_EQ(t->minUs, 10.0);
    EXPECT_DOUBLE_EQ(t->medianUs, 12.0);
}

TEST(RunTiming, RecordsThatDoNotCoverEveryCallGiveNothing) {
    std::vector<KernelRecord> records{record(0, 1'000), record(10'000, 2'000)};
    EXPECT_FALSE(timingFromRecords(records, 2, 1, false));  // a record was dropped
    EXPECT_FALSE(timingFromRecords(records, 0, 1, false));
    EXPECT_FALSE(timingFromRecords(records, 1, 0, false));
    EXPECT_TRUE(timingFromRecords(records, 1, 1, false));
}

}  // namespace
}  // namespace tilescope

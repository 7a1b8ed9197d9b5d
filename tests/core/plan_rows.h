// Planner tests as rows (hotspot's `_data` rows): a shape a planner refuses and what the plan must
// say about it, checked by one TEST_P per family instead of one EXPECT block per case.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "test_support.h"

namespace tilescope::test {

struct RefusalRow {
    const char* name;  // the row's test name
    const char* variant;
    const char* shape;
    Verdict verdict = Verdict::UnsupportedShape;
    const char* message = nullptr;     // the exact text; nullptr: not pinned by this row
    const char* messageHas = nullptr;  // a part of it
    bool launchRejection = false;      // the message and error this build's CUDA runtime gives a bad grid
    const char* limit = nullptr;       // LimitHit::name
    std::optional<std::int64_t> limitValue = std::nullopt;
    std::optional<std::int64_t> actual = std::nullopt;
    const char* fix = nullptr;  // the exact fix text
    int fixParameter = -1;      // else the nearest passing value of one parameter
    std::int64_t fixValue = 0;
    const char* device = "h100-sxm";
    const char* cudaError = nullptr;  // the CUDA error's name (cudaGetErrorName); nullptr: not pinned by this row
    int cudaErrorCode = -1;           // its code; -1: not pinned
};

inline void PrintTo(const RefusalRow& row, std::ostream* os) { *os << row.variant << " " << row.shape << " on " << row.device; }

inline std::string rowName(const testing::TestParamInfo<RefusalRow>& info) { return info.param.name; }

inline void expectRefusal(std::string_view family, const RefusalRow& row) {
    const LaunchPlan p = plan(family, row.variant, row.shape, row.device);
    EXPECT_EQ(p.verdict, row.verdict) << p.message;
    if (row.message) {
        EXPECT_EQ(p.message, row.message);
    }
    if (row.messageHas) {
        EXPECT_NE(p.message.find(row.messageHas), std::string::npos) << p.message;
    }
    if (row.launchRejection) {
        EXPECT_EQ(p.message, defaultLaunchRejection().message);
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->name, defaultLaunchRejection().error.name);
        EXPECT_EQ(p.cudaError->code, defaultLaunchRejection().error.code);
    }
    if (row.limit) {
        EXPECT_EQ(limitName(p), row.limit);
    }
    if (row.limitValue) {
        ASSERT_TRUE(p.limit);
        EXPECT_EQ(p.limit->limit, *row.limitValue);
    }
    if (row.actual) {
        ASSERT_TRUE(p.limit);
        EXPECT_EQ(p.limit->actual, *row.actual);
    }
    if (row.fix) {
        EXPECT_EQ(p.fix, row.fix);
    }
    if (row.fixParameter >= 0) {
        ASSERT_TRUE(p.fixShape);
        EXPECT_EQ((*p.fixShape)[row.fixParameter], row.fixValue);
    }
    if (row.cudaError) {
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->name, row.cudaError);
    }
    if (row.cudaErrorCode >= 0) {
        ASSERT_TRUE(p.cudaError);
        EXPECT_EQ(p.cudaError->code, row.cudaErrorCode);
    }
}

}  // namespace tilescope::test

// diagnose on a log from tests/data/logs, for the families' diagnosis tests (kernels/<family>/tests).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "core/diagnosis/diagnosis.h"
#include "core/model/device_spec.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::test {

inline std::string readLogFile(const std::string& name) {
    std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/logs/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The findings of the log `name`.
inline Diagnosis diagnoseLog(const std::string& name) {
    auto result = diagnoseText(readLogFile(name), builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error());
    return result.ok() ? *result : Diagnosis{};
}

inline std::optional<std::int64_t> findingValue(const DiagnosisFinding& f, std::string_view name) {
    for (const auto& v : f.shape)
        if (v.name == name) return v.value;
    return std::nullopt;
}

}  // namespace tilescope::test

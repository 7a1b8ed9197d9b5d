// Calibration: what `tilescope-cli calibrate` measured on one GPU + driver, as JSON (the CLI's
// --json output, the --calibration input and the GUI's QSettings value are the same document).
#pragma once

#include <string>
#include <string_view>

#include "core/model/result.h"
#include "core/series/roofline.h"

namespace tilescope {

struct Calibration {
    std::string gpuName;        // "NVIDIA H200"
    std::string driverVersion;  // "580.95.05"
    std::string measuredAt;     // ISO 8601 UTC
    Roofline roofline;          // source == Measured
};

std::string calibrationToJson(const Calibration&);
Result<Calibration> calibrationFromJson(std::string_view text);

}  // namespace tilescope

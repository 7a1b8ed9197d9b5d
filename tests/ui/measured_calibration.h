// measuredCalibration: a GPU > Calibrate result the way the real command records one (source
// Measured, one tensor-core peak for FP16 and BF16), for the fake worker and the UI tests.
#pragma once

#include <string>
#include <utility>

#include "core/series/calibration.h"

namespace tilescope {

inline Calibration measuredCalibration(std::string gpuName, std::string driverVersion, std::string measuredAt, double bandwidthGBps,
                                       double tensorTflops, std::string provenance) {
    Calibration c;
    c.gpuName = std::move(gpuName);
    c.driverVersion = std::move(driverVersion);
    c.measuredAt = std::move(measuredAt);
    c.roofline.bandwidthGBps = bandwidthGBps;
    c.roofline.fp16Tflops = tensorTflops;
    c.roofline.bf16Tflops = tensorTflops;
    c.roofline.source = RooflineSource::Measured;
    c.roofline.provenance = std::move(provenance);
    return c;
}

}  // namespace tilescope

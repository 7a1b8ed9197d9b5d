// Roofline: a device's ceilings (memory bandwidth, dense fp16/bf16 tensor peak), the figures a
// measured call achieved against them, and the model-mode time estimate for a device not at hand.
// Every ceiling says where it came from: measured on this GPU by `calibrate`, or the datasheet.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/device_spec.h"
#include "core/launch_plan.h"

namespace tilescope {

enum class RooflineSource { Measured, Datasheet };    // Measured = `calibrate` on this GPU+driver
std::string_view rooflineSourceName(RooflineSource);  // "measured", "datasheet"

// The element type whose tensor peak bounds a call's FLOPs.
enum class RooflineDtype { Fp16, Bf16 };

// A device's ceilings. Any figure may be unknown (nullopt) and is then shown as unknown.
struct Roofline {
    std::optional<double> bandwidthGBps;  // device-to-device copy (measured) or datasheet DRAM
    std::optional<double> fp16Tflops;     // dense fp16 tensor-core peak (cuBLAS measured / datasheet)
    std::optional<double> bf16Tflops;
    RooflineSource source = RooflineSource::Datasheet;
    std::string provenance;  // "calibrate 2026-12-01, driver 580.x" or the datasheet URL

    std::optional<double> peakTflops(RooflineDtype dtype) const {
        return dtype == RooflineDtype::Bf16 ? bf16Tflops : fp16Tflops;
    }
};

// Datasheet roofline from the DeviceSpec (devices.json's per-device peak figures and their source).
Roofline datasheetRoofline(const DeviceSpec& device);
// The same for a device that carries no peaks itself (a live GPU "local:0", or a device read back
// from a trace): the database entry with its id, else the one entry of the same compute capability
// and SM count whose name starts with the device's ("NVIDIA H200" -> "NVIDIA H200 141GB (SXM)").
// The device's own bandwidth wins when it has one; unknown figures stay unknown.
Roofline datasheetRoofline(const DeviceSpec& device, const DeviceDatabase& database);

// Achieved figures of one measured call.
struct AchievedFigures {
    double timeUs = 0;
    std::optional<double> gbps;           // plan.bytesMoved / time
    std::optional<double> tflops;         // plan.flops / time
    std::optional<double> pctOfRoofline;  // 100 * boundUs / timeUs (bound from the roofline)
    std::optional<double> boundUs;        // max(bytes / bandwidth, flops / peak)
    RooflineSource source = RooflineSource::Datasheet;
};

// The bundled families compute in fp16 (none has a dtype parameter), so fp16 is the default peak.
AchievedFigures achievedFigures(const LaunchPlan& plan, double timeUs, const Roofline& roofline,
                                RooflineDtype dtype = RooflineDtype::Fp16);

// The roofline bound alone: max(bytes / bandwidth, flops / peak) in microseconds, with only the
// known terms; nullopt when neither term is known (or the plan moves nothing and computes nothing).
std::optional<double> rooflineBoundUs(const LaunchPlan& plan, const Roofline& roofline,
                                      RooflineDtype dtype = RooflineDtype::Fp16);

// Model-mode estimate for a device you do not have: roofline bound x wave quantisation
// (ceil(waves)/waves when the plan knows its waves). nullopt when the plan fails or figures unknown.
struct RooflineEstimate {
    double estimateUs = 0;
    double boundUs = 0;
    double waveFactor = 1;
};
std::optional<RooflineEstimate> estimateTime(const LaunchPlan& plan, const Roofline& roofline,
                                             RooflineDtype dtype = RooflineDtype::Fp16);

}  // namespace tilescope

// Roofline: a device's ceilings (memory bandwidth, dense fp16/bf16 tensor peak), the figures a
// measured call achieved against them, and the model-mode time estimate for a device not at hand.
// Every ceiling says where it came from: measured on this GPU by `calibrate`, or the datasheet.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"

namespace tilescope {

enum class RooflineSource { Measured, Datasheet };    // Measured = `calibrate` on this GPU+driver
std::string_view rooflineSourceName(RooflineSource);  // "measured", "datasheet"

// The element type whose tensor peak bounds a call's FLOPs (a family names its own: KernelFamily::elementType).
using RooflineDtype = ElementType;

// A device's ceilings. Any figure may be unknown (nullopt) and is then shown as unknown.
struct Roofline {
    std::optional<double> bandwidthGBps;  // device-to-device copy (measured) or datasheet DRAM
    std::optional<double> fp16Tflops;     // dense fp16 tensor-core peak (cuBLAS measured / datasheet)
    std::optional<double> bf16Tflops;
    RooflineSource source = RooflineSource::Datasheet;
    std::string provenance;  // "calibrate 2026-12-01, driver 580.x" or the datasheet URL

    std::optional<double> peakTflops(RooflineDtype dtype) const { return dtype == RooflineDtype::Bf16 ? bf16Tflops : fp16Tflops; }
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
AchievedFigures achievedFigures(const LaunchPlan& plan, double timeUs, const Roofline& roofline, RooflineDtype dtype = RooflineDtype::Fp16);

// The roofline bound alone: max(bytes / bandwidth, flops / peak) in microseconds; nullopt when a
// term the plan needs is unknown (bytes without a bandwidth, FLOPs without the dtype's peak) or the
// plan moves nothing and computes nothing.
std::optional<double> rooflineBoundUs(const LaunchPlan& plan, const Roofline& roofline, RooflineDtype dtype = RooflineDtype::Fp16);

// Model-mode estimate for a device you do not have: roofline bound x wave quantisation
// (ceil(waves)/waves when the plan knows its waves). nullopt when the plan fails or figures unknown.
struct RooflineEstimate {
    double estimateUs = 0;
    double boundUs = 0;
    double waveFactor = 1;
};
std::optional<RooflineEstimate> estimateTime(const LaunchPlan& plan, const Roofline& roofline, RooflineDtype dtype = RooflineDtype::Fp16);

// The element type of the named family's tensor math, as the family says; fp16 (KernelFamily::elementType's
// default) for a family `kernels` does not know (a trace from another build). A run may say otherwise (`run --dtype`).
RooflineDtype rooflineDtypeOf(std::string_view family, const KernelRegistry& kernels);

// Text, every figure labelled with where it comes from and "unknown" where it is not known:
// "datasheet: 4,800 GB/s, fp16 989.5 TFLOP/s, bf16 989.5 TFLOP/s (https://...)".
std::string formatRoofline(const Roofline& roofline);
// "234.5 GB/s, 3.61 TFLOP/s, 3.9 % of the datasheet roofline (bound 1.46 us)".
std::string formatAchieved(const AchievedFigures& figures);
// "2.67 us (datasheet roofline bound 2.00 us x 1.33 wave quantisation)": the caller names it an estimate.
std::string formatEstimate(const RooflineEstimate& estimate, RooflineSource source);

// JSON forms (null where unknown) for `run --json`, `sweep --run`, `plan --estimate --json`, `trace summary --json`.
nlohmann::ordered_json rooflineToJson(const Roofline& roofline);
nlohmann::ordered_json achievedToJson(const AchievedFigures& figures);
nlohmann::ordered_json estimateToJson(const RooflineEstimate& estimate, RooflineSource source);

}  // namespace tilescope

#include "core/roofline.h"

#include <algorithm>
#include <cmath>

namespace tilescope {

namespace {
constexpr double kBytesPerGB = 1e9;      // GB/s as datasheets count them (decimal)
constexpr double kFlopsPerTflop = 1e12;  // TFLOP/s (decimal)
constexpr double kUsPerSecond = 1e6;
constexpr double kPercent = 100.0;

bool positive(const std::optional<double>& value) { return value && std::isfinite(*value) && *value > 0; }
}  // namespace

std::string_view rooflineSourceName(RooflineSource source) {
    return source == RooflineSource::Measured ? "measured" : "datasheet";
}

Roofline datasheetRoofline(const DeviceSpec& device) {
    Roofline roofline;
    roofline.source = RooflineSource::Datasheet;
    roofline.bandwidthGBps = device.memoryBandwidthGBps;
    roofline.fp16Tflops = device.fp16TensorTflops;
    roofline.bf16Tflops = device.bf16TensorTflops;
    roofline.provenance = device.peakSource.empty() ? device.source : device.peakSource;
    return roofline;
}

namespace {
const DeviceSpec* databaseEntryFor(const DeviceSpec& device, const DeviceDatabase& database) {
    if (const DeviceSpec* byId = database.find(device.id)) return byId;
    const DeviceSpec* match = nullptr;
    for (const DeviceSpec& entry : database.devices()) {
        const bool sameGpu = entry.computeCapability == device.computeCapability && entry.smCount == device.smCount &&
                             !device.name.empty() &&
                             (entry.name == device.name || entry.name.starts_with(device.name + " "));
        if (!sameGpu) continue;
        if (match) return nullptr;  // ambiguous: better unknown than another GPU's figures
        match = &entry;
    }
    return match;
}
}  // namespace

Roofline datasheetRoofline(const DeviceSpec& device, const DeviceDatabase& database) {
    if (device.fp16TensorTflops || device.bf16TensorTflops) return datasheetRoofline(device);
    const DeviceSpec* entry = databaseEntryFor(device, database);
    if (!entry) {
        Roofline roofline = datasheetRoofline(device);
        roofline.provenance = "no datasheet peaks for " + device.name;
        return roofline;
    }
    Roofline roofline = datasheetRoofline(*entry);
    if (device.memoryBandwidthGBps) roofline.bandwidthGBps = device.memoryBandwidthGBps;
    return roofline;
}

std::optional<double> rooflineBoundUs(const LaunchPlan& plan, const Roofline& roofline, RooflineDtype dtype) {
    std::optional<double> bound;
    if (plan.bytesMoved > 0 && positive(roofline.bandwidthGBps))
        bound = plan.bytesMoved / (*roofline.bandwidthGBps * kBytesPerGB) * kUsPerSecond;
    const std::optional<double> peak = roofline.peakTflops(dtype);
    if (plan.flops > 0 && positive(peak)) {
        const double computeUs = plan.flops / (*peak * kFlopsPerTflop) * kUsPerSecond;
        bound = std::max(bound.value_or(0.0), computeUs);
    }
    return bound;
}

AchievedFigures achievedFigures(const LaunchPlan& plan, double timeUs, const Roofline& roofline, RooflineDtype dtype) {
    AchievedFigures figures;
    figures.timeUs = timeUs;
    figures.source = roofline.source;
    if (!(timeUs > 0) || !std::isfinite(timeUs)) return figures;  // no time, no rate
    const double seconds = timeUs / kUsPerSecond;
    if (plan.bytesMoved > 0) figures.gbps = plan.bytesMoved / seconds / kBytesPerGB;
    if (plan.flops > 0) figures.tflops = plan.flops / seconds / kFlopsPerTflop;
    figures.boundUs = rooflineBoundUs(plan, roofline, dtype);
    if (figures.boundUs) figures.pctOfRoofline = kPercent * *figures.boundUs / timeUs;
    return figures;
}

// A kernel whose grid is 1.2 waves runs the last 0.2 wave on a mostly idle GPU: its time is that of
// 2 full waves, not 1.2. The roofline bound assumes every SM busy all the time, so the estimate
// scales it by ceil(waves) / waves (1 for whole waves, up to 2 just past one wave, and for a grid
// smaller than one wave, 1 / waves: a quarter-wave grid uses a quarter of the SMs' throughput).
std::optional<RooflineEstimate> estimateTime(const LaunchPlan& plan, const Roofline& roofline, RooflineDtype dtype) {
    if (!plan.ok()) return std::nullopt;
    const std::optional<double> bound = rooflineBoundUs(plan, roofline, dtype);
    if (!bound) return std::nullopt;
    RooflineEstimate estimate;
    estimate.boundUs = *bound;
    if (plan.occupancy && plan.occupancy->waves > 0 && std::isfinite(plan.occupancy->waves))
        estimate.waveFactor = std::ceil(plan.occupancy->waves) / plan.occupancy->waves;
    estimate.estimateUs = estimate.boundUs * estimate.waveFactor;
    return estimate;
}

}  // namespace tilescope

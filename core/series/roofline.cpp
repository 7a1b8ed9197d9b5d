#include "core/series/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/model/text_format.h"

namespace tilescope {

namespace {
constexpr double kBytesPerGB = 1e9;      // GB/s as datasheets count them (decimal)
constexpr double kFlopsPerTflop = 1e12;  // TFLOP/s (decimal)
constexpr double kUsPerSecond = 1e6;
constexpr double kPercent = 100.0;

bool positive(const std::optional<double>& value) { return value && std::isfinite(*value) && *value > 0; }
}  // namespace

std::string_view rooflineSourceName(RooflineSource source) { return source == RooflineSource::Measured ? "measured" : "datasheet"; }

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
                             !device.name.empty() && (entry.name == device.name || entry.name.starts_with(device.name + " "));
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

// Both terms or none: a bound from the memory term alone would understate a compute-bound call and
// show as a % of a roofline that is not there.
std::optional<double> rooflineBoundUs(const LaunchPlan& plan, const Roofline& roofline, RooflineDtype dtype) {
    const std::optional<double> peak = roofline.peakTflops(dtype);
    if (plan.bytesMoved > 0 && !positive(roofline.bandwidthGBps)) return std::nullopt;
    if (plan.flops > 0 && !positive(peak)) return std::nullopt;
    if (!(plan.bytesMoved > 0) && !(plan.flops > 0)) return std::nullopt;
    const double memoryUs = plan.bytesMoved > 0 ? plan.bytesMoved / (*roofline.bandwidthGBps * kBytesPerGB) * kUsPerSecond : 0.0;
    const double computeUs = plan.flops > 0 ? plan.flops / (*peak * kFlopsPerTflop) * kUsPerSecond : 0.0;
    return std::max(memoryUs, computeUs);
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

RooflineDtype rooflineDtypeOf(std::string_view family, const KernelRegistry& kernels) {
    const KernelFamily* known = kernels.find(family);
    return known ? known->elementType() : ElementType::Fp16;
}

namespace {
std::string number(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}
// 4800 -> "4,800", 4276.4 -> "4,276.4": thousands grouped, one decimal only when there is one.
std::string gbpsText(double value) {
    const double rounded = std::round(value * 10.0) / 10.0;
    const auto whole = static_cast<std::int64_t>(rounded);
    const int tenth = static_cast<int>(std::lround((rounded - static_cast<double>(whole)) * 10.0));
    return withThousands(whole) + (tenth != 0 ? "." + std::to_string(tenth) : "");
}
std::string orUnknown(const std::optional<double>& value, const std::string& text) { return value ? text : "unknown"; }
nlohmann::ordered_json optionalJson(const std::optional<double>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}
}  // namespace

std::string formatRoofline(const Roofline& r) {
    std::string text = std::string(rooflineSourceName(r.source)) + ": ";
    text += r.bandwidthGBps ? gbpsText(*r.bandwidthGBps) + " GB/s" : "bandwidth unknown";
    text += ", fp16 " + orUnknown(r.fp16Tflops, r.fp16Tflops ? number(*r.fp16Tflops, 1) + " TFLOP/s" : "");
    text += ", bf16 " + orUnknown(r.bf16Tflops, r.bf16Tflops ? number(*r.bf16Tflops, 1) + " TFLOP/s" : "");
    if (!r.provenance.empty()) text += " (" + r.provenance + ")";
    return text;
}

std::string formatAchieved(const AchievedFigures& f) {
    std::string text = (f.gbps ? number(*f.gbps, 1) + " GB/s" : "GB/s unknown") + ", " +
                       (f.tflops ? number(*f.tflops, 2) + " TFLOP/s" : "TFLOP/s unknown") + ", ";
    if (f.pctOfRoofline)
        text += number(*f.pctOfRoofline, 1) + " % of the " + std::string(rooflineSourceName(f.source)) + " roofline (bound " +
                number(*f.boundUs, 2) + " us)";
    else text += "% of the " + std::string(rooflineSourceName(f.source)) + " roofline unknown";
    return text;
}

std::string formatEstimate(const RooflineEstimate& e, RooflineSource source) {
    return number(e.estimateUs, 2) + " us (" + std::string(rooflineSourceName(source)) + " roofline bound " + number(e.boundUs, 2) +
           " us x " + number(e.waveFactor, 2) + " wave quantisation)";
}

nlohmann::ordered_json rooflineToJson(const Roofline& r) {
    return {{"source", rooflineSourceName(r.source)},
            {"bandwidth_gbps", optionalJson(r.bandwidthGBps)},
            {"fp16_tflops", optionalJson(r.fp16Tflops)},
            {"bf16_tflops", optionalJson(r.bf16Tflops)},
            {"provenance", r.provenance}};
}

nlohmann::ordered_json achievedToJson(const AchievedFigures& f) {
    return {{"time_us", f.timeUs},
            {"gbps", optionalJson(f.gbps)},
            {"tflops", optionalJson(f.tflops)},
            {"bound_us", optionalJson(f.boundUs)},
            {"pct_of_roofline", optionalJson(f.pctOfRoofline)},
            {"roofline_source", rooflineSourceName(f.source)}};
}

nlohmann::ordered_json estimateToJson(const RooflineEstimate& e, RooflineSource source) {
    return {{"kind", "estimate"},
            {"estimate_us", e.estimateUs},
            {"bound_us", e.boundUs},
            {"wave_factor", e.waveFactor},
            {"roofline_source", rooflineSourceName(source)}};
}

}  // namespace tilescope

#include "core/series/calibration.h"

#include <nlohmann/json.hpp>

#include "core/model/json_reader.h"

namespace tilescope {

namespace {
constexpr const char* kFormat = "tilescope-calibration";
constexpr int kVersion = 1;
constexpr double kMinFigure = 1e-6;  // a measured ceiling is positive
constexpr double kMaxFigure = 1e9;   // far above any GPU's GB/s or TFLOP/s

nlohmann::ordered_json optionalFigure(const std::optional<double>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}
}  // namespace

std::string calibrationToJson(const Calibration& calibration) {
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["gpu"] = calibration.gpuName;
    j["driver"] = calibration.driverVersion;
    j["measured_at"] = calibration.measuredAt;
    j["bandwidth_gbps"] = optionalFigure(calibration.roofline.bandwidthGBps);
    j["fp16_tflops"] = optionalFigure(calibration.roofline.fp16Tflops);
    j["bf16_tflops"] = optionalFigure(calibration.roofline.bf16Tflops);
    j["provenance"] = calibration.roofline.provenance;
    return j.dump(2) + "\n";
}

Result<Calibration> calibrationFromJson(std::string_view text) {
    const auto document = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) return makeError("calibration: not valid JSON");
    if (!document.is_object()) return makeError("calibration: expected a JSON object");
    const auto format = document.find("format");
    if (format == document.end() || !format->is_string() || format->get<std::string>() != kFormat)
        return makeError(std::string("not a calibration: expected \"format\": \"") + kFormat +
                         "\" (the file 'tilescope-cli calibrate --json' writes)");
    std::optional<std::string> error;
    JsonReader reader(document, "", &error);
    const std::int64_t version = reader.integer("version", 1, kVersion);
    (void)version;
    Calibration calibration;
    calibration.gpuName = reader.text("gpu");
    calibration.driverVersion = reader.text("driver");
    calibration.measuredAt = reader.text("measured_at");
    calibration.roofline.source = RooflineSource::Measured;
    calibration.roofline.bandwidthGBps = reader.optionalNumber("bandwidth_gbps", kMinFigure, kMaxFigure);
    calibration.roofline.fp16Tflops = reader.optionalNumber("fp16_tflops", kMinFigure, kMaxFigure);
    calibration.roofline.bf16Tflops = reader.optionalNumber("bf16_tflops", kMinFigure, kMaxFigure);
    calibration.roofline.provenance = reader.optionalText("provenance").value_or("");
    if (error) return makeError("calibration: " + *error);
    return calibration;
}

}  // namespace tilescope

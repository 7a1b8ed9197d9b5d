// What the front-ends share (tilescope-cli and the Python module): each command's inputs resolved as the
// CLI resolves them, and its JSON built once, so that `tilescope-cli X --json` and Python's X().to_dict()
// are one function's output. No printing here: the CLI prints text and JSON, Python returns values.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/model_check.h"
#include "core/model/kernel_family.h"
#include "core/model/result.h"
#include "core/model/sweep.h"
#include "core/series/backend_matrix.h"
#include "core/series/calibration.h"
#include "core/trace/kineto_import.h"
#include "core/trace/trace.h"

namespace tilescope::frontend {

// Bad input: the CLI prints "tilescope-cli: <message>" and exits 2; Python raises ValueError(message).
struct UsageError {
    std::string message;
};

template <typename T>
T orUsageError(Result<T> result) {
    if (!result) throw UsageError{result.error()};
    return std::move(result).value();
}

// The whole file, or standard input for "-"; a file that cannot be opened is a UsageError
// (diagnose, check-launch).
std::string readInput(const std::string& path);

// ---- devices, kernels, plan, sweep

// `devices --json`: {"default", "devices": [...]}, each GPU with its tensor peaks and their source.
nlohmann::ordered_json devicesJson();
// `devices ID --json`: every figure of one GPU (a database id or a device .json file).
nlohmann::ordered_json deviceJson(const std::string& id);
// `kernels [NAME] --json`: {"kernels": [...]}, one family or all.
nlohmann::ordered_json kernelsJson(const std::string& name);

// Options every model command shares.
struct KernelOptions {
    std::string kernel;
    std::string variant;
    std::string device;
    std::string shape;
    std::string cuda;  // --cuda 12|13; empty: the local runtime, else the toolkit's
};

struct Resolved {
    KernelChoice kernel;
    DeviceSpec device;
    Shape shape;
};

Resolved resolve(const KernelOptions& options);

// `plan --json` [--estimate].
nlohmann::ordered_json planJson(const LaunchPlan& plan, const Resolved& r, bool withEstimate);

// --x and --y of `sweep`, parsed and tied to their followers.
struct SweepAxes {
    SweepAxis x;
    std::optional<SweepAxis> y;
};
SweepAxes sweepAxes(const Resolved& r, const std::string& xText, const std::string& yText);

// ---- diagnose, check-model

// `diagnose`: the diagnosis of a log's text; `name` (the file, or "standard input") prefixes errors.
Diagnosis diagnoseInput(const std::string& text, const std::string& name, const std::string& modelPath);

// "1,8,64" -> {1, 8, 64}; `option` names the list in errors.
std::vector<std::int64_t> parseList(const std::string& text, const char* option);

// `check-model CONFIG` (the layer table): every layer of a checkpoint planned on `device` ("" = the database
// default) for each batch x seq. `configText` (a config's JSON) stands for the file when given; `batches`
// and `seqs` are the --batch and --seq lists; an empty `stack` is the checkpoint's (awqStackVariant).
ModelCheck modelCheck(const std::string& configPath, const std::optional<std::string>& configText, const std::string& device,
                      const std::string& batches, const std::string& seqs, const std::string& attentionVariant, const std::string& stack);
// check-model's --attention default: the first variant of the family that plans the attention call
// (empty when no family does).
std::string defaultAttentionVariant();

// `check-model CONFIG --backends`: the backend matrix of a checkpoint on `deviceList` (ids, comma-separated;
// "" = one GPU of each generation). `configText` (a config's JSON) stands for the file when given.
struct BackendCheck {
    ModelConfig model;
    BackendMatrix matrix;
};
BackendCheck backendCheck(const std::string& configPath, const std::optional<std::string>& configText, const std::string& deviceList,
                          const std::vector<std::int64_t>& batches, const std::vector<std::int64_t>& seqs, bool train);

// ---- traces

// A trace file (native or a profiler trace); `progress` may be empty.
Trace openTrace(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress);
// `trace summary --json` [--cliffs] of an open trace, held against `calibrations` (maybe none).
nlohmann::ordered_json traceSummaryJson(const Trace& trace, const std::vector<Calibration>& calibrations, bool cliffs);
// `import-kineto --json` of an import of `file`.
nlohmann::ordered_json kinetoImportJson(const std::string& file, const KinetoImport& k);
// `import-kineto`: the profiler trace imported; `device` is assumed where the trace has no deviceProperties.
KinetoImport importKineto(const std::string& file, const std::string& device, bool keepRecords,
                          const std::function<void(std::uint64_t, std::uint64_t)>& progress);

}  // namespace tilescope::frontend

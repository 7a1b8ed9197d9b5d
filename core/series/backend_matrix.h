// BackendMatrix: which attention backends and quantized GEMMs take a model, device by device
// (`check-model --backends`, the Backends page). Each row is a family variant whose
// KernelFamily::backendRole() names it a backend; each cell plans that variant at the model's
// shape for every batch x seq on one device and keeps the first failure: its verdict, the stack's
// own text (the rule that decides) and where it first fails. Views draw it; nothing here is drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/backend_model.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/model/result.h"

namespace tilescope {

// The GPUs a backend matrix shows when none is given (`check-model --backends`, the Backends page):
// one of each generation the device database holds.
inline constexpr std::string_view kDefaultBackendDevices = "t4,a10,rtx-4090,a100-80gb-sxm,h100-sxm,b200,rtx-5090";

struct BackendMatrixOptions {
    std::vector<std::int64_t> batches{1};
    std::vector<std::int64_t> seqs{1};
    bool train = false;  // add the backward rows; variants with a `train` parameter plan with it set
};

struct BackendCell {
    std::string deviceId;
    Verdict verdict = Verdict::Ok;
    std::string rule;                       // failing: the plan's message (the stack's text); passing: the plan's note (may be empty)
    std::string limit;                      // the limit the failing plan names ("head_dim 256 < 512"); empty when it runs
    std::optional<std::int64_t> failBatch;  // the first failing batch x seq
    std::optional<std::int64_t> failSeq;
    std::string layer;    // quantized GEMM rows: the first layer that fails
    std::string shape;    // that shape as "name=value,...", what the explorer opens on a double-click
    std::string command;  // `tilescope-cli plan ...` of the failing (or first) shape
    bool ok() const { return verdict == Verdict::Ok; }
};

struct BackendRow {
    std::string family;
    std::string variant;
    BackendRole role = BackendRole::None;
    std::string title;               // the family's title
    std::vector<BackendCell> cells;  // one per device, in the matrix's device order
};

struct BackendMatrix {
    std::string model;
    BackendMatrixOptions options;
    std::vector<std::string> devices;  // ids
    std::vector<BackendRow> rows;
    // Per device, in device order: the kinds of backend none of whose rows runs there ("attention",
    // "quantized GEMM", "attention backward"); empty when every kind has one.
    std::vector<std::vector<std::string>> missing;
    bool everyDeviceServed() const;
};

std::string_view backendRoleName(BackendRole role);  // "attention", "decode", "backward", "quantized GEMM"

// A family's attention shape as a model without linear layers (no GEMM rows): heads and head_dim, kv_heads
// and head_dim_v where the family has them, its mask and dropout where it has them (else the
// checkpoint's defaults, causal without dropout), and every value for that family's own rows.
// Nothing when the family has no heads or head_dim (a GEMM, a custom launch).
std::optional<BackendModel> backendModelFromShape(const KernelFamily& family, const Shape& shape);

// Plans every backend row for every device. Errors: no devices, no batch or seq, a model figure out
// of a family's parameter range.
Result<BackendMatrix> backendMatrix(const BackendModel& model, const std::vector<DeviceSpec>& devices, const BackendMatrixOptions& options,
                                    const KernelRegistry& kernels);

// {"model", "batches", "seqs", "train", "devices", "rows": [{"kernel", "variant", "role", "cells": [{"device", "verdict",
// "rule", "first_failure": {"batch", "seq", "layer"} | null, "command"}]}], "missing": {device: [...]}, "pass"}
nlohmann::ordered_json backendMatrixToJson(const BackendMatrix& matrix);

}  // namespace tilescope

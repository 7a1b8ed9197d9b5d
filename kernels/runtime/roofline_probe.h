// The local GPU's measured roofline for `tilescope-cli calibrate` (and GPU > Calibrate): device-to-
// device copy bandwidth and cuBLAS fp16 / bf16 dense GEMM throughput, measured the way the GPU
// check's probe does (tests/gpu/bandwidth.cu: 1 GiB copies; 8192^3 GEMMs on random data, fp32
// accumulate; one untimed call, then 10 timed between CUDA events).
#pragma once

#include <functional>
#include <string_view>

#include "core/series/calibration.h"
#include "core/model/result.h"

namespace tilescope {

// Called before each step ("copy bandwidth", "cuBLAS fp16 GEMM", ...), for progress.
using ProbeProgress = std::function<void(std::string_view step)>;

// Measures GPU `ordinal` (the caller has checked that a GPU is there). cuBLAS is loaded at run
// time from the machine's CUDA toolkit, so the CLI and its bundle carry none of it; when it cannot
// be loaded or a GEMM fails, the fp16 / bf16 figures stay unknown and the provenance says why.
// An error only when nothing at all could be measured.
Result<Calibration> measureRoofline(int ordinal, const ProbeProgress& progress);

}  // namespace tilescope

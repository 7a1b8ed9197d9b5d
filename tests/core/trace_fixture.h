// A trace with every kind of content (predicted and measured runs, a failed launch, a sweep,
// imported records), shared by the round-trip and export tests.
#pragma once

#include <limits>

#include "core/model/fix_finder.h"
#include "core/trace/trace.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::test {

inline LaunchPlan planFor(const char* family, const char* variant, const char* shape, const DeviceSpec& device) {
    auto kernel = resolveKernel(builtinKernels(), family, variant);
    auto parsed = parseShape(shape, kernel->family->parameters());
    return planWithFix(*kernel, *parsed, device, &DeviceDatabase::embedded());
}

inline KernelRecord sampleRecord(std::int64_t start, int device, std::int64_t stream) {
    KernelRecord r;
    r.name = "void gemm_kernel<128, 64>(float const*, float*, int)";
    r.startNs = start;
    r.endNs = start + 12'345;
    r.device = device;
    r.stream = stream;
    r.correlationId = 4242 + start % 1000;
    r.grid = {108, 2, 1};
    r.block = {128, 1, 1};
    r.registersPerThread = 96;
    r.sharedMemory = 67'584;
    r.kinetoOccupancyPct = 0.0;
    r.launchApi = "cudaLaunchKernel";
    r.launchStartNs = start - 2'001;
    return r;
}

inline Trace fixtureTrace() {
    const DeviceSpec& a100 = *DeviceDatabase::embedded().find("a100-80gb-sxm");
    const DeviceSpec& t4 = *DeviceDatabase::embedded().find("t4");
    Trace trace;
    trace.build = {"0.1.0", "test-revision", "13.0", "13.0.1", std::nullopt};
    trace.source = "fixture";
    trace.notes = {"a note with \"quotes\" and a | pipe"};
    trace.addDevice(a100);
    trace.addDevice(t4);
    DeviceSpec local = a100;
    local.id = "local:0";
    local.source = "live GPU (fixture)";
    trace.addDevice(local);

    const auto& gemm = builtinKernels().find("awq_gemm")->parameters();
    const auto& attention = builtinKernels().find("attention")->parameters();
    trace.runs.push_back(Run::predicted(planFor("awq_gemm", "", "M=1,N=4096,K=4096", a100), gemm));
    trace.runs.push_back(Run::predicted(planFor("attention", "", "head_dim=512", t4), attention));

    // Measured, launched: one CUPTI record, checked and timed.
    LaunchPlan ok = planFor("awq_gemm", "", "M=16,N=4096,K=4096", local);
    GpuOutcome good;
    good.deviceName = "NVIDIA A100-SXM4-80GB";
    KernelRecord cupti = sampleRecord(1'000'000, 0, 7);
    cupti.name = "awq_gemm_kernel";
    cupti.sharedMemory.reset();
    cupti.kinetoOccupancyPct.reset();
    cupti.staticSmem = 10'496;
    cupti.dynamicSmem = 0;
    cupti.localMemoryPerThread = 0;
    cupti.shmemLimitConfig = 0;
    cupti.externalId = 1;
    good.records.push_back(cupti);
    good.check = ReferenceCheck{1.5e-3, 1e-2, true};
    good.timing = Timing{20, 11.25, 12.5, 12.625};
    trace.runs.push_back(Run::measured(ok, gemm, good));

    // Measured, rejected by the runtime: no record, a non-finite check figure kept as such.
    LaunchPlan failing = planFor("awq_gemm", "legacy_grid_y", "M=32768,N=5376,K=4096", local);
    GpuOutcome bad;
    bad.deviceName = "NVIDIA A100-SXM4-80GB";
    bad.launch = {"cudaErrorInvalidConfiguration", "invalid configuration argument", 9};
    bad.check = ReferenceCheck{std::numeric_limits<double>::infinity(), 1e-2, false};
    trace.runs.push_back(Run::measured(failing, gemm, bad));

    auto kernel = resolveKernel(builtinKernels(), "attention", "");
    auto x = parseSweepAxis("head_dim=32:256:+32", attention);
    auto y = parseSweepAxis("batch=1:4:x2", attention);
    BoundaryMap map(*kernel, t4, Shape::defaults(attention), *x, *y);
    evaluateBoundaryMap(map);
    trace.sweeps.push_back(map);

    trace.records.push_back(sampleRecord(2'000'000'123, 0, 7));
    KernelRecord bare = sampleRecord(2'000'100'000, 1, 13);
    bare.registersPerThread.reset();
    bare.sharedMemory.reset();
    bare.kinetoOccupancyPct.reset();
    bare.launchApi.clear();
    bare.launchStartNs.reset();
    bare.grid = bare.block = Dim3{0, 0, 0};
    trace.records.push_back(bare);
    return trace;
}

}  // namespace tilescope::test

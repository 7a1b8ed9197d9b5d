// LaunchPlan: what one kernel call at one shape on one device does, or why it fails.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/occupancy.h"
#include "core/model/shape.h"
#include "core/model/verdict.h"

namespace tilescope {

struct Dim3 {
    std::int64_t x = 1, y = 1, z = 1;
    std::int64_t volume() const { return x * y * z; }
    friend bool operator==(const Dim3&, const Dim3&) = default;
};

// The device limit a failing plan hit: its DeviceSpec/check name, the limit and the value.
struct LimitHit {
    std::string_view name;  // "max_grid_dim_y", "smem_per_block_optin", "group_size" ...
    std::int64_t limit = 0;
    std::int64_t actual = 0;
};

// The CUDA error a runtime rejection raises, so GPU runs can be checked against the plan.
struct CudaErrorCode {
    std::string_view name;  // "cudaErrorInvalidConfiguration"
    int code = 0;
};

// One tile / bucket / stage configuration the planner considered.
struct TileCandidate {
    std::string_view name;  // "(64,64)", "m16n128k32", "cell 256"
    std::int64_t smemBytes = 0;
    bool fits = false;
};

// A further kernel the same call launches on the same stream after the main one (FA2's
// split-KV combine, the fp16 GEMM after an AWQ stack's dequantize). The planner fills its
// configuration; finishLaunch-style checks and the register table give it registers and occupancy
// like the main launch. A library launch (`library` set: cuBLAS behind torch.matmul) has no
// symbol of ours: the library picks its kernel, grid, block and shared memory at run time, so
// those stay unknown (default Dim3s, no registers) and `unknown` says what the plan cannot know.
struct ExtraLaunch {
    std::string_view role;          // "combine"
    std::string_view why;           // what it does for the call, for people ("merges the splits' ...")
    std::string_view kernelSymbol;  // key into the register table, like LaunchPlan::kernelSymbol
    Dim3 grid;
    Dim3 block;
    std::int64_t staticSmem = 0;
    std::int64_t dynamicSmem = 0;
    bool optsIntoLargeSmem = false;
    std::optional<int> registers;
    std::optional<Occupancy> occupancy;
    std::string_view library;  // "cuBLAS": the library chooses this launch; empty for our own kernels
    std::string_view unknown;  // for a library launch: what the plan cannot know about it
    double flops = 0.0;        // this launch's share of the call's LaunchPlan::flops (0: not split)
    double bytesMoved = 0.0;   // and of its LaunchPlan::bytesMoved
    bool chosenByLibrary() const { return !library.empty(); }
    std::int64_t threadsPerBlock() const { return block.volume(); }
    std::int64_t totalSmem() const { return staticSmem + dynamicSmem; }
};

// Brief skips every string a sweep cell does not need; Full is for one plan shown to a person.
enum class PlanDetail { Brief, Full };

struct LaunchPlan {
    std::string_view family;
    std::string_view variant;
    std::string deviceId;
    Shape shape;

    Verdict verdict = Verdict::Ok;
    std::string message;                     // exact upstream-style text; empty when ok
    std::optional<LimitHit> limit;           // what broke
    std::optional<CudaErrorCode> cudaError;  // for invalid_launch / out_of_resources / out_of_memory
    int failingParameter = -1;               // index into the family's parameters, the axis to move along
    // Which parameter drives each launch figure, so a runtime rejection names the axis to move.
    std::array<int, 3> gridParameter{-1, -1, -1};
    int smemParameter = -1;
    int memoryParameter = -1;
    std::string alternative;        // planner's advice: another kernel, variant or backend
    std::string note;               // a dispatch fact worth showing even when the plan is ok
    std::string fix;                // filled by attachFix(): nearest passing value, alternative, devices
    std::optional<Shape> fixShape;  // the nearest passing shape, when one was found

    std::string_view kernelSymbol;  // the device function launched (key into the register table)
    Dim3 grid;
    Dim3 block;
    std::int64_t staticSmem = 0;
    std::int64_t dynamicSmem = 0;
    bool optsIntoLargeSmem = false;  // cudaFuncSetAttribute(MaxDynamicSharedMemorySize) before launch
    std::optional<int> registers;    // per thread, from the compiler's report; nullopt = unknown

    std::string_view tile;                   // chosen tile or bucket name
    int tileIndex = -1;                      // index into candidates
    std::vector<TileCandidate> candidates;   // Full detail only
    std::optional<std::int64_t> bucketCell;  // a bucketed planner's M cell
    double paddingWaste = 0.0;               // fraction of computed rows/cols that are padding
    std::int64_t workTiles = 0;              // output tiles the blocks share out; 0 when not tracked
    bool operandsSwapped = false;            // the weights fill the MMA's M side (small M cells of a bucketed GEMM)
    int splitK = 1;                          // split count: split-K, or num_splits (KernelFamily::splitName)
    // Kernels launched after the main one, in order (empty for a single-kernel call).
    std::vector<ExtraLaunch> extraLaunches;

    double bytesMoved = 0.0;  // global memory traffic (roofline)
    double flops = 0.0;
    std::int64_t deviceMemoryBytes = 0;  // buffers the call needs

    std::optional<Occupancy> occupancy;  // nullopt when registers are unknown or the plan fails

    bool ok() const { return verdict == Verdict::Ok; }
    // False when the planner refused the shape before choosing a kernel (unsupported group size,
    // head_dim not a multiple of 8, no tile fits...): grid, block and shared memory are then not a
    // launch at all, only their defaults, and nothing should draw them as one.
    bool hasLaunch() const { return !kernelSymbol.empty(); }
    // True when a library (cuBLAS) picks one of the call's launches at run time: the dispatch the
    // Boundaries map draws as a line and the cliff finder names.
    bool callsLibrary() const {
        return std::any_of(extraLaunches.begin(), extraLaunches.end(), [](const ExtraLaunch& e) { return e.chosenByLibrary(); });
    }
    std::int64_t threadsPerBlock() const { return block.volume(); }
    std::int64_t totalSmem() const { return staticSmem + dynamicSmem; }
};

// One extra launch of a call as a plan of its own (same call, shape and verdict; its tile names
// its role), for code that shows one launch's figures at a time.
inline LaunchPlan extraLaunchPlan(const LaunchPlan& plan, const ExtraLaunch& extra) {
    LaunchPlan launch;
    launch.family = plan.family;
    launch.variant = plan.variant;
    launch.deviceId = plan.deviceId;
    launch.shape = plan.shape;
    launch.verdict = plan.verdict;
    launch.kernelSymbol = extra.kernelSymbol;
    launch.grid = extra.grid;
    launch.block = extra.block;
    launch.staticSmem = extra.staticSmem;
    launch.dynamicSmem = extra.dynamicSmem;
    launch.optsIntoLargeSmem = extra.optsIntoLargeSmem;
    launch.registers = extra.registers;
    launch.occupancy = extra.occupancy;
    launch.tile = extra.role;
    return launch;
}

}  // namespace tilescope

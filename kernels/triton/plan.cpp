#include "kernels/triton/plan.h"

#include <algorithm>
#include <array>
#include <bit>

#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "core/model/occupancy.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

// Triton's matmul tutorial (python/tutorials/03-matrix-multiplication.py): a 1-D grid of
// cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N) programs, num_warps x 32 threads each, an fp16 C.
constexpr std::int64_t kThreadsPerWarp = 32;
constexpr std::int64_t kOutputBytes = 2;  // the tutorial's c = torch.empty((M, N), dtype=torch.float16)
constexpr int kMaxStages = 8;
// tl.dot refuses operand tiles under 16 along any dimension on NVIDIA GPUs; the ranges start there.
constexpr std::int64_t kMinDotBlock = 16;

// Triton raises ValueError from tl.arange (python/triton/language/semantic.py) for any block that is
// not a power of two; the compile fails with it wrapped in a CompilationError.
constexpr std::string_view kArangePowerOfTwoText = "arange's range must be a power of 2";

const KernelResourceTable& noCompiledResources() {
    static const KernelResourceTable table;  // Triton picks the registers; this build has none for it
    return table;
}

constexpr std::array<std::string_view, kMaxStages> kStageNames{"num_stages=1", "num_stages=2", "num_stages=3", "num_stages=4",
                                                               "num_stages=5", "num_stages=6", "num_stages=7", "num_stages=8"};

bool validElementBytes(std::int64_t bytes) { return bytes == 1 || bytes == 2 || bytes == 4; }

// Planner's advice when the config does not fit: the largest num_stages that does at these blocks,
// then, keeping the stages, the largest BLOCK_K (else the larger of BLOCK_M / BLOCK_N halved) that does.
std::string smallerConfigAdvice(const Shape& shape, std::int64_t limit) {
    const std::int64_t bm = shape[TritonFamily::BlockM], bn = shape[TritonFamily::BlockN], bk = shape[TritonFamily::BlockK];
    const std::int64_t stages = shape[TritonFamily::NumStages], bytes = shape[TritonFamily::DtypeBytes];
    const std::int64_t perStage = TritonFamily::pipelinedSmemBytes(bm, bn, bk, 1, bytes);
    std::string advice;
    const std::int64_t fittingStages = perStage > 0 ? std::min(stages - 1, limit / perStage) : 0;
    if (fittingStages >= 1)
        advice = "num_stages=" + str(fittingStages) + " is the largest that fits (" +
                 withThousands(TritonFamily::pipelinedSmemBytes(bm, bn, bk, fittingStages, bytes)) + " B of " + withThousands(limit) +
                 " B)";
    else advice = "no num_stages fits with these blocks";
    for (std::int64_t k = bk / 2; k >= kMinDotBlock; k /= 2) {
        const std::int64_t smem = TritonFamily::pipelinedSmemBytes(bm, bn, k, stages, bytes);
        if (smem <= limit)
            return advice + "; keeping num_stages=" + str(stages) + ": BLOCK_K=" + str(k) + " (" + withThousands(smem) + " B)";
    }
    for (std::int64_t m = bm, n = bn; m >= kMinDotBlock && n >= kMinDotBlock;) {
        (m >= n ? m : n) /= 2;
        const std::int64_t smem = TritonFamily::pipelinedSmemBytes(m, n, kMinDotBlock, stages, bytes);
        if (m >= kMinDotBlock && n >= kMinDotBlock && smem <= limit)
            return advice + "; keeping num_stages=" + str(stages) + ": BLOCK_M=" + str(m) + ", BLOCK_N=" + str(n) +
                   ", BLOCK_K=" + str(kMinDotBlock) + " (" + withThousands(smem) + " B)";
    }
    return advice;
}

// Registers are Triton's choice (unknown here), so occupancy is not claimed; what shared memory and
// warps alone allow is still worth saying, as an upper bound.
std::string occupancyBound(const LaunchPlan& plan, const DeviceSpec& device) {
    Occupancy bound;
    const OccupancyInput input{
        static_cast<int>(plan.threadsPerBlock()), 0, plan.staticSmem, plan.dynamicSmem, plan.optsIntoLargeSmem, plan.grid.volume()};
    if (!computeOccupancy(device, input, bound)) return {};
    return "registers are Triton's choice (unknown here): shared memory and warps alone allow " + str(bound.activeBlocksPerSm) + " block" +
           (bound.activeBlocksPerSm == 1 ? "" : "s") + " (" + str(bound.activeWarpsPerSm) + " of " + str(bound.maxWarpsPerSm) +
           " warps) per SM, registers can only lower it";
}

}  // namespace

std::int64_t TritonFamily::pipelinedSmemBytes(std::int64_t blockM, std::int64_t blockN, std::int64_t blockK, std::int64_t numStages,
                                              std::int64_t elementBytes) {
    // Triton 2.x's software pipeliner (lib/Dialect/TritonGPU/Transforms/Pipeline.cpp,
    // LoopPipeliner::createBufferTypes, the pass of Triton 2.1) gives each dot operand loaded in the
    // loop a shared buffer of shape [numStages, rows, cols]: A's BLOCK_M x BLOCK_K and B's
    // BLOCK_K x BLOCK_N tiles. Checked against what Triton printed in triton-lang/triton PR #1561
    // (128 x 256 x 64, 4 stages, fp16 on an A100: "Required: 196608"). Triton 3.x's
    // Pipeliner/MatmulLoopPipeline.cpp allocates num_stages - 1 buffers instead (one more for
    // Hopper's wgmma): the same config needs less there.
    return numStages * (blockM * blockK + blockK * blockN) * elementBytes;
}

std::string tritonOutOfResourcesText(std::string_view resource, std::int64_t required, std::int64_t limit) {
    return "out of resource: " + std::string(resource) + ", Required: " + std::to_string(required) +
           ", Hardware limit: " + std::to_string(limit) + ". Reducing block sizes or `num_stages` may help.";
}

const std::vector<VariantInfo>& TritonFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"matmul",
         "C[M, N] = A[M, K] @ B[K, N] by the matmul tutorial's pipelined kernel: num_stages shared-memory buffers of "
         "the A and B tiles (Triton 2.x's pipeliner), num_warps x 32 threads, Triton's own OutOfResources checks",
         "triton python/tutorials/03-matrix-multiplication.py; lib/Dialect/TritonGPU/Transforms/Pipeline.cpp (Triton 2.1); "
         "python/triton/compiler/compiler.py (_init_handles)",
         {"num_stages", 1, kMaxStages, kMaxStages},
         // 16, 32, 64, 128, 256: the powers of two tl.arange takes (in-between values only show its refusal).
         {"BLOCK_K", kMinDotBlock, 256, 5}},
    };
    return list;
}

const ParameterList& TritonFamily::parameters() const {
    static const ParameterList list{
        {"M", "rows of A and C", 1, 1 << 24, 4096, AxisScale::Log2, false},
        {"N", "columns of B and C", 1, 1 << 24, 4096, AxisScale::Log2, false},
        {"K", "the reduction dimension", 1, 1 << 24, 4096, AxisScale::Log2, false},
        {"BLOCK_M", "BLOCK_SIZE_M: rows of the C tile one program computes (a power of two)", kMinDotBlock, 1024, 128, AxisScale::Log2,
         false},
        {"BLOCK_N", "BLOCK_SIZE_N: columns of the C tile (a power of two)", kMinDotBlock, 1024, 256, AxisScale::Log2, false},
        {"BLOCK_K", "BLOCK_SIZE_K: the K step of one loop iteration (a power of two)", kMinDotBlock, 1024, 64, AxisScale::Log2, false},
        {"num_stages", "software-pipeline stages: shared-memory buffers of the A and B tiles", 1, kMaxStages, 3, AxisScale::Linear, false},
        {"num_warps", "warps per program (32 threads each)", 1, 64, 8, AxisScale::Log2, false},
        {"dtype_bytes", "bytes per A / B element: 1 (fp8, int8), 2 (fp16, bf16), 4 (fp32, tf32)", 1, 4, 2, AxisScale::Log2, false},
    };
    return list;
}

std::vector<std::string_view> TritonFamily::kernelSymbols() const { return {kTritonKernelSymbol}; }

LaunchPlan TritonFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    const bool full = detail == PlanDetail::Full;

    for (const int block : {BlockM, BlockN, BlockK}) {
        const std::int64_t value = shape[block];
        if (value > 0 && std::has_single_bit(static_cast<std::uint64_t>(value))) continue;
        const std::int64_t below = value > 0 ? static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(value))) : 1;
        failPlan(plan, Verdict::UnsupportedShape, {"power_of_2", below, value}, block, detail, kArangePowerOfTwoText);
        return plan;
    }
    if (!validElementBytes(shape[DtypeBytes])) {
        failPlan(
            plan, Verdict::UnsupportedShape, {"dtype_bytes", 2, shape[DtypeBytes]}, DtypeBytes, detail,
            full ? "dtype_bytes=" + str(shape[DtypeBytes]) + ": Triton's dot operands are 1 (fp8, int8), 2 (fp16, bf16) or 4 (fp32) bytes"
                 : std::string());
        return plan;
    }

    const std::int64_t stages = shape[NumStages];
    const std::int64_t smem = pipelinedSmemBytes(shape[BlockM], shape[BlockN], shape[BlockK], stages, shape[DtypeBytes]);
    if (full) {
        for (std::int64_t s = 1; s <= kMaxStages; ++s) {
            const std::int64_t bytes = pipelinedSmemBytes(shape[BlockM], shape[BlockN], shape[BlockK], s, shape[DtypeBytes]);
            plan.candidates.push_back({kStageNames[static_cast<std::size_t>(s - 1)], bytes, bytes <= device.smemPerBlockOptin});
        }
        plan.note = str(stages) + " stage" + (stages == 1 ? "" : "s") + " x (" + str(shape[BlockM]) + " x " + str(shape[BlockK]) + " + " +
                    str(shape[BlockK]) + " x " + str(shape[BlockN]) + ") x " + str(shape[DtypeBytes]) + " B = " + withThousands(smem) +
                    " B of shared memory (Triton 2.x pipeliner; Triton 3.x allocates num_stages - 1 buffers)";
    }
    if (stages >= 1 && stages <= kMaxStages) {
        plan.tileIndex = static_cast<int>(stages - 1);
        plan.tile = kStageNames[static_cast<std::size_t>(stages - 1)];
    }
    plan.smemParameter = NumStages;

    // The launch Triton would make: set before its checks, so a refused config still shows what it asked for.
    const std::int64_t threads = shape[NumWarps] * kThreadsPerWarp;
    plan.kernelSymbol = kTritonKernelSymbol;
    plan.grid = {ceilDiv(shape[M], shape[BlockM]) * ceilDiv(shape[N], shape[BlockN]), 1, 1};
    plan.gridParameter = {M, -1, -1};
    plan.block = {threads, 1, 1};
    plan.workTiles = plan.grid.x;
    plan.dynamicSmem = smem;
    // Triton's launcher raises the function's dynamic shared-memory attribute above the 48 KB default.
    plan.optsIntoLargeSmem = smem > device.smemPerBlock;
    const double m = static_cast<double>(shape[M]), n = static_cast<double>(shape[N]), k = static_cast<double>(shape[K]);
    const double elementBytes = static_cast<double>(shape[DtypeBytes]);
    plan.bytesMoved = (m * k + k * n) * elementBytes + m * n * static_cast<double>(kOutputBytes);
    plan.flops = 2.0 * m * n * k;
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
    plan.memoryParameter = M;

    // compiler.py _init_handles: Triton compares the kernel's shared memory with the device's
    // max_shared_mem (the opt-in limit, cudaDevAttrMaxSharedMemoryPerBlockOptin) before loading it,
    // and raises instead of launching: the launch is refused at the opt-in limit, with no CUDA error.
    if (smem > device.smemPerBlockOptin) {
        failPlan(plan, Verdict::InvalidLaunch, {"smem_per_block_optin", device.smemPerBlockOptin, smem}, NumStages, detail,
                 full ? tritonOutOfResourcesText("shared memory", smem, device.smemPerBlockOptin) : std::string());
        if (full) plan.alternative = smallerConfigAdvice(shape, device.smemPerBlockOptin);
        return plan;
    }
    // Then, once loaded, num_warps x 32 against the function's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    // at most the device's threads per block, and fewer when registers limit it (unknown here).
    if (threads > device.maxThreadsPerBlock) {
        failPlan(plan, Verdict::InvalidLaunch, {"max_threads_per_block", device.maxThreadsPerBlock, threads}, NumWarps, detail,
                 full ? tritonOutOfResourcesText("threads", threads, device.maxThreadsPerBlock) : std::string());
        if (full) plan.alternative = "num_warps=" + str(device.maxThreadsPerBlock / kThreadsPerWarp) + " at most on this GPU";
        return plan;
    }
    finishLaunch(plan, device, noCompiledResources(), detail);
    if (full && plan.ok()) {
        const std::string bound = occupancyBound(plan, device);
        if (!bound.empty()) plan.note += "; " + bound;
    }
    return plan;
}

}  // namespace tilescope

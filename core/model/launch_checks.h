// The CUDA runtime's launch rules, applied to a plan whose shape checks have passed.
#pragma once

#include "core/model/launch_plan.h"
#include "core/model/result.h"

namespace tilescope {

struct DeviceSpec;
class KernelResourceTable;

// Exact texts the CUDA runtime prints (cudaGetErrorString), with the error each raises.
inline constexpr std::string_view kInvalidConfigurationText = "CUDA error: invalid configuration argument";
inline constexpr std::string_view kInvalidValueText = "CUDA error: invalid argument";
inline constexpr std::string_view kOutOfResourcesText = "CUDA error: too many resources requested for launch";
inline constexpr std::string_view kOutOfMemoryText = "CUDA error: out of memory";
inline constexpr CudaErrorCode kCudaErrorInvalidConfiguration{"cudaErrorInvalidConfiguration", 9};
inline constexpr CudaErrorCode kCudaErrorInvalidValue{"cudaErrorInvalidValue", 1};
inline constexpr CudaErrorCode kCudaErrorLaunchOutOfResources{"cudaErrorLaunchOutOfResources", 701};
inline constexpr CudaErrorCode kCudaErrorMemoryAllocation{"cudaErrorMemoryAllocation", 2};
inline constexpr std::string_view kNoKernelImageText = "CUDA error: no kernel image is available for execution on the device";
inline constexpr CudaErrorCode kCudaErrorNoKernelImageForDevice{"cudaErrorNoKernelImageForDevice", 209};
// The oldest architecture CUDA 13's nvcc compiles (it dropped Maxwell, Pascal and Volta): a CUDA 13
// build holds no code for an older GPU.
inline constexpr int kCuda13OldestSmVersion = 75;

// A grid or block over the device's limits is refused by every CUDA runtime, under a name that
// depends on its major version. Sources:
// - CUDA 12.x and older runtimes: cudaErrorInvalidConfiguration, "invalid configuration argument"
//   (PyTorch on CUDA 12 in the seeds' logs; ml-explore/mlx issue #2267, 2025: grid.y of 65,536).
// - CUDA 13.0 runtime on driver 580: cudaErrorInvalidValue, "invalid argument", through <<<>>>,
//   cudaLaunchKernel, cudaLaunchKernelEx and cudaLaunchKernelExC alike (measured on an H200 with
//   grid.y = 65,536 and a 2,048-thread block: tilescope issue 12, KERNELS.md "Corrections").
// Driver-API stacks (Triton, pycuda, numba) print CUDA_ERROR_INVALID_VALUE / "invalid argument"
// whatever the runtime: diagnosis_signatures.cpp recognises those.
inline constexpr int kFirstCudaRuntimeWithInvalidValueLaunch = 13;
struct LaunchRejection {
    CudaErrorCode error;
    std::string_view message;
};
LaunchRejection launchConfigurationRejection(int cudaRuntime);
// The runtimes a user may choose (--cuda, the Shape panel): the two whose texts differ.
inline constexpr int kCudaRuntimeChoices[] = {12, 13};
// "12" or "13" -> the major version; the error lists the choices.
Result<int> parseCudaRuntime(std::string_view text);

// True when the plan failed on a grid or block limit: the error whose name depends on the runtime.
bool errorDependsOnCudaRuntime(const LaunchPlan& plan);
// "cudaErrorInvalidValue (1)"; for a runtime-dependent error also the runtime and the other
// runtime's name: "cudaErrorInvalidValue (1) on the CUDA 13 runtime; CUDA 12: cudaErrorInvalidConfiguration (9)".
std::string describeCudaError(const LaunchPlan& plan, int cudaRuntime);

// Records a failure on the plan; the message is only formatted for PlanDetail::Full.
void failPlan(LaunchPlan& plan, Verdict verdict, LimitHit limit, int failingParameter, PlanDetail detail, std::string_view message);

// Looks up registers, then checks that the build holds code the device can run (a kernel compiled
// for sm_75 and newer has none for a P100 or V100: cudaErrorNoKernelImageForDevice), block, grid,
// shared memory, registers and device memory in the runtime's order, and computes occupancy for a
// plan that launches.
void finishLaunch(LaunchPlan& plan, const DeviceSpec& device, const KernelResourceTable& resources, PlanDetail detail);

}  // namespace tilescope

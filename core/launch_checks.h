// The CUDA runtime's launch rules, applied to a plan whose shape checks have passed.
#pragma once

#include "core/launch_plan.h"

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

// Records a failure on the plan; the message is only formatted for PlanDetail::Full.
void failPlan(LaunchPlan& plan, Verdict verdict, LimitHit limit, int failingParameter, PlanDetail detail,
              std::string_view message);

// Looks up registers, then checks block, grid, shared memory, registers and device memory in the
// runtime's order, and computes occupancy for a plan that launches.
void finishLaunch(LaunchPlan& plan, const DeviceSpec& device, const KernelResourceTable& resources, PlanDetail detail);

}  // namespace tilescope

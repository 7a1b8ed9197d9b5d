// TILESCOPE_HD marks pure helpers compiled by both g++ (CPU tests, packers) and nvcc (kernels).
#pragma once

#if defined(__CUDACC__)
#define TILESCOPE_HD __host__ __device__ __forceinline__
#else
#define TILESCOPE_HD inline
#endif

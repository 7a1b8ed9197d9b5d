// Warp-level tensor-core MMA (PTX mma.sync m16n8k16, fp32 accumulate) and fragment loads from
// shared memory. Fragment layout (PTX ISA, "Matrix fragments for mma.m16n8k16"): with
// g = lane / 4 and t = lane % 4, A regs hold (row g | g+8, cols 2t..2t+1 | +8), B regs hold
// (k 2t..2t+1 | +8, col g), C holds (row g | g+8, cols 2t, 2t+1).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <cstdint>

namespace tilescope::device {

struct Lane {
    int g;  // groupID: row (A, C) or column (B) inside the tile
    int t;  // thread in group: pair of k (A, B) or columns (C)
};
__device__ __forceinline__ Lane laneCoordinates() {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    return {lane / 4, lane % 4};
}

template <typename T>
__device__ __forceinline__ std::uint32_t packPair(float lo, float hi);
template <>
__device__ __forceinline__ std::uint32_t packPair<__half>(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&h);
}
template <>
__device__ __forceinline__ std::uint32_t packPair<__nv_bfloat16>(float lo, float hi) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<std::uint32_t*>(&h);
}
template <typename T>
__device__ __forceinline__ std::uint32_t packElements(T lo, T hi) {
    const std::uint16_t a = *reinterpret_cast<const std::uint16_t*>(&lo);
    const std::uint16_t b = *reinterpret_cast<const std::uint16_t*>(&hi);
    return static_cast<std::uint32_t>(a) | (static_cast<std::uint32_t>(b) << 16);
}

__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) {
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

// D = A * B + D for fp16 inputs. sm_75 has no m16n8k16: two m16n8k8 do the same work.
__device__ __forceinline__ void mmaF16(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(__CUDA_ARCH__)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
}

// bf16 tensor-core MMA exists from sm_80; callers guard with __CUDA_ARCH__ >= 800.
__device__ __forceinline__ void mmaBf16(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c;
    (void)a;
    (void)b;
    __trap();
#endif
}

template <typename T>
__device__ __forceinline__ void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]);
template <>
__device__ __forceinline__ void mma<__half>(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    mmaF16(c, a, b);
}
template <>
__device__ __forceinline__ void mma<__nv_bfloat16>(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    mmaBf16(c, a, b);
}

// A fragment of a row-major [rows][ld] tile at (row0, k0).
template <typename T>
__device__ __forceinline__ void loadA(std::uint32_t (&a)[4], const T* tile, int ld, int row0, int k0, Lane l) {
    const T* base = tile + (row0 + l.g) * ld + k0 + 2 * l.t;
    a[0] = *reinterpret_cast<const std::uint32_t*>(base);
    a[1] = *reinterpret_cast<const std::uint32_t*>(base + 8 * ld);
    a[2] = *reinterpret_cast<const std::uint32_t*>(base + 8);
    a[3] = *reinterpret_cast<const std::uint32_t*>(base + 8 * ld + 8);
}

// B fragment when B is stored n-major ([n][ld], i.e. B^T row-major, as K rows or W[N, K]).
template <typename T>
__device__ __forceinline__ void loadBnMajor(std::uint32_t (&b)[2], const T* tile, int ld, int n0, int k0, Lane l) {
    const T* base = tile + (n0 + l.g) * ld + k0 + 2 * l.t;
    b[0] = *reinterpret_cast<const std::uint32_t*>(base);
    b[1] = *reinterpret_cast<const std::uint32_t*>(base + 8);
}

// B fragment when B is stored k-major ([k][ld] row-major, as V or a dequantised weight tile).
template <typename T>
__device__ __forceinline__ void loadBkMajor(std::uint32_t (&b)[2], const T* tile, int ld, int n0, int k0, Lane l) {
    const T* base = tile + (k0 + 2 * l.t) * ld + n0 + l.g;
    b[0] = packElements(base[0], base[ld]);
    b[1] = packElements(base[8 * ld], base[9 * ld]);
}

// Four 8x8 b16 matrices from shared memory (ldmatrix, sm_75+): lanes 8i..8i+7 give the row addresses
// of matrix i; lane (g, t) receives row g, elements 2t and 2t+1 of each matrix in r[i].
__device__ __forceinline__ void ldmatrixX4(std::uint32_t (&r)[4], const void* rowAddress) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(rowAddress));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
#else
    (void)rowAddress;
    r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

// fp16x2 arithmetic on raw 32-bit registers (a - b, a * b; round to nearest).
__device__ __forceinline__ std::uint32_t hsub2Bits(std::uint32_t a, std::uint32_t b) {
    std::uint32_t d;
    asm("sub.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ std::uint32_t hmul2Bits(std::uint32_t a, std::uint32_t b) {
    std::uint32_t d;
    asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ std::uint32_t hfma2Bits(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    std::uint32_t d;
    asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// 16-byte global -> shared copy through cp.async where the arch has it (cuda_pipeline.h falls
// back to a plain copy below sm_80).
__device__ __forceinline__ void copy16Async(void* shared, const void* global) { __pipeline_memcpy_async(shared, global, 16); }

// Shared-memory address of a generic pointer (the operand ldmatrix and cp.async take).
__device__ __forceinline__ std::uint32_t sharedAddress(const void* pointer) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ldmatrix x4 at a shared-state-space address (sm_75+), for callers that precompute addresses:
// lanes 8i..8i+7 give matrix i's row addresses; r[i] holds its (row lane / 4, elements 2 * (lane % 4)
// and + 1): an mma.m16n8k16 A fragment (rows 0-7 | 8-15 at k 0-7, then k 8-15) or two B fragments.
__device__ __forceinline__ void ldmatrixX4Shared(std::uint32_t (&r)[4], std::uint32_t address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
#else
    (void)r;
    (void)address;
    __trap();
#endif
}
// The .trans twin: each 8x8 matrix transposed (B fragments from a k-major tile, e.g. an attention kernel's V).
__device__ __forceinline__ void ldmatrixX4TransShared(std::uint32_t (&r)[4], std::uint32_t address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
#else
    (void)r;
    (void)address;
    __trap();
#endif
}

// 16-byte cp.async through L2 only (.cg), sm_80+: with `valid` false nothing is read and the 16
// shared bytes are zero-filled (src-size 0), so padding rows need no second path.
__device__ __forceinline__ void copy16AsyncOrZero(std::uint32_t sharedAddr, const void* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddr), "l"(global), "r"(valid ? 16 : 0) : "memory");
#else
    (void)sharedAddr;
    (void)global;
    (void)valid;
    __trap();
#endif
}
__device__ __forceinline__ void cpAsyncCommit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cpAsyncWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

}  // namespace tilescope::device

// What every family's LaunchInputs (kernels/<family>/inputs.cpp) builds on: a device buffer that
// reports its CUDA errors as Results, and the row sampling and fp16/bf16 conversions of the check.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/result.h"
#include "kernels/common/float16.h"

namespace tilescope {

// Multiply-adds the float64 reference may spend on one check (a few seconds on one core).
inline constexpr double kReferenceBudget = 2.0e8;

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (m_ptr) cudaFree(m_ptr);
    }
    Result<void> allocate(std::size_t bytes, const char* what) {
        if (cudaError_t e = cudaMalloc(&m_ptr, std::max<std::size_t>(bytes, 1)); e != cudaSuccess) {
            m_ptr = nullptr;
            cudaGetLastError();
            return makeError(std::string("cudaMalloc(") + std::to_string(bytes) + " B) for " + what + ": " + cudaGetErrorName(e) + ": " +
                             cudaGetErrorString(e));
        }
        m_bytes = bytes;
        return {};
    }
    template <typename T>
    Result<void> upload(const std::vector<T>& host, const char* what) {
        if (auto r = allocate(host.size() * sizeof(T), what); !r) return r;
        if (cudaError_t e = cudaMemcpy(m_ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice); e != cudaSuccess)
            return makeError(std::string("cudaMemcpy to ") + what + ": " + cudaGetErrorString(e));
        return {};
    }
    template <typename T>
    Result<std::vector<T>> download(std::size_t offsetElements, std::size_t count) const {
        std::vector<T> host(count);
        if (cudaError_t e =
                cudaMemcpy(host.data(), static_cast<const T*>(m_ptr) + offsetElements, count * sizeof(T), cudaMemcpyDeviceToHost);
            e != cudaSuccess)
            return makeError(std::string("cudaMemcpy of the output: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
        return host;
    }
    void* get() const { return m_ptr; }

private:
    void* m_ptr = nullptr;
    std::size_t m_bytes = 0;
};

inline std::int64_t rowsWithinBudget(std::int64_t rows, double costPerRow) {
    const auto affordable = static_cast<std::int64_t>(kReferenceBudget / std::max(costPerRow, 1.0));
    return std::clamp<std::int64_t>(affordable, 1, std::max<std::int64_t>(rows, 1));
}

inline std::string rowsText(std::int64_t checked, std::int64_t rows) {
    return checked >= rows ? "all " + std::to_string(rows) + " rows"
                           : "rows 0.." + std::to_string(checked - 1) + " of " + std::to_string(rows);
}

inline std::vector<float> firstRows(const std::vector<float>& values, std::int64_t rows, std::int64_t width) {
    return {values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rows * width)};
}

inline std::vector<float> halfToFloat(const std::vector<std::uint16_t>& bits, bool bf16) {
    std::vector<float> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = bf16 ? bf16BitsToFloat(bits[i]) : halfBitsToFloat(bits[i]);
    return out;
}

inline std::vector<std::uint16_t> toBits(const std::vector<float>& values, bool bf16) {
    std::vector<std::uint16_t> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = bf16 ? floatToBf16Bits(values[i]) : floatToHalfBits(values[i]);
    return out;
}

}  // namespace tilescope

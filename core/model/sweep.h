// Sweeps: one or two parameter axes over a family, variant and device, evaluated into a
// BoundaryMap of verdicts and key metrics. Messages are built lazily, per cell on demand.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"

namespace tilescope {

struct SweepAxis {
    int parameter = -1;
    std::vector<std::int64_t> values;
    AxisScale scale = AxisScale::Linear;  // Log2 when the values double (for plotting)
    // Parameters set to the axis value at every step as well (tieFollowers fills it).
    std::vector<int> followers;
};

// "M=1:4096:x2", "head_dim=32:512:+16", "M=1,2,3,640" (a range's end is included when hit).
Result<SweepAxis> parseSweepAxis(std::string_view text, const ParameterList& parameters);
// An axis over a parameter's whole range: doubling for Log2 parameters, else `count` even steps on
// multiples of its alignment.
SweepAxis defaultSweepAxis(const ParameterSpec& parameter, int parameterIndex, int count);

// Fills `axis.followers`: the parameters that move with the swept one because `base` holds them
// equal to it (head_dim_v with head_dim). `other` (a second axis) is never made a follower.
// The one place this rule lives: CLI sweep, the Boundaries and Tiles pages all use it.
void tieFollowers(SweepAxis& axis, const Shape& base, const ParameterList& parameters, const SweepAxis* other = nullptr);
// Sets the axis parameter and its followers to value `index` of the axis.
void setAxisValue(Shape& shape, const SweepAxis& axis, std::size_t index);
// "head_dim", or "head_dim (head_dim_v with it)" when the axis has followers.
std::string axisLabel(const SweepAxis& axis, const ParameterList& parameters);
// "head_dim_v moves with head_dim (equal in the base shape)"; empty without followers.
std::string followerNote(const SweepAxis& axis, const ParameterList& parameters);

// What a map keeps per cell: enough to colour and rank it without any string.
struct BoundaryCell {
    Verdict verdict = Verdict::Ok;
    signed char tileIndex = -1;
    float occupancyPct = -1.0f;  // -1: unknown (registers unknown or the plan fails)
    std::int64_t totalSmem = 0;
    std::int64_t gridBlocks = 0;
    float paddingWaste = 0.0f;
    // LaunchPlan::splitK of the cell's plan (split-K, or num_splits of a split-KV kernel); 1 = one pass.
    int splits = 1;
    // The call hands work to a library after its own kernel (a stack's dispatch: dequantize + cuBLAS
    // GEMM, ExtraLaunch::chosenByLibrary). Saved as "calls_library" only where true.
    bool callsLibrary = false;
};

class BoundaryMap {
public:
    BoundaryMap() = default;
    // Ties each axis's followers to it from `base` (tieFollowers).
    BoundaryMap(KernelChoice kernel, DeviceSpec device, Shape base, SweepAxis x, std::optional<SweepAxis> y);

    const KernelChoice& kernel() const { return m_kernel; }
    const DeviceSpec& device() const { return m_device; }
    const Shape& baseShape() const { return m_base; }
    const SweepAxis& xAxis() const { return m_x; }
    const std::optional<SweepAxis>& yAxis() const { return m_y; }
    int width() const { return static_cast<int>(m_x.values.size()); }
    int height() const { return m_y ? static_cast<int>(m_y->values.size()) : 1; }
    std::int64_t cellCount() const { return static_cast<std::int64_t>(width()) * height(); }

    const BoundaryCell& cell(int ix, int iy) const { return m_cells[static_cast<std::size_t>(iy) * width() + ix]; }
    BoundaryCell& cell(int ix, int iy) { return m_cells[static_cast<std::size_t>(iy) * width() + ix]; }
    const std::vector<BoundaryCell>& cells() const { return m_cells; }
    Shape shapeAt(int ix, int iy) const;
    // The full plan (message, limit, fix) of one cell: recomputed, never stored.
    LaunchPlan planAt(int ix, int iy, const DeviceDatabase* database) const;
    // Cells per verdict kind, indexed by Verdict.
    std::array<std::int64_t, kAllVerdicts.size()> verdictCounts() const;

private:
    friend class SweepEvaluator;
    KernelChoice m_kernel;
    DeviceSpec m_device;
    Shape m_base;
    SweepAxis m_x;
    std::optional<SweepAxis> m_y;
    std::vector<BoundaryCell> m_cells;
};

struct SweepOptions {
    int threads = 1;                                // 0: all hardware threads
    const std::atomic<bool>* cancel = nullptr;      // polled between rows
    std::function<void(double fraction)> progress;  // called from the calling thread between rows
};

// Evaluates every cell in model mode. Returns false when cancelled (the map is then partial).
bool evaluateBoundaryMap(BoundaryMap& map, const SweepOptions& options = {});

}  // namespace tilescope

#include "core/model/sweep.h"

#include <algorithm>
#include <thread>

#include "core/model/fix_finder.h"

namespace tilescope {

namespace {

constexpr std::size_t kMaxAxisValues = 1 << 16;  // a map's axis; 65,536 x 65,536 would be 4 G cells

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    return text;
}

}  // namespace

Result<SweepAxis> parseSweepAxis(std::string_view text, const ParameterList& parameters) {
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) return makeError("axis '" + std::string(text) + "' is not NAME=FROM:TO:STEP or NAME=V1,V2,...");
    const auto name = trimmed(text.substr(0, equals));
    const int index = parameterIndex(parameters, name);
    if (index < 0) {
        std::string names;
        for (const auto& p : parameters) names += (names.empty() ? "" : ", ") + p.name;
        return makeError("unknown parameter '" + std::string(name) + "' in axis; parameters: " + names);
    }
    const ParameterSpec& spec = parameters[static_cast<std::size_t>(index)];
    SweepAxis axis;
    axis.parameter = index;
    axis.scale = spec.scale;
    const std::string_view body = trimmed(text.substr(equals + 1));
    const std::string axisName(name);

    auto checked = [&](std::int64_t value) -> Result<void> { return checkParameterValue(spec, value); };

    if (body.find(':') != std::string_view::npos) {
        const auto first = body.find(':');
        const auto second = body.find(':', first + 1);
        auto from = parseInteger(body.substr(0, first));
        auto to = parseInteger(body.substr(first + 1, second == std::string_view::npos ? std::string_view::npos : second - first - 1));
        if (!from || !to) return makeError("axis " + axisName + ": " + (!from ? from.error() : to.error()));
        if (auto c = checked(*from); !c) return makeError("axis " + c.error());
        if (auto c = checked(*to); !c) return makeError("axis " + c.error());
        if (*to < *from) return makeError("axis " + axisName + ": FROM must not exceed TO");
        std::string_view step = second == std::string_view::npos ? std::string_view("+1") : trimmed(body.substr(second + 1));
        if (step.empty()) return makeError("axis " + axisName + ": empty step; use +N (add) or xN (multiply)");
        const char op = step.front();
        auto amount = parseInteger(step.substr(op == '+' || op == 'x' || op == '*' ? 1 : 0));
        if (!amount || *amount < 1)
            return makeError("axis " + axisName + ": step '" + std::string(step) + "' must be +N or xN with N >= 1");
        const bool multiply = op == 'x' || op == '*';
        if (multiply && (*amount < 2 || *from < 1))
            return makeError("axis " + axisName + ": a multiplying step needs N >= 2 and FROM >= 1");
        axis.scale = multiply ? AxisScale::Log2 : AxisScale::Linear;
        for (std::int64_t v = *from; v <= *to;) {
            axis.values.push_back(v);
            if (axis.values.size() > kMaxAxisValues)
                return makeError("axis " + axisName + " has more than " + std::to_string(kMaxAxisValues) + " values");
            if (multiply) {
                if (v > *to / *amount) break;
                v *= *amount;
            } else {
                if (v > *to - *amount) break;
                v += *amount;
            }
        }
    } else {
        std::string_view rest = body;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            auto value = parseInteger(rest.substr(0, comma));
            if (!value) return makeError("axis " + axisName + ": " + value.error());
            if (auto c = checked(*value); !c) return makeError("axis " + c.error());
            axis.values.push_back(*value);
            if (axis.values.size() > kMaxAxisValues)
                return makeError("axis " + axisName + " has more than " + std::to_string(kMaxAxisValues) + " values");
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        }
        axis.scale = AxisScale::Linear;
    }
    if (axis.values.empty()) return makeError("axis " + axisName + " has no values");
    return axis;
}

SweepAxis defaultSweepAxis(const ParameterSpec& parameter, int parameterIndex, int count) {
    SweepAxis axis;
    axis.parameter = parameterIndex;
    axis.scale = parameter.scale;
    if (parameter.scale == AxisScale::Log2) {
        for (std::int64_t v = std::max<std::int64_t>(1, parameter.minimum); v <= parameter.maximum && v > 0; v *= 2)
            axis.values.push_back(v);
        return axis;
    }
    // On multiples of the alignment (head_dim: 8, 24, 40 ...), the values a kernel can be asked for.
    std::int64_t from = alignedAtOrAbove(parameter, parameter.minimum), to = alignedAtOrBelow(parameter, parameter.maximum);
    std::int64_t alignment = std::max<std::int64_t>(1, parameter.alignment);
    if (from > to) {
        from = parameter.minimum;
        to = parameter.maximum;
        alignment = 1;
    }
    const std::int64_t step = std::max(alignment, (to - from) / std::max(1, count - 1) / alignment * alignment);
    for (std::int64_t v = from; v <= to; v += step) axis.values.push_back(v);
    return axis;
}

namespace {

// A parameter that follows another when a shape holds them equal. A sweep of head_dim that leaves
// head_dim_v at 128 is refused at every cell but one (the kernels need head_dim_v <= head_dim or
// equal to it); a value head size equal to the query/key one is what a head_dim sweep means.
struct TiedParameter {
    std::string_view leader;
    std::string_view follower;
};
constexpr TiedParameter kTiedParameters[] = {{"head_dim", "head_dim_v"}};

}  // namespace

void tieFollowers(SweepAxis& axis, const Shape& base, const ParameterList& parameters, const SweepAxis* other) {
    axis.followers.clear();
    if (axis.parameter < 0 || axis.parameter >= static_cast<int>(parameters.size()) || axis.parameter >= base.size()) return;
    const std::string& name = parameters[static_cast<std::size_t>(axis.parameter)].name;
    for (const auto& tie : kTiedParameters) {
        if (name != tie.leader) continue;
        const int follower = parameterIndex(parameters, tie.follower);
        if (follower < 0 || follower >= base.size() || follower == axis.parameter) continue;
        if (other && other->parameter == follower) continue;  // swept on its own
        if (base[follower] == base[axis.parameter]) axis.followers.push_back(follower);
    }
}

void setAxisValue(Shape& shape, const SweepAxis& axis, std::size_t index) {
    const std::int64_t value = axis.values[index];
    shape[axis.parameter] = value;
    for (const int follower : axis.followers) shape[follower] = value;
}

std::string axisLabel(const SweepAxis& axis, const ParameterList& parameters) {
    std::string label = parameters[static_cast<std::size_t>(axis.parameter)].name;
    if (axis.followers.empty()) return label;
    std::string names;
    for (const int f : axis.followers) names += (names.empty() ? "" : ", ") + parameters[static_cast<std::size_t>(f)].name;
    return label + " (" + names + " with it)";
}

std::string followerNote(const SweepAxis& axis, const ParameterList& parameters) {
    std::string note;
    for (const int f : axis.followers) {
        if (!note.empty()) note += "; ";
        note += parameters[static_cast<std::size_t>(f)].name + " moves with " + parameters[static_cast<std::size_t>(axis.parameter)].name +
                " (equal in the base shape)";
    }
    return note;
}

BoundaryMap::BoundaryMap(KernelChoice kernel, DeviceSpec device, Shape base, SweepAxis x, std::optional<SweepAxis> y)
    : m_kernel(kernel), m_device(std::move(device)), m_base(base), m_x(std::move(x)), m_y(std::move(y)) {
    if (m_kernel.family) {
        const auto& parameters = m_kernel.family->parameters();
        tieFollowers(m_x, m_base, parameters, m_y ? &*m_y : nullptr);
        if (m_y) tieFollowers(*m_y, m_base, parameters, &m_x);
    }
    m_cells.resize(static_cast<std::size_t>(cellCount()));
}

Shape BoundaryMap::shapeAt(int ix, int iy) const {
    Shape shape = m_base;
    setAxisValue(shape, m_x, static_cast<std::size_t>(ix));
    if (m_y) setAxisValue(shape, *m_y, static_cast<std::size_t>(iy));
    return shape;
}

LaunchPlan BoundaryMap::planAt(int ix, int iy, const DeviceDatabase* database) const {
    return planWithFix(m_kernel, shapeAt(ix, iy), m_device, database);
}

std::array<std::int64_t, kAllVerdicts.size()> BoundaryMap::verdictCounts() const {
    std::array<std::int64_t, kAllVerdicts.size()> counts{};
    for (const auto& cell : m_cells) ++counts[static_cast<std::size_t>(cell.verdict)];
    return counts;
}

namespace {

void evaluateRows(BoundaryMap& map, int rowBegin, int rowEnd) {
    const auto& family = *map.kernel().family;
    const int variant = map.kernel().variant;
    for (int iy = rowBegin; iy < rowEnd; ++iy) {
        for (int ix = 0; ix < map.width(); ++ix) {
            const LaunchPlan plan = family.plan(variant, map.shapeAt(ix, iy), map.device(), PlanDetail::Brief);
            BoundaryCell& cell = map.cell(ix, iy);
            cell.verdict = plan.verdict;
            cell.tileIndex = static_cast<signed char>(plan.tileIndex);
            cell.occupancyPct = plan.occupancy ? static_cast<float>(plan.occupancy->occupancyPct) : -1.0f;
            cell.totalSmem = plan.totalSmem();
            // A plan rejected before its launch was computed has no grid (Dim3's default is not one).
            cell.gridBlocks = plan.verdict >= Verdict::InvalidLaunch ? plan.grid.volume() : 0;
            cell.paddingWaste = static_cast<float>(plan.paddingWaste);
            cell.splits = plan.splitK;
            cell.callsLibrary = plan.callsLibrary();
        }
    }
}

}  // namespace

bool evaluateBoundaryMap(BoundaryMap& map, const SweepOptions& options) {
    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int rows = map.height();
    threads = std::min(threads, rows);
    // Rows are handed out in chunks so progress and cancellation are seen between chunks.
    const int chunk = std::max(1, std::min(64, rows / std::max(1, threads * 4)));
    std::atomic<int> nextRow{0};
    std::atomic<int> doneRows{0};
    auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
    auto work = [&] {
        for (;;) {
            if (cancelled()) return;
            const int begin = nextRow.fetch_add(chunk);
            if (begin >= rows) return;
            const int end = std::min(rows, begin + chunk);
            evaluateRows(map, begin, end);
            doneRows.fetch_add(end - begin);
        }
    };
    if (threads <= 1) {
        while (!cancelled()) {
            const int begin = nextRow.fetch_add(chunk);
            if (begin >= rows) break;
            evaluateRows(map, begin, std::min(rows, begin + chunk));
            doneRows.fetch_add(std::min(rows, begin + chunk) - begin);
            if (options.progress) options.progress(static_cast<double>(doneRows.load()) / rows);
        }
    } else {
        std::vector<std::thread> pool;
        for (int t = 1; t < threads; ++t) pool.emplace_back(work);
        work();
        for (auto& thread : pool) thread.join();
        if (options.progress) options.progress(static_cast<double>(doneRows.load()) / rows);
    }
    return !cancelled() && doneRows.load() == rows;
}

}  // namespace tilescope

#include "core/model/fix_finder.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "core/model/device_spec.h"

namespace tilescope {

namespace {

constexpr std::int64_t kLocalScan = 1024;  // every value this close is tried one by one
// Values looked at on each side for a parameter that holds the fix (holdersOf): 2 x 64 brief plans,
// where 2 x kLocalScan would more than double planWithFix (docs/PERFORMANCE.md, the planWithFix row).
constexpr std::int64_t kHolderScan = 64;

class AxisProbe {
public:
    // Every parameter in `parameters` takes the probed value together (head_dim and head_dim_v,
    // which FA2 needs equal, move as one); the range is the one all of them accept.
    AxisProbe(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, std::vector<int> parameters)
        : m_kernel(kernel), m_shape(shape), m_device(device), m_parameters(std::move(parameters)) {
        m_minimum = std::numeric_limits<std::int64_t>::min();
        m_maximum = std::numeric_limits<std::int64_t>::max();
        for (int parameter : m_parameters) {
            const auto& spec = kernel.family->parameters()[static_cast<std::size_t>(parameter)];
            m_minimum = std::max(m_minimum, spec.minimum);
            m_maximum = std::min(m_maximum, spec.maximum);
        }
        m_original = plan(shape[m_parameters.front()]);
    }

    std::int64_t minimum() const { return m_minimum; }
    std::int64_t maximum() const { return m_maximum; }

    LaunchPlan plan(std::int64_t value) const {
        Shape probe = m_shape;
        for (int parameter : m_parameters) probe[parameter] = value;
        return m_kernel.family->plan(m_kernel.variant, probe, m_device, PlanDetail::Brief);
    }
    bool passes(std::int64_t value) const { return plan(value).ok(); }
    // Still failing for the reason `reference` failed: the side of the boundary we left.
    bool failsAs(std::int64_t value, const LaunchPlan& reference) const {
        const LaunchPlan p = plan(value);
        return p.verdict == reference.verdict &&
               (p.limit ? p.limit->name : std::string_view{}) == (reference.limit ? reference.limit->name : std::string_view{});
    }
    const LaunchPlan& original() const { return m_original; }

private:
    const KernelChoice& m_kernel;
    const Shape& m_shape;
    const DeviceSpec& m_device;
    std::vector<int> m_parameters;
    std::int64_t m_minimum = 0;
    std::int64_t m_maximum = 0;
    LaunchPlan m_original;
};

// Nearest passing value in [from, limit] stepping by `direction`, scanning at most kLocalScan values.
std::optional<std::int64_t> scan(const AxisProbe& probe, std::int64_t from, std::int64_t direction) {
    for (std::int64_t step = 0; step < kLocalScan; ++step) {
        const std::int64_t value = from + direction * step;
        if (value < probe.minimum() || value > probe.maximum()) return std::nullopt;
        if (probe.passes(value)) return value;
    }
    return std::nullopt;
}

// Probe values beyond the local scan, nearest first: doubling distances from the origin, and halving
// distances to the range's end (so a small passing band near the end, such as M 1..512 seen from
// M = 2^24, is not jumped over).
std::vector<std::int64_t> farProbes(const AxisProbe& probe, std::int64_t origin, std::int64_t direction) {
    const std::int64_t span = direction > 0 ? probe.maximum() - origin : origin - probe.minimum();
    std::vector<std::int64_t> distances;
    for (int shift = 10; shift < 63 && (std::int64_t{1} << shift) < span; ++shift) distances.push_back(std::int64_t{1} << shift);
    for (int shift = 0; shift < 63 && (span >> shift) > 0; ++shift) distances.push_back(span - (span >> shift));
    distances.push_back(span);  // the range's end itself
    std::erase_if(distances, [&](std::int64_t d) { return d < kLocalScan; });
    std::sort(distances.begin(), distances.end());
    distances.erase(std::unique(distances.begin(), distances.end()), distances.end());
    std::vector<std::int64_t> values;
    for (std::int64_t d : distances) values.push_back(origin + direction * d);
    return values;
}

// Far side of one direction: walks the probes until the current failure is left behind, bisects for
// the boundary, then scans past it for the first value that passes. When the boundary leads into a
// different failure (e.g. grid overflow, then out of memory), that failure is left behind in turn.
std::optional<std::int64_t> searchFar(const AxisProbe& probe, std::int64_t origin, std::int64_t direction) {
    constexpr int kMaxFailureChanges = 8;
    LaunchPlan reference = probe.original();
    std::int64_t inside = origin;  // known to fail as `reference`
    int changes = 0;
    for (std::int64_t candidate : farProbes(probe, origin, direction)) {
        if ((candidate - inside) * direction <= 0) continue;  // already behind the current boundary
        if (probe.failsAs(candidate, reference)) {
            inside = candidate;
            continue;
        }
        std::int64_t lo = inside, hi = candidate;  // lo fails as reference, hi does not
        while ((hi - lo) * direction > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            (probe.failsAs(mid, reference) ? lo : hi) = mid;
        }
        if (auto found = scan(probe, hi, direction)) return found;
        if (++changes > kMaxFailureChanges) break;
        reference = probe.plan(hi);
        inside = hi;
        if (probe.failsAs(candidate, reference)) inside = candidate;
    }
    return std::nullopt;
}

std::string joinIds(const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out;
}

// The database GPUs (other than `planned`) where a shape runs, short enough to read with 60 of
// them: an architecture whose every GPU runs it is named once ("every database GPU of sm_80,
// sm_90"), the rest by id, oldest architecture first.
std::string describeAccepting(const std::vector<std::string>& accepting, const DeviceDatabase& database, const std::string& planned) {
    std::vector<ComputeCapability> order;
    for (const auto& d : database.devices())
        if (std::find(order.begin(), order.end(), d.computeCapability) == order.end()) order.push_back(d.computeCapability);
    std::sort(order.begin(), order.end());
    auto runs = [&](const std::string& id) { return std::find(accepting.begin(), accepting.end(), id) != accepting.end(); };
    std::vector<std::string> wholeArchs, ids;
    for (const auto& cc : order) {
        std::vector<std::string> group;
        for (const auto& d : database.devices())
            if (d.computeCapability == cc && d.id != planned) group.push_back(d.id);
        const bool whole = group.size() > 1 && std::all_of(group.begin(), group.end(), runs);
        if (whole) wholeArchs.push_back("sm_" + std::to_string(cc.smVersion()));
        else
            for (const auto& id : group)
                if (runs(id)) ids.push_back(id);
    }
    if (wholeArchs.empty()) return joinIds(ids);
    return "every database GPU of " + joinIds(wholeArchs) + (ids.empty() ? std::string() : ", and on " + joinIds(ids));
}

// Nearest value at which the plan passes with every parameter of `parameters` set to it.
std::optional<std::int64_t> nearestPassingTogether(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device,
                                                   std::vector<int> parameters) {
    const std::int64_t origin = shape[parameters.front()];
    const AxisProbe probe(kernel, shape, device, std::move(parameters));
    if (probe.minimum() > probe.maximum()) return std::nullopt;
    std::optional<std::int64_t> below = scan(probe, origin, -1);
    std::optional<std::int64_t> above = scan(probe, origin, +1);
    if (!below) below = searchFar(probe, origin, -1);
    if (!above) above = searchFar(probe, origin, +1);
    if (below && above) return (origin - *below) <= (*above - origin) ? below : above;
    return below ? below : above;
}

// The parameters other than `parameter` that hold the same value on the same axis scale (head_dim
// and head_dim_v, not head_dim and a flag): when the failing one cannot move alone, they may have to
// move with it.
std::vector<int> partnersOf(const KernelChoice& kernel, const Shape& shape, int parameter) {
    const auto& parameters = kernel.family->parameters();
    const auto& spec = parameters[static_cast<std::size_t>(parameter)];
    std::vector<int> partners;
    for (int other = 0; other < shape.size(); ++other)
        if (other != parameter && shape[other] == shape[parameter] && parameters[static_cast<std::size_t>(other)].scale == spec.scale)
            partners.push_back(other);
    return partners;
}

// The parameters the fix leaves alone that hold the passing value where it is. Either values of
// `moved` nearer the original than `value` fail on one of them (head_dim 100 with head_dim_v 128: 96
// and 104 are multiples of 8 but fail the head_dim_v rule, so the nearest passing head_dim is 128,
// head_dim_v's value; the kHolderScan nearest values on each side are looked at), or one of them is a
// parameter on the same axis (linear, same alignment, not a flag) with which, moved along, a nearer
// value passes (sm120 head_dim 512 with head_dim_v 512: the shared memory of both allows head_dim
// 128 alone, 256 together).
std::vector<int> holdersOf(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, const std::vector<int>& moved,
                           std::int64_t value) {
    const AxisProbe probe(kernel, shape, device, moved);
    const std::int64_t origin = shape[moved.front()];
    const std::int64_t distanceToValue = value > origin ? value - origin : origin - value;
    const std::int64_t reach = std::min(kHolderScan, distanceToValue);
    std::vector<int> holders;
    auto isMoved = [&](int p) { return std::find(moved.begin(), moved.end(), p) != moved.end(); };
    auto add = [&](int p) {
        if (std::find(holders.begin(), holders.end(), p) == holders.end()) holders.push_back(p);
    };
    for (std::int64_t distance = 1; distance < reach; ++distance) {
        for (const std::int64_t candidate : {origin - distance, origin + distance}) {
            if (candidate < probe.minimum() || candidate > probe.maximum()) continue;
            const int failing = probe.plan(candidate).failingParameter;
            if (failing >= 0 && failing < shape.size() && !isMoved(failing)) add(failing);
        }
    }
    const auto& parameters = kernel.family->parameters();
    const ParameterSpec& spec = parameters[static_cast<std::size_t>(moved.front())];
    if (spec.scale != AxisScale::Linear || spec.isFlag) return holders;
    for (int other = 0; other < shape.size(); ++other) {
        const ParameterSpec& o = parameters[static_cast<std::size_t>(other)];
        if (isMoved(other) || o.isFlag || o.scale != AxisScale::Linear || o.alignment != spec.alignment) continue;
        std::vector<int> together = moved;
        together.push_back(other);
        const std::optional<std::int64_t> joint = nearestPassingTogether(kernel, shape, device, together);
        if (joint && (*joint > origin ? *joint - origin : origin - *joint) < distanceToValue) add(other);
    }
    return holders;
}

// "nearest passing head_dim: 128, given head_dim_v = 128 (nearer head_dim values fail with that
// head_dim_v)": without the second parameter the value reads as arbitrary.
std::string givenHolders(const std::vector<int>& holders, const Shape& shape, const ParameterList& parameters,
                         const std::string& movedNames) {
    if (holders.empty()) return {};
    std::string values, names;
    for (std::size_t i = 0; i < holders.size(); ++i) {
        const std::string& name = parameters[static_cast<std::size_t>(holders[i])].name;
        const std::string separator = i == 0 ? "" : (i + 1 == holders.size() ? " and " : ", ");
        values += separator + name + " = " + std::to_string(shape[holders[i]]);
        names += separator + name;
    }
    return ", given " + values + " (nearer " + movedNames + " values fail with that " + names + ")";
}

}  // namespace

std::optional<std::int64_t> nearestPassingValue(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, int parameter) {
    if (parameter < 0 || parameter >= shape.size()) return std::nullopt;
    return nearestPassingTogether(kernel, shape, device, {parameter});
}

void attachFix(LaunchPlan& plan, const KernelChoice& kernel, const DeviceSpec& device, const DeviceDatabase* database) {
    if (plan.ok()) return;
    std::vector<std::string> parts;
    const auto& parameters = kernel.family->parameters();
    if (plan.failingParameter >= 0 && plan.failingParameter < plan.shape.size()) {
        std::vector<int> moved{plan.failingParameter};
        std::optional<std::int64_t> value = nearestPassingValue(kernel, plan.shape, device, plan.failingParameter);
        if (!value) {
            // head_dim=100 with head_dim_v=100: no head_dim alone passes (FA2 needs them equal), but
            // moving both to 96 does. Try the parameters that hold the same value, together.
            std::vector<int> together = partnersOf(kernel, plan.shape, plan.failingParameter);
            if (!together.empty()) {
                together.insert(together.begin(), plan.failingParameter);
                value = nearestPassingTogether(kernel, plan.shape, device, together);
                if (value) moved = together;
            }
        }
        if (value) {
            Shape fixed = plan.shape;
            std::string names;
            for (std::size_t i = 0; i < moved.size(); ++i) {
                fixed[moved[i]] = *value;
                names += (i == 0 ? "" : (i + 1 == moved.size() ? " and " : ", ")) + parameters[static_cast<std::size_t>(moved[i])].name;
            }
            plan.fixShape = fixed;
            const std::string given = givenHolders(holdersOf(kernel, plan.shape, device, moved, *value), plan.shape, parameters, names);
            parts.push_back("nearest passing " + names + ": " + std::to_string(*value) + given + " (" + formatShape(fixed, parameters) +
                            ")");
        }
    }
    if (!plan.alternative.empty()) parts.push_back(plan.alternative);
    if (database) {
        std::vector<std::string> accepting;
        for (const auto& other : database->devices()) {
            if (other.id == device.id) continue;
            if (kernel.family->plan(kernel.variant, plan.shape, other, PlanDetail::Brief).ok()) accepting.push_back(other.id);
        }
        if (!accepting.empty()) parts.push_back("this shape runs on " + describeAccepting(accepting, *database, device.id));
    }
    plan.fix.clear();
    for (const auto& part : parts) plan.fix += (plan.fix.empty() ? "" : "; or ") + part;
}

LaunchPlan planWithFix(const KernelChoice& kernel, const Shape& shape, const DeviceSpec& device, const DeviceDatabase* database) {
    LaunchPlan plan = kernel.family->plan(kernel.variant, shape, device, PlanDetail::Full);
    attachFix(plan, kernel, device, database);
    return plan;
}

}  // namespace tilescope

#include "core/series/cliffs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tilescope {

namespace {

std::string twoDecimals(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

// An unknown family gets KernelFamily::splitName()'s default.
std::string_view splitName(const KernelFamily* family) { return family ? family->splitName() : "split-K"; }

// Whole waves the grid needs: the step in time comes when this count changes, not with the
// fraction (0.5 -> 0.6 waves costs nothing more, 1.0 -> 1.05 costs a second wave).
std::optional<long long> wholeWaves(const LaunchPlan& plan) {
    if (!plan.occupancy || !(plan.occupancy->waves > 0) || !std::isfinite(plan.occupancy->waves)) return std::nullopt;
    return static_cast<long long>(std::ceil(plan.occupancy->waves));
}

bool measured(const SweepPoint& point) { return point.timeUs > 0 && std::isfinite(point.timeUs); }

}  // namespace

std::string planDifference(const LaunchPlan& before, const LaunchPlan& after, const KernelFamily* family) {
    std::vector<std::string> changes;
    auto arrow = [](std::string_view a, std::string_view b) { return std::string(a) + " -> " + std::string(b); };
    if (before.variant != after.variant) changes.push_back("variant " + arrow(before.variant, after.variant));
    // A stack's dispatch (awq_gemm autoawq / vllm): from its threshold the call hands the GEMM to a library
    // after a kernel of its own; the planner names the switch in the tile ("dequantize + GEMM from M = 1024").
    const bool libraryBefore = before.callsLibrary(), libraryAfter = after.callsLibrary();
    if (libraryBefore != libraryAfter) {
        changes.push_back("dispatch: " + std::string(libraryAfter ? after.tile : before.tile) +
                          (libraryAfter ? "" : " ends (" + std::string(after.tile.empty() ? after.kernelSymbol : after.tile) + ")"));
        std::string joined;
        for (const auto& change : changes) joined += (joined.empty() ? "" : "; ") + change;
        return joined;
    }
    // The kernel a call picks: the bucket cell names it for a bucketed planner, else the tile, else the
    // symbol (each of the later ones follows from the earlier, so only the first that changed is named).
    if (before.bucketCell != after.bucketCell) {
        auto cell = [](const std::optional<std::int64_t>& c) { return c ? std::to_string(*c) : std::string("none"); };
        changes.push_back("bucket cell " + arrow(cell(before.bucketCell), cell(after.bucketCell)));
    } else if (before.tile != after.tile) {
        changes.push_back("tile " + arrow(before.tile, after.tile));
    } else if (before.kernelSymbol != after.kernelSymbol) {
        changes.push_back("kernel " + arrow(before.kernelSymbol, after.kernelSymbol));
    }
    if (before.operandsSwapped != after.operandsSwapped)
        changes.push_back(after.operandsSwapped ? "operands swapped" : "operands no longer swapped");
    if (before.splitK != after.splitK)
        changes.push_back(std::string(splitName(family)) + " " + arrow(std::to_string(before.splitK), std::to_string(after.splitK)));
    if (before.extraLaunches.size() != after.extraLaunches.size())
        changes.push_back("extra launches " +
                          arrow(std::to_string(before.extraLaunches.size()), std::to_string(after.extraLaunches.size())));
    const auto wavesBefore = wholeWaves(before), wavesAfter = wholeWaves(after);
    if (wavesBefore && wavesAfter && *wavesBefore != *wavesAfter)
        changes.push_back("waves " + arrow(std::to_string(*wavesBefore), std::to_string(*wavesAfter)) + " (" +
                          twoDecimals(before.occupancy->waves) + " -> " + twoDecimals(after.occupancy->waves) + ")");
    if (before.occupancy && after.occupancy && before.occupancy->activeBlocksPerSm != after.occupancy->activeBlocksPerSm)
        changes.push_back("blocks/SM " +
                          arrow(std::to_string(before.occupancy->activeBlocksPerSm), std::to_string(after.occupancy->activeBlocksPerSm)));
    std::string joined;
    for (const auto& change : changes) joined += (joined.empty() ? "" : "; ") + change;
    return joined;
}

// A step counts in either direction by the larger time over the smaller, so a 25 % threshold finds
// 100 -> 126 us and 126 -> 100 us alike. Unmeasured points (time 0: a failed run) are skipped and
// their neighbours compared across them.
std::vector<Cliff> findCliffs(const std::vector<SweepPoint>& points, const KernelFamily* family, double threshold) {
    std::vector<Cliff> cliffs;
    std::optional<std::size_t> previous;
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!measured(points[i])) continue;
        if (previous) {
            const double before = points[*previous].timeUs, after = points[i].timeUs;
            if (std::max(before, after) / std::min(before, after) - 1.0 > threshold) {
                Cliff cliff;
                cliff.before = *previous;
                cliff.after = i;
                cliff.ratio = after / before;
                cliff.explanation = planDifference(points[*previous].plan, points[i].plan, family);
                cliff.explained = !cliff.explanation.empty();
                if (!cliff.explained) cliff.explanation = "unexplained";
                cliffs.push_back(std::move(cliff));
            }
        }
        previous = i;
    }
    return cliffs;
}

std::vector<PlanChange> planChanges(const std::vector<SweepPoint>& points, const KernelFamily* family) {
    std::vector<PlanChange> changes;
    for (std::size_t i = 1; i < points.size(); ++i) {
        std::string what = planDifference(points[i - 1].plan, points[i].plan, family);
        if (!what.empty()) changes.push_back({i, std::move(what)});
    }
    return changes;
}

}  // namespace tilescope

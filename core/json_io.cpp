#include "core/json_io.h"

namespace tilescope {

using nlohmann::ordered_json;

ordered_json deviceToJson(const DeviceSpec& d) {
    ordered_json j;
    j["id"] = d.id;
    j["name"] = d.name;
    j["source"] = d.source;
    j["compute_capability"] = {d.computeCapability.major, d.computeCapability.minor};
    j["sm_count"] = d.smCount;
    j["warp_size"] = d.warpSize;
    j["max_threads_per_block"] = d.maxThreadsPerBlock;
    j["max_block_dim"] = d.maxBlockDim;
    j["max_grid_dim"] = d.maxGridDim;
    j["regs_per_sm"] = d.regsPerSm;
    j["regs_per_block"] = d.regsPerBlock;
    j["max_regs_per_thread"] = d.maxRegsPerThread;
    j["smem_per_block"] = d.smemPerBlock;
    j["smem_per_block_optin"] = d.smemPerBlockOptin;
    j["smem_per_sm"] = d.smemPerSm;
    j["reserved_smem_per_block"] = d.reservedSmemPerBlock;
    j["max_blocks_per_sm"] = d.maxBlocksPerSm;
    j["max_threads_per_sm"] = d.maxThreadsPerSm;
    j["memory_bytes"] = d.memoryBytes;
    j["memory_bandwidth_gbps"] = d.memoryBandwidthGBps ? ordered_json(*d.memoryBandwidthGBps) : ordered_json(nullptr);
    j["l2_bytes"] = d.l2Bytes ? ordered_json(*d.l2Bytes) : ordered_json(nullptr);
    j["sm_clock_mhz"] = d.smClockMhz ? ordered_json(*d.smClockMhz) : ordered_json(nullptr);
    return j;
}

ordered_json shapeToJson(const Shape& shape, const ParameterList& parameters) {
    ordered_json j = ordered_json::object();
    for (int i = 0; i < shape.size() && i < static_cast<int>(parameters.size()); ++i)
        j[parameters[static_cast<std::size_t>(i)].name] = shape[i];
    return j;
}

ordered_json occupancyToJson(const std::optional<Occupancy>& occupancy) {
    if (!occupancy) return nullptr;
    ordered_json j;
    j["active_blocks_per_sm"] = occupancy->activeBlocksPerSm;
    j["active_warps_per_sm"] = occupancy->activeWarpsPerSm;
    j["max_warps_per_sm"] = occupancy->maxWarpsPerSm;
    j["occupancy_pct"] = occupancy->occupancyPct;
    j["limiters"] = occupancy->limiterNames();
    j["waves"] = occupancy->waves;
    return j;
}

static ordered_json dimToJson(const Dim3& d) { return ordered_json::array({d.x, d.y, d.z}); }

ordered_json planToJson(const LaunchPlan& plan, const ParameterList& parameters) {
    ordered_json j;
    j["kernel"] = plan.family;
    j["variant"] = plan.variant;
    j["device"] = plan.deviceId;
    j["shape"] = shapeToJson(plan.shape, parameters);
    j["verdict"] = verdictName(plan.verdict);
    j["message"] = plan.message.empty() ? ordered_json(nullptr) : ordered_json(plan.message);
    if (plan.limit)
        j["limit"] = {{"name", plan.limit->name}, {"value", plan.limit->limit}, {"actual", plan.limit->actual}};
    else
        j["limit"] = nullptr;
    j["fix"] = plan.fix.empty() ? ordered_json(nullptr) : ordered_json(plan.fix);
    ordered_json launch;
    launch["grid"] = dimToJson(plan.grid);
    launch["block"] = dimToJson(plan.block);
    launch["static_smem"] = plan.staticSmem;
    launch["dynamic_smem"] = plan.dynamicSmem;
    launch["registers"] = plan.registers ? ordered_json(*plan.registers) : ordered_json(nullptr);
    launch["opt_in_smem"] = plan.optsIntoLargeSmem;
    launch["kernel_symbol"] = plan.kernelSymbol;
    j["launch"] = launch;
    j["tile"] = plan.tile.empty() ? ordered_json(nullptr) : ordered_json(plan.tile);
    j["occupancy"] = occupancyToJson(plan.occupancy);
    // Keys beyond the contract.
    j["fix_shape"] = plan.fixShape ? shapeToJson(*plan.fixShape, parameters) : ordered_json(nullptr);
    j["failing_parameter"] = plan.failingParameter >= 0
                                 ? ordered_json(parameters[static_cast<std::size_t>(plan.failingParameter)].name)
                                 : ordered_json(nullptr);
    j["cuda_error"] = plan.cudaError ? ordered_json{{"name", plan.cudaError->name}, {"code", plan.cudaError->code}}
                                     : ordered_json(nullptr);
    ordered_json candidates = ordered_json::array();
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
        const auto& c = plan.candidates[i];
        candidates.push_back({{"name", c.name}, {"smem", c.smemBytes}, {"fits", c.fits},
                              {"chosen", static_cast<int>(i) == plan.tileIndex}});
    }
    j["candidates"] = candidates;
    j["bucket_cell"] = plan.bucketCell ? ordered_json(*plan.bucketCell) : ordered_json(nullptr);
    j["padding_waste"] = plan.paddingWaste;
    j["split_k"] = plan.splitK;
    j["bytes_moved"] = plan.bytesMoved;
    j["flops"] = plan.flops;
    j["device_memory_bytes"] = plan.deviceMemoryBytes;
    j["note"] = plan.note.empty() ? ordered_json(nullptr) : ordered_json(plan.note);
    return j;
}

ordered_json familyToJson(const KernelFamily& family) {
    ordered_json j;
    j["name"] = family.name();
    j["title"] = family.title();
    ordered_json variants = ordered_json::array();
    for (const auto& v : family.variants())
        variants.push_back({{"name", v.name}, {"description", v.description}, {"upstream", v.upstream}});
    j["variants"] = variants;
    ordered_json parameters = ordered_json::array();
    for (const auto& p : family.parameters()) {
        parameters.push_back({{"name", p.name},
                              {"min", p.minimum},
                              {"max", p.maximum},
                              {"default", p.defaultValue},
                              {"scale", p.scale == AxisScale::Log2 ? "log2" : "linear"},
                              {"flag", p.isFlag},
                              {"help", p.help}});
    }
    j["parameters"] = parameters;
    return j;
}

static ordered_json axisToJson(const SweepAxis& axis, const ParameterList& parameters) {
    return {{"parameter", parameters[static_cast<std::size_t>(axis.parameter)].name},
            {"scale", axis.scale == AxisScale::Log2 ? "log2" : "linear"},
            {"values", axis.values}};
}

ordered_json boundaryMapToJson(const BoundaryMap& map) {
    const auto& parameters = map.kernel().family->parameters();
    ordered_json j;
    j["kernel"] = map.kernel().family->name();
    j["variant"] = map.kernel().variantName();
    j["device"] = map.device().id;
    j["shape"] = shapeToJson(map.baseShape(), parameters);
    j["x"] = axisToJson(map.xAxis(), parameters);
    j["y"] = map.yAxis() ? axisToJson(*map.yAxis(), parameters) : ordered_json(nullptr);
    ordered_json counts = ordered_json::object();
    const auto perVerdict = map.verdictCounts();
    for (Verdict v : kAllVerdicts)
        if (perVerdict[static_cast<std::size_t>(v)] > 0) counts[verdictName(v)] = perVerdict[static_cast<std::size_t>(v)];
    j["counts"] = counts;
    ordered_json cells = ordered_json::array();
    for (int iy = 0; iy < map.height(); ++iy) {
        for (int ix = 0; ix < map.width(); ++ix) {
            const auto& cell = map.cell(ix, iy);
            ordered_json c;
            c["x"] = map.xAxis().values[static_cast<std::size_t>(ix)];
            if (map.yAxis()) c["y"] = map.yAxis()->values[static_cast<std::size_t>(iy)];
            c["verdict"] = verdictName(cell.verdict);
            c["smem"] = cell.totalSmem;
            c["grid_blocks"] = cell.gridBlocks;
            c["occupancy_pct"] = cell.occupancyPct >= 0 ? ordered_json(cell.occupancyPct) : ordered_json(nullptr);
            c["padding_waste"] = cell.paddingWaste;
            cells.push_back(std::move(c));
        }
    }
    j["cells"] = cells;
    return j;
}

}  // namespace tilescope

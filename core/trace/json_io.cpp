#include "core/trace/json_io.h"

#include <cmath>
#include <limits>

#include "core/model/json_reader.h"
#include "core/trace/trace.h"

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
    if (plan.limit) j["limit"] = {{"name", plan.limit->name}, {"value", plan.limit->limit}, {"actual", plan.limit->actual}};
    else j["limit"] = nullptr;
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
    // The kernels the same call launches after the main one (split-KV's combine), in order.
    ordered_json extras = ordered_json::array();
    for (const ExtraLaunch& e : plan.extraLaunches) {
        ordered_json x;
        x["role"] = e.role;
        x["why"] = e.why.empty() ? ordered_json(nullptr) : ordered_json(e.why);
        x["kernel_symbol"] = e.kernelSymbol;
        // A library launch's grid and block are the library's choice at run time: unknown, so null.
        x["grid"] = e.chosenByLibrary() ? ordered_json(nullptr) : dimToJson(e.grid);
        x["block"] = e.chosenByLibrary() ? ordered_json(nullptr) : dimToJson(e.block);
        x["static_smem"] = e.staticSmem;
        x["dynamic_smem"] = e.dynamicSmem;
        x["registers"] = e.registers ? ordered_json(*e.registers) : ordered_json(nullptr);
        x["opt_in_smem"] = e.optsIntoLargeSmem;
        x["occupancy"] = occupancyToJson(e.occupancy);
        if (e.chosenByLibrary()) {  // only library launches carry these (files of our own launches unchanged)
            x["library"] = e.library;
            x["unknown"] = e.unknown.empty() ? ordered_json(nullptr) : ordered_json(e.unknown);
            x["flops"] = numberToJson(e.flops);
            x["bytes_moved"] = numberToJson(e.bytesMoved);
        }
        extras.push_back(std::move(x));
    }
    j["extra_launches"] = std::move(extras);
    j["fix_shape"] = plan.fixShape ? shapeToJson(*plan.fixShape, parameters) : ordered_json(nullptr);
    j["failing_parameter"] =
        plan.failingParameter >= 0 ? ordered_json(parameters[static_cast<std::size_t>(plan.failingParameter)].name) : ordered_json(nullptr);
    j["cuda_error"] = plan.cudaError ? ordered_json{{"name", plan.cudaError->name}, {"code", plan.cudaError->code}} : ordered_json(nullptr);
    ordered_json candidates = ordered_json::array();
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
        const auto& c = plan.candidates[i];
        candidates.push_back(
            {{"name", c.name}, {"smem", c.smemBytes}, {"fits", c.fits}, {"chosen", static_cast<int>(i) == plan.tileIndex}});
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
            c["splits"] = cell.splits;
            // Only where a stack's dispatch hands the call to a library, so maps without one are unchanged.
            if (cell.callsLibrary) c["calls_library"] = true;
            cells.push_back(std::move(c));
        }
    }
    j["cells"] = cells;
    return j;
}

// ---- readers ---------------------------------------------------------------------------

namespace {

// Bounds for figures read from files: generous (an invalid launch may have any size), but
// finite so that arithmetic on them cannot overflow.
constexpr std::int64_t kMaxFileInteger = std::int64_t{1} << 62;
constexpr std::int64_t kMaxRegisters = 1 << 16;
constexpr std::int64_t kMaxOccupancyBlocks = 1 << 20;
constexpr double kMaxFileNumber = 1e300;
// A sweep axis never has more values than parseSweepAxis accepts (core/model/sweep.cpp, kMaxAxisValues).
constexpr std::size_t kMaxAxisValuesRead = 1 << 16;
constexpr std::size_t kMaxCandidates = 1 << 10;
constexpr std::size_t kMaxExtraLaunches = 16;
constexpr std::int64_t kMaxSplitsRead = 1 << 20;  // LaunchPlan::splitK, as planFromJson reads "split_k"

template <typename T>
Result<T> finish(T value, const std::optional<std::string>& error) {
    if (error) return makeError(*error);
    return value;
}

std::optional<OccupancyLimiter> limiterFromName(std::string_view name) {
    if (name == "warps") return OccupancyLimiter::Warps;
    if (name == "registers") return OccupancyLimiter::Registers;
    if (name == "shared memory") return OccupancyLimiter::SharedMemory;
    if (name == "blocks") return OccupancyLimiter::Blocks;
    if (name == "barriers") return OccupancyLimiter::Barriers;
    return std::nullopt;
}

ordered_json parameterNameOrNull(int index, const ParameterList& parameters) {
    if (index < 0 || index >= static_cast<int>(parameters.size())) return nullptr;
    return parameters[static_cast<std::size_t>(index)].name;
}

// Reads a parameter name (or null) back into an index; an unknown name is an error.
int parameterIndexFromJson(const ordered_json& value, const ParameterList& parameters, const std::string& pointer, JsonReader& reader) {
    if (value.is_null()) return -1;
    if (!value.is_string()) {
        reader.fail(pointer, "expected a parameter name or null, got " + describeJsonValue(value));
        return -1;
    }
    const int index = parameterIndex(parameters, value.get<std::string>());
    if (index < 0) reader.fail(pointer, "unknown parameter '" + value.get<std::string>() + "'");
    return index;
}

CudaOutcome cudaOutcomeFrom(JsonReader& reader) {
    CudaOutcome out;
    out.errorName = reader.text("error_name");
    out.errorText = reader.text("error_text");
    out.code = static_cast<int>(reader.integer("code", -(1LL << 31), (1LL << 31) - 1));
    return out;
}

ordered_json cudaOutcomeToJson(const CudaOutcome& outcome) {
    ordered_json j;
    j["error_name"] = outcome.errorName;
    j["error_text"] = outcome.errorText;
    j["code"] = outcome.code;
    return j;
}

template <typename T>
ordered_json optionalToJson(const std::optional<T>& value) {
    return value ? ordered_json(*value) : ordered_json(nullptr);
}

// occupancyToJson's object back (the detail figures stay at their defaults).
Occupancy occupancyFromJson(const ordered_json& j, const std::string& pointer, std::optional<std::string>& error) {
    JsonReader r(j, pointer, &error);
    Occupancy o;
    o.activeBlocksPerSm = static_cast<int>(r.integer("active_blocks_per_sm", 0, kMaxOccupancyBlocks));
    o.activeWarpsPerSm = static_cast<int>(r.integer("active_warps_per_sm", 0, kMaxOccupancyBlocks));
    o.maxWarpsPerSm = static_cast<int>(r.integer("max_warps_per_sm", 0, kMaxOccupancyBlocks));
    o.occupancyPct = r.number("occupancy_pct", 0.0, 100.0);
    o.waves = r.number("waves", 0.0, kMaxFileNumber);
    if (const auto* limiters = r.array("limiters", false, 8)) {
        for (std::size_t i = 0; i < limiters->size(); ++i) {
            const auto& name = (*limiters)[i];
            auto bit = name.is_string() ? limiterFromName(name.get<std::string>()) : std::nullopt;
            if (!bit) {
                r.fail(r.pointerOf("limiters") + "/" + std::to_string(i),
                       "expected one of warps, registers, shared memory, blocks, barriers; got " + describeJsonValue(name));
                break;
            }
            o.limiters |= static_cast<unsigned>(*bit);
        }
    }
    return o;
}

// One entry of "extra_launches"; its strings are interned in `strings`.
ExtraLaunch extraLaunchFromJson(const ordered_json& j, const std::string& pointer, StringPool& strings, std::optional<std::string>& error) {
    JsonReader r(j, pointer, &error);
    ExtraLaunch e;
    e.role = strings.intern(r.text("role"));
    e.why = strings.intern(r.optionalText("why").value_or(""));
    e.kernelSymbol = strings.intern(r.optionalText("kernel_symbol").value_or(""));
    e.library = strings.intern(r.optionalText("library").value_or(""));
    e.unknown = strings.intern(r.optionalText("unknown").value_or(""));
    if (!e.chosenByLibrary()) {
        e.grid = r.dim3("grid", kMaxFileInteger);
        e.block = r.dim3("block", kMaxFileInteger);
    }
    e.flops = r.optionalNumber("flops", 0.0, kMaxFileNumber).value_or(0.0);
    e.bytesMoved = r.optionalNumber("bytes_moved", 0.0, kMaxFileNumber).value_or(0.0);
    e.staticSmem = r.integer("static_smem", 0, kMaxFileInteger);
    e.dynamicSmem = r.integer("dynamic_smem", 0, kMaxFileInteger);
    if (auto regs = r.optionalInteger("registers", 0, kMaxRegisters)) e.registers = static_cast<int>(*regs);
    e.optsIntoLargeSmem = r.boolean("opt_in_smem");
    if (const auto* occupancy = r.object("occupancy", true)) e.occupancy = occupancyFromJson(*occupancy, r.pointerOf("occupancy"), error);
    return e;
}

}  // namespace

Result<DeviceSpec> deviceFromJson(const ordered_json& j, const std::string& pointer) {
    if (!j.is_object()) return makeError("at " + pointer + ": expected a device object, got " + describeJsonValue(j));
    // One parser for device figures: the database's, which validates every field.
    auto parsed = DeviceDatabase::fromJsonText(j.dump(), "at " + pointer);
    if (!parsed) return makeError(parsed.error());
    return parsed->devices().front();
}

Result<ParameterList> parametersFromShapeJson(const ordered_json& j, const std::string& pointer) {
    if (!j.is_object()) return makeError("at " + pointer + ": expected a shape object, got " + describeJsonValue(j));
    if (j.size() > static_cast<std::size_t>(Shape::kMaxParameters))
        return makeError("at " + pointer + ": a shape has at most " + std::to_string(Shape::kMaxParameters) + " parameters");
    ParameterList parameters;
    for (const auto& [key, value] : j.items()) {
        ParameterSpec spec;
        spec.name = key;
        spec.minimum = std::numeric_limits<std::int64_t>::min();
        spec.maximum = std::numeric_limits<std::int64_t>::max();
        parameters.push_back(std::move(spec));
    }
    return parameters;
}

Result<Shape> shapeFromJson(const ordered_json& j, const ParameterList& parameters, const std::string& pointer) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    Shape shape = Shape::defaults(parameters);
    shape.resize(static_cast<int>(parameters.size()));
    for (std::size_t i = 0; i < parameters.size() && !error; ++i) {
        const auto& p = parameters[i];
        // A parameter the file does not name keeps the family's default: a family that gains a
        // parameter (attention's dropout and fa2_version, issue 29) still reads the traces saved before,
        // whose plans the default reproduces.
        if (j.is_object() && !j.contains(p.name)) continue;
        shape[static_cast<int>(i)] = reader.integer(p.name.c_str(), p.minimum, p.maximum);
    }
    if (!error && j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if (parameterIndex(parameters, key) < 0) {
                reader.fail(reader.pointerOf(key), "unknown parameter '" + key + "'");
                break;
            }
        }
    }
    return finish(shape, error);
}

void addPlanDetailJson(ordered_json& j, const LaunchPlan& plan, const ParameterList& parameters) {
    j["alternative"] = plan.alternative.empty() ? ordered_json(nullptr) : ordered_json(plan.alternative);
    j["grid_parameters"] = {parameterNameOrNull(plan.gridParameter[0], parameters), parameterNameOrNull(plan.gridParameter[1], parameters),
                            parameterNameOrNull(plan.gridParameter[2], parameters)};
    j["smem_parameter"] = parameterNameOrNull(plan.smemParameter, parameters);
    j["memory_parameter"] = parameterNameOrNull(plan.memoryParameter, parameters);
    if (plan.occupancy) {
        const auto& o = *plan.occupancy;
        j["occupancy_detail"] = {{"block_limit_warps", o.blockLimitWarps},
                                 {"block_limit_registers", o.blockLimitRegisters},
                                 {"block_limit_shared_memory", o.blockLimitSharedMemory},
                                 {"block_limit_blocks", o.blockLimitBlocks},
                                 {"allocated_smem_per_block", o.allocatedSmemPerBlock},
                                 {"allocated_registers_per_block", o.allocatedRegistersPerBlock}};
    } else {
        j["occupancy_detail"] = nullptr;
    }
}

Result<LaunchPlan> planFromJson(const ordered_json& j, const ParameterList& parameters, StringPool& strings, const std::string& pointer) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    LaunchPlan plan;
    plan.family = strings.intern(reader.text("kernel"));
    plan.variant = strings.intern(reader.text("variant"));
    plan.deviceId = reader.text("device");
    if (const auto* shape = reader.object("shape")) {
        auto parsed = shapeFromJson(*shape, parameters, reader.pointerOf("shape"));
        if (!parsed) return makeError(parsed.error());
        plan.shape = *parsed;
    }
    const std::string verdict = reader.text("verdict");
    if (!error) {
        if (auto v = verdictFromName(verdict)) plan.verdict = *v;
        else reader.fail(reader.pointerOf("verdict"), "unknown verdict '" + verdict + "'");
    }
    plan.message = reader.optionalText("message").value_or("");
    if (const auto* limit = reader.object("limit", true)) {
        JsonReader r(*limit, reader.pointerOf("limit"), &error);
        LimitHit hit;
        hit.name = strings.intern(r.text("name"));
        hit.limit = r.integer("value", -kMaxFileInteger, kMaxFileInteger);
        hit.actual = r.integer("actual", -kMaxFileInteger, kMaxFileInteger);
        plan.limit = hit;
    }
    plan.fix = reader.optionalText("fix").value_or("");
    if (const auto* launch = reader.object("launch")) {
        JsonReader r(*launch, reader.pointerOf("launch"), &error);
        plan.grid = r.dim3("grid", kMaxFileInteger);
        plan.block = r.dim3("block", kMaxFileInteger);
        plan.staticSmem = r.integer("static_smem", 0, kMaxFileInteger);
        plan.dynamicSmem = r.integer("dynamic_smem", 0, kMaxFileInteger);
        if (auto regs = r.optionalInteger("registers", 0, kMaxRegisters)) plan.registers = static_cast<int>(*regs);
        plan.optsIntoLargeSmem = r.boolean("opt_in_smem");
        plan.kernelSymbol = strings.intern(r.optionalText("kernel_symbol").value_or(""));
    }
    plan.tile = strings.intern(reader.optionalText("tile").value_or(""));
    if (const auto* occupancy = reader.object("occupancy", true)) {
        Occupancy o = occupancyFromJson(*occupancy, reader.pointerOf("occupancy"), error);
        if (const auto* detail = reader.object("occupancy_detail", true)) {
            JsonReader d(*detail, reader.pointerOf("occupancy_detail"), &error);
            const std::int64_t unlimited = std::numeric_limits<int>::max();
            o.blockLimitWarps = static_cast<int>(d.integer("block_limit_warps", 0, unlimited));
            o.blockLimitRegisters = static_cast<int>(d.integer("block_limit_registers", 0, unlimited));
            o.blockLimitSharedMemory = static_cast<int>(d.integer("block_limit_shared_memory", 0, unlimited));
            o.blockLimitBlocks = static_cast<int>(d.integer("block_limit_blocks", 0, unlimited));
            o.allocatedSmemPerBlock = d.integer("allocated_smem_per_block", 0, kMaxFileInteger);
            o.allocatedRegistersPerBlock = static_cast<int>(d.integer("allocated_registers_per_block", 0, unlimited));
        }
        plan.occupancy = o;
    }
    if (const auto* fixShape = reader.object("fix_shape", true)) {
        auto parsed = shapeFromJson(*fixShape, parameters, reader.pointerOf("fix_shape"));
        if (!parsed) return makeError(parsed.error());
        plan.fixShape = *parsed;
    }
    if (j.is_object() && j.contains("failing_parameter"))
        plan.failingParameter = parameterIndexFromJson(j["failing_parameter"], parameters, reader.pointerOf("failing_parameter"), reader);
    if (const auto* cuda = reader.object("cuda_error", true)) {
        JsonReader r(*cuda, reader.pointerOf("cuda_error"), &error);
        CudaErrorCode code;
        code.name = strings.intern(r.text("name"));
        code.code = static_cast<int>(r.integer("code", -(1LL << 31), (1LL << 31) - 1));
        plan.cudaError = code;
    }
    if (const auto* candidates = reader.array("candidates", true, kMaxCandidates)) {
        for (std::size_t i = 0; i < candidates->size() && !error; ++i) {
            JsonReader r((*candidates)[i], reader.pointerOf("candidates") + "/" + std::to_string(i), &error);
            TileCandidate c;
            c.name = strings.intern(r.text("name"));
            c.smemBytes = r.integer("smem", 0, kMaxFileInteger);
            c.fits = r.boolean("fits");
            if (r.boolean("chosen")) plan.tileIndex = static_cast<int>(i);
            plan.candidates.push_back(c);
        }
    }
    // Absent in files written before split-KV: one launch.
    if (const auto* extras = reader.array("extra_launches", true, kMaxExtraLaunches)) {
        for (std::size_t i = 0; i < extras->size() && !error; ++i)
            plan.extraLaunches.push_back(
                extraLaunchFromJson((*extras)[i], reader.pointerOf("extra_launches") + "/" + std::to_string(i), strings, error));
    }
    plan.bucketCell = reader.optionalInteger("bucket_cell", 0, kMaxFileInteger);
    plan.paddingWaste = reader.number("padding_waste", 0.0, 1.0);
    plan.splitK = static_cast<int>(reader.integer("split_k", 1, 1 << 20));
    plan.bytesMoved = reader.number("bytes_moved", 0.0, kMaxFileNumber);
    plan.flops = reader.number("flops", 0.0, kMaxFileNumber);
    plan.deviceMemoryBytes = reader.integer("device_memory_bytes", 0, kMaxFileInteger);
    plan.note = reader.optionalText("note").value_or("");
    plan.alternative = reader.optionalText("alternative").value_or("");
    if (const auto* grid = reader.array("grid_parameters", true, 3)) {
        for (std::size_t i = 0; i < grid->size(); ++i)
            plan.gridParameter[i] =
                parameterIndexFromJson((*grid)[i], parameters, reader.pointerOf("grid_parameters") + "/" + std::to_string(i), reader);
    }
    if (j.is_object() && j.contains("smem_parameter"))
        plan.smemParameter = parameterIndexFromJson(j["smem_parameter"], parameters, reader.pointerOf("smem_parameter"), reader);
    if (j.is_object() && j.contains("memory_parameter"))
        plan.memoryParameter = parameterIndexFromJson(j["memory_parameter"], parameters, reader.pointerOf("memory_parameter"), reader);
    return finish(std::move(plan), error);
}

ordered_json recordToJson(const KernelRecord& r) {
    ordered_json j;
    j["name"] = r.name;
    j["start_ns"] = r.startNs;
    j["end_ns"] = r.endNs;
    j["device"] = r.device;
    j["stream"] = r.stream;
    j["correlation_id"] = r.correlationId;
    j["external_id"] = optionalToJson(r.externalId);
    j["grid"] = dimToJson(r.grid);
    j["block"] = dimToJson(r.block);
    j["registers_per_thread"] = optionalToJson(r.registersPerThread);
    j["static_smem"] = optionalToJson(r.staticSmem);
    j["dynamic_smem"] = optionalToJson(r.dynamicSmem);
    j["shared_memory"] = optionalToJson(r.sharedMemory);
    j["local_memory_per_thread"] = optionalToJson(r.localMemoryPerThread);
    j["shmem_limit_config"] = optionalToJson(r.shmemLimitConfig);
    j["kineto_occupancy_pct"] = r.kinetoOccupancyPct ? numberToJson(*r.kinetoOccupancyPct) : ordered_json(nullptr);
    j["launch_api"] = r.launchApi.empty() ? ordered_json(nullptr) : ordered_json(r.launchApi);
    j["launch_start_ns"] = optionalToJson(r.launchStartNs);
    return j;
}

Result<KernelRecord> recordFromJson(const ordered_json& j, const std::string& pointer) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    KernelRecord r;
    constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();
    r.name = reader.text("name");
    r.startNs = reader.integer("start_ns", -kMaxTime, kMaxTime);
    r.endNs = reader.integer("end_ns", -kMaxTime, kMaxTime);
    r.device = static_cast<int>(reader.integer("device", -1, 1 << 20));
    r.stream = reader.integer("stream", std::numeric_limits<std::int64_t>::min(), kMaxTime);
    r.correlationId = reader.integer("correlation_id", std::numeric_limits<std::int64_t>::min(), kMaxTime);
    r.externalId = reader.optionalInteger("external_id", std::numeric_limits<std::int64_t>::min(), kMaxTime);
    r.grid = reader.dim3("grid", kMaxFileInteger);
    r.block = reader.dim3("block", kMaxFileInteger);
    if (auto v = reader.optionalInteger("registers_per_thread", 0, kMaxRegisters)) r.registersPerThread = static_cast<int>(*v);
    r.staticSmem = reader.optionalInteger("static_smem", 0, kMaxFileInteger);
    r.dynamicSmem = reader.optionalInteger("dynamic_smem", 0, kMaxFileInteger);
    r.sharedMemory = reader.optionalInteger("shared_memory", 0, kMaxFileInteger);
    r.localMemoryPerThread = reader.optionalInteger("local_memory_per_thread", 0, kMaxFileInteger);
    if (auto v = reader.optionalInteger("shmem_limit_config", 0, 16)) r.shmemLimitConfig = static_cast<int>(*v);
    r.kinetoOccupancyPct = reader.optionalNumber("kineto_occupancy_pct", -kMaxFileNumber, kMaxFileNumber);
    r.launchApi = reader.optionalText("launch_api").value_or("");
    r.launchStartNs = reader.optionalInteger("launch_start_ns", -kMaxTime, kMaxTime);
    if (!error && r.endNs < r.startNs) reader.fail(reader.pointerOf("end_ns"), "expected end_ns >= start_ns");
    return finish(std::move(r), error);
}

ordered_json gpuOutcomeToJson(const GpuOutcome& g) {
    ordered_json j;
    j["device_name"] = g.deviceName;
    j["launch"] = cudaOutcomeToJson(g.launch);
    j["synchronize"] = cudaOutcomeToJson(g.synchronize);
    ordered_json records = ordered_json::array();
    for (const auto& r : g.records) records.push_back(recordToJson(r));
    j["records"] = std::move(records);
    if (g.check)
        j["check"] = {{"max_relative_error", numberToJson(g.check->maxRelativeError)},
                      {"bound", numberToJson(g.check->bound)},
                      {"passed", g.check->passed}};
    else j["check"] = nullptr;
    if (g.timing)
        j["timing"] = {{"repeats", g.timing->repeats},
                       {"min_us", numberToJson(g.timing->minUs)},
                       {"median_us", numberToJson(g.timing->medianUs)},
                       {"mean_us", numberToJson(g.timing->meanUs)},
                       {"source", g.timing->source},
                       {"l2_flushed", g.timing->l2Flushed}};
    else j["timing"] = nullptr;
    return j;
}

Result<GpuOutcome> gpuOutcomeFromJson(const ordered_json& j, const std::string& pointer) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    GpuOutcome g;
    const double inf = std::numeric_limits<double>::infinity();
    g.deviceName = reader.text("device_name");
    if (const auto* launch = reader.object("launch")) {
        JsonReader r(*launch, reader.pointerOf("launch"), &error);
        g.launch = cudaOutcomeFrom(r);
    }
    if (const auto* sync = reader.object("synchronize")) {
        JsonReader r(*sync, reader.pointerOf("synchronize"), &error);
        g.synchronize = cudaOutcomeFrom(r);
    }
    if (const auto* records = reader.array("records")) {
        for (std::size_t i = 0; i < records->size() && !error; ++i) {
            auto record = recordFromJson((*records)[i], reader.pointerOf("records") + "/" + std::to_string(i));
            if (!record) return makeError(record.error());
            g.records.push_back(std::move(record).value());
        }
    }
    if (const auto* check = reader.object("check", true)) {
        JsonReader r(*check, reader.pointerOf("check"), &error);
        ReferenceCheck c;
        c.maxRelativeError = r.number("max_relative_error", 0.0, inf);
        c.bound = r.number("bound", 0.0, inf);
        c.passed = r.boolean("passed");
        g.check = c;
    }
    if (const auto* timing = reader.object("timing", true)) {
        JsonReader r(*timing, reader.pointerOf("timing"), &error);
        Timing t;
        t.repeats = static_cast<int>(r.integer("repeats", 0, std::numeric_limits<int>::max()));
        t.minUs = r.number("min_us", 0.0, inf);
        t.medianUs = r.number("median_us", 0.0, inf);
        t.meanUs = r.number("mean_us", 0.0, inf);
        // Traces written before CUPTI timing have neither field: their times came from events.
        if (timing->contains("source")) t.source = r.text("source");
        if (timing->contains("l2_flushed")) t.l2Flushed = r.boolean("l2_flushed");
        g.timing = t;
    }
    return finish(std::move(g), error);
}

namespace {

std::optional<SweepAxis> axisFromJson(const ordered_json& j, const ParameterList& parameters, const std::string& pointer,
                                      std::optional<std::string>& error) {
    JsonReader reader(j, pointer, &error);
    SweepAxis axis;
    const std::string name = reader.text("parameter");
    if (error) return std::nullopt;
    axis.parameter = parameterIndex(parameters, name);
    if (axis.parameter < 0) {
        reader.fail(reader.pointerOf("parameter"), "unknown parameter '" + name + "'");
        return std::nullopt;
    }
    const std::string scale = reader.text("scale");
    if (!error && scale != "log2" && scale != "linear") reader.fail(reader.pointerOf("scale"), "expected \"log2\" or \"linear\"");
    axis.scale = scale == "log2" ? AxisScale::Log2 : AxisScale::Linear;
    const auto* values = reader.array("values", false, kMaxAxisValuesRead);
    if (!values) return std::nullopt;
    if (values->empty()) reader.fail(reader.pointerOf("values"), "expected at least one value");
    const auto& spec = parameters[static_cast<std::size_t>(axis.parameter)];
    for (std::size_t i = 0; i < values->size() && !error; ++i) {
        const auto& v = (*values)[i];
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(spec.maximum)) ||
            v.get<std::int64_t>() < spec.minimum || v.get<std::int64_t>() > spec.maximum) {
            reader.fail(reader.pointerOf("values") + "/" + std::to_string(i), "expected an integer in [" + std::to_string(spec.minimum) +
                                                                                  ", " + std::to_string(spec.maximum) + "], got " +
                                                                                  describeJsonValue(v));
            break;
        }
        axis.values.push_back(v.get<std::int64_t>());
    }
    if (error) return std::nullopt;
    return axis;
}

}  // namespace

Result<BoundaryMap> boundaryMapFromJson(const ordered_json& j, const KernelRegistry& registry, const DeviceSpec& device,
                                        const std::string& pointer) {
    std::optional<std::string> error;
    JsonReader reader(j, pointer, &error);
    const std::string family = reader.text("kernel");
    const std::string variant = reader.text("variant");
    if (error) return makeError(*error);
    auto kernel = resolveKernel(registry, family, variant);
    if (!kernel) return makeError("at " + reader.pointerOf("kernel") + ": " + kernel.error());
    const auto& parameters = kernel->family->parameters();
    Shape base;
    if (const auto* shape = reader.object("shape")) {
        auto parsed = shapeFromJson(*shape, parameters, reader.pointerOf("shape"));
        if (!parsed) return makeError(parsed.error());
        base = *parsed;
    }
    std::optional<SweepAxis> x, y;
    if (const auto* xj = reader.object("x")) x = axisFromJson(*xj, parameters, reader.pointerOf("x"), error);
    if (const auto* yj = reader.object("y", true)) {
        y = axisFromJson(*yj, parameters, reader.pointerOf("y"), error);
        if (!error && y->parameter == x->parameter) reader.fail(reader.pointerOf("y"), "sweeps the same parameter as x");
    }
    const auto* cells = reader.array("cells");
    if (error) return makeError(*error);
    // The axes claim width x height cells: check the claim against the cells really present
    // before anything is allocated for it.
    const std::uint64_t claimed = static_cast<std::uint64_t>(x->values.size()) * (y ? y->values.size() : 1);
    if (claimed != cells->size())
        return makeError("at " + reader.pointerOf("cells") + ": expected " + std::to_string(claimed) +
                         " cells (x values x y values), got " + std::to_string(cells->size()));
    BoundaryMap map(*kernel, device, base, *x, y);
    for (int iy = 0; iy < map.height() && !error; ++iy) {
        for (int ix = 0; ix < map.width() && !error; ++ix) {
            const std::size_t index = static_cast<std::size_t>(iy) * static_cast<std::size_t>(map.width()) + static_cast<std::size_t>(ix);
            JsonReader r((*cells)[index], reader.pointerOf("cells") + "/" + std::to_string(index), &error);
            if (r.integer("x", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()) !=
                    map.xAxis().values[static_cast<std::size_t>(ix)] &&
                !error)
                r.fail(r.pointerOf("x"),
                       "expected " + std::to_string(map.xAxis().values[static_cast<std::size_t>(ix)]) + " (cells run along x, then y)");
            if (map.yAxis() && !error &&
                r.integer("y", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()) !=
                    map.yAxis()->values[static_cast<std::size_t>(iy)] &&
                !error)
                r.fail(r.pointerOf("y"), "expected " + std::to_string(map.yAxis()->values[static_cast<std::size_t>(iy)]));
            BoundaryCell& cell = map.cell(ix, iy);
            const std::string verdict = r.text("verdict");
            if (!error) {
                if (auto v = verdictFromName(verdict)) cell.verdict = *v;
                else r.fail(r.pointerOf("verdict"), "unknown verdict '" + verdict + "'");
            }
            cell.totalSmem = r.integer("smem", 0, kMaxFileInteger);
            cell.gridBlocks = r.integer("grid_blocks", 0, kMaxFileInteger);
            const auto occupancy = r.optionalNumber("occupancy_pct", 0.0, 100.0);
            cell.occupancyPct = occupancy ? static_cast<float>(*occupancy) : -1.0f;
            cell.paddingWaste = static_cast<float>(r.number("padding_waste", 0.0, 1.0));
            cell.tileIndex = static_cast<signed char>(r.optionalInteger("tile_index", -1, 127).value_or(-1));
            // Absent in maps written before split-KV: one pass.
            cell.splits = static_cast<int>(r.optionalInteger("splits", 1, kMaxSplitsRead).value_or(1));
            cell.callsLibrary = r.optionalBoolean("calls_library").value_or(false);
        }
    }
    return finish(std::move(map), error);
}

}  // namespace tilescope

// Model-mode subcommands: devices, kernels, plan, sweep. No GPU needed.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/series/launch_usage.h"
#include "core/series/boundary_colours.h"
#include "core/model/fix_finder.h"
#include "core/trace/json_io.h"
#include "core/model/launch_checks.h"
#include "core/series/roofline.h"
#include "core/model/sweep.h"
#include "kernels/builtin_kernels.h"
#include "kernels/runtime/device_query.h"

namespace tilescope::cli {

namespace {

using nlohmann::ordered_json;

const DeviceDatabase& database() { return DeviceDatabase::embedded(); }

using frontend::KernelOptions;
using frontend::orUsageError;
using frontend::resolve;
using frontend::Resolved;

void addKernelOptions(CLI::App* command, KernelOptions& options) {
    command->add_option("-k,--kernel", options.kernel, "kernel family (see 'tilescope-cli kernels')")->required();
    command->add_option("-v,--variant", options.variant, "variant of the family (default: its first)");
    command->add_option("-d,--device", options.device,
                        "device id from the database (see 'tilescope-cli devices') or a device .json file "
                        "(default: " +
                            database().defaultId() + ")");
    command->add_option("-s,--shape", options.shape, "parameters as NAME=VALUE,... (others keep their defaults)");
    command->add_option("--cuda", options.cuda,
                        "CUDA runtime major version whose launch errors to predict: 12 or 13 (default: the local "
                        "runtime with a GPU, else this build's toolkit, " +
                            std::to_string(toolkitCudaRuntime()) + ")");
}

void printJson(const ordered_json& j) { std::cout << j.dump(2) << '\n'; }

// ---- devices ----------------------------------------------------------------------------

void runDevices(const std::string& id, bool json) {
    if (!id.empty()) {
        const ordered_json j = frontend::deviceJson(id);
        if (json) return printJson(j);
        std::vector<std::vector<std::string>> rows{{"field", "value"}};
        for (const auto& [key, value] : j.items())
            rows.push_back({key, value.is_string() ? value.get<std::string>() : value.is_null() ? "unknown" : value.dump()});
        printTable(std::cout, rows);
        return;
    }
    if (json) return printJson(frontend::devicesJson());
    std::vector<std::vector<std::string>> rows{{"id", "name", "cc", "SMs", "smem/block opt-in", "smem/SM", "threads/SM", "memory"}};
    for (const auto& d : database().devices()) {
        rows.push_back({d.id + (d.id == database().defaultId() ? " *" : ""), d.name, d.computeCapability.toString(),
                        std::to_string(d.smCount), withThousands(d.smemPerBlockOptin) + " B", withThousands(d.smemPerSm) + " B",
                        std::to_string(d.maxThreadsPerSm), formatBytes(static_cast<double>(d.memoryBytes))});
    }
    printTable(std::cout, rows);
    std::cout << "\n* default device. 'tilescope-cli devices ID' shows every limit; --device also takes a .json file.\n";
}

// ---- kernels ----------------------------------------------------------------------------

void runKernels(const std::string& name, bool json) {
    if (json) return printJson(frontend::kernelsJson(name));
    std::vector<const KernelFamily*> families;
    if (!name.empty()) {
        families.push_back(orUsageError(resolveKernel(builtinKernels(), name, "")).family);
    } else {
        for (const auto& f : builtinKernels().families()) families.push_back(f.get());
    }
    for (const auto* f : families) {
        std::cout << f->name() << " - " << f->title() << '\n';
        std::cout << "  variants:\n";
        for (std::size_t i = 0; i < f->variants().size(); ++i) {
            const auto& v = f->variants()[i];
            std::cout << "    " << v.name << (i == 0 ? " (default)" : "") << ": " << v.description << '\n';
            std::cout << "      upstream: " << v.upstream << '\n';
        }
        std::vector<std::vector<std::string>> rows{{"    parameter", "default", "range", "scale", "meaning"}};
        for (const auto& p : f->parameters())
            rows.push_back({"    " + p.name, std::to_string(p.defaultValue), std::to_string(p.minimum) + ".." + std::to_string(p.maximum),
                            p.isFlag ? "flag" : (p.scale == AxisScale::Log2 ? "log2" : "linear"), p.help});
        printTable(std::cout, rows);
        std::cout << '\n';
    }
}

// ---- plan -------------------------------------------------------------------------------

// The launches after the main one (a split-KV combine): symbol, grid, block, shared
// memory, registers and occupancy of each.
void appendExtraLaunchRows(std::vector<std::vector<std::string>>& rows, const LaunchPlan& plan, const DeviceSpec& device) {
    for (const ExtraLaunch& e : plan.extraLaunches) {
        if (e.chosenByLibrary()) {  // cuBLAS picks its own kernel: only the work is known
            char work[96];
            std::snprintf(work, sizeof work, "%.3g GFLOP, ", e.flops / 1e9);
            rows.push_back(
                {"then", std::string(e.role) + " by " + std::string(e.library) + (e.why.empty() ? "" : ": " + std::string(e.why))});
            rows.push_back({"  work", std::string(work) + formatBytes(e.bytesMoved) + " moved at least"});
            rows.push_back({"  launch", "chosen by " + std::string(e.library) + " at run time: " + std::string(e.unknown)});
            continue;
        }
        rows.push_back({"then", std::string(e.role) + " kernel " + std::string(e.kernelSymbol)});
        rows.push_back({"  grid", formatDim(e.grid) + " = " + withThousands(e.grid.volume()) + " blocks"});
        rows.push_back({"  block", formatDim(e.block) + " = " + withThousands(e.threadsPerBlock()) + " threads"});
        rows.push_back({"  shared memory", "static " + withThousands(e.staticSmem) + " B, dynamic " + withThousands(e.dynamicSmem) + " B"});
        rows.push_back({"  registers", e.registers ? std::to_string(*e.registers) + " per thread"
                                                   : "unknown (no ptxas resource table for " + device.archName() + " in this build)"});
        if (e.occupancy) {
            char text[96];
            std::snprintf(text, sizeof text, "%.1f %% (%d blocks per SM), %.2f waves", e.occupancy->occupancyPct,
                          e.occupancy->activeBlocksPerSm, e.occupancy->waves);
            rows.push_back({"  occupancy", text});
        }
    }
}

// The model-mode estimate of a plan on a device's datasheet roofline, as one line of text.
std::string estimateText(const LaunchPlan& plan, const DeviceSpec& device) {
    const Roofline ceilings = datasheetRoofline(device, database());
    if (!plan.ok()) return "none (the call does not run)";
    const auto estimate = estimateTime(plan, ceilings, rooflineDtypeOf(plan.family, builtinKernels()));
    if (!estimate) return "unknown (" + device.id + " has no datasheet bandwidth or peak for this call)";
    return formatEstimate(*estimate, ceilings.source) + (plan.occupancy ? "" : ", waves unknown (needs the register count)");
}

void printPlan(const LaunchPlan& plan, const KernelChoice& kernel, const DeviceSpec& device, bool withEstimate = false) {
    const auto& parameters = kernel.family->parameters();
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"kernel", std::string(plan.family) + " / " + std::string(plan.variant)});
    rows.push_back({"device", device.id + " (" + device.name + ", " + device.archName() + ")"});
    rows.push_back({"shape", formatShape(plan.shape, parameters)});
    rows.push_back({"verdict", std::string(verdictName(plan.verdict)) + (plan.message.empty() ? "" : ": " + plan.message)});
    if (plan.limit) rows.push_back({"limit", describeLimit(*plan.limit)});
    if (plan.cudaError) rows.push_back({"cuda error", describeCudaError(plan, device.cudaRuntime)});
    if (!plan.fix.empty()) rows.push_back({"fix", plan.fix});
    const bool launched = plan.verdict >= Verdict::InvalidLaunch;
    if (launched) {
        rows.push_back({"grid", formatDim(plan.grid) + " = " + withThousands(plan.grid.volume()) + " blocks"});
        rows.push_back({"block", formatDim(plan.block) + " = " + withThousands(plan.threadsPerBlock()) + " threads"});
        rows.push_back({"shared memory", "static " + withThousands(plan.staticSmem) + " B, dynamic " + withThousands(plan.dynamicSmem) +
                                             " B" + (plan.optsIntoLargeSmem ? " (opts in above the 48 KB default)" : "")});
        rows.push_back({"registers", plan.registers ? std::to_string(*plan.registers) + " per thread"
                                     : !kernel.hasDeviceCode()
                                         ? std::string("unknown (its own compiler picks them: Tilescope builds no code for this kernel)")
                                         : "unknown (no ptxas resource table for " + device.archName() + " in this build)"});
        if (plan.occupancy) {
            const auto& o = *plan.occupancy;
            std::string limiters;
            for (const auto& l : o.limiterNames()) limiters += (limiters.empty() ? "" : ", ") + l;
            char pct[64];
            std::snprintf(pct, sizeof pct, "%.1f %%", o.occupancyPct);
            char waves[64];
            std::snprintf(waves, sizeof waves, "%.2f", o.waves);
            rows.push_back({"occupancy", std::string(pct) + " (" + std::to_string(o.activeBlocksPerSm) + " blocks, " +
                                             std::to_string(o.activeWarpsPerSm) + "/" + std::to_string(o.maxWarpsPerSm) +
                                             " warps per SM; limited by " + limiters + "), " + waves + " waves"});
        } else {
            rows.push_back({"occupancy", plan.ok() ? "unknown (needs the register count)" : "-"});
        }
    }
    if (launched) appendExtraLaunchRows(rows, plan, device);
    if (!plan.tile.empty()) rows.push_back({"tile", std::string(plan.tile)});
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
        const auto& c = plan.candidates[i];
        rows.push_back({i == 0 ? "candidates" : "", std::string(c.name) + ": " + withThousands(c.smemBytes) + " B" +
                                                        (c.fits ? "" : " (over " + withThousands(device.smemPerBlockOptin) + " B)") +
                                                        (static_cast<int>(i) == plan.tileIndex ? "  <- chosen" : "")});
    }
    if (plan.bucketCell) rows.push_back({"bucket", "M cell " + std::to_string(*plan.bucketCell)});
    if (launched && plan.paddingWaste > 0) {
        char waste[32];
        std::snprintf(waste, sizeof waste, "%.1f %%", plan.paddingWaste * 100.0);
        rows.push_back({"padding waste", waste});
    }
    // No launch moves nothing: zero bytes and FLOPs is a planner that models no traffic (a launch by its figures).
    if (launched && plan.bytesMoved == 0.0 && plan.flops == 0.0) {
        rows.push_back({"traffic", "unknown (this kernel's plan models no memory traffic)"});
    } else if (launched) {
        char traffic[96];
        std::snprintf(traffic, sizeof traffic, "%s moved, %.3g GFLOP", formatBytes(plan.bytesMoved).c_str(), plan.flops / 1e9);
        rows.push_back({"traffic", traffic});
    }
    if (!plan.note.empty()) rows.push_back({"note", plan.note});
    if (withEstimate) {
        rows.push_back({"estimate", estimateText(plan, device)});
        rows.push_back({"roofline", formatRoofline(datasheetRoofline(device, database()))});
    }
    printTable(std::cout, rows);
}

int runPlan(const KernelOptions& options, bool json, const std::string& tracePath, bool withEstimate) {
    const Resolved r = resolve(options);
    const LaunchPlan plan = planWithFix(r.kernel, r.shape, r.device, &database());
    if (!tracePath.empty()) savePlanTrace(plan, r.kernel, r.device, tracePath);
    if (json) {
        printJson(frontend::planJson(plan, r, withEstimate));
    } else {
        printPlan(plan, r.kernel, r.device, withEstimate);
    }
    return plan.ok() ? kExitOk : kExitFails;
}

// ---- sweep ------------------------------------------------------------------------------

std::string csvOf(const BoundaryMap& map) {
    const auto& parameters = map.kernel().family->parameters();
    std::ostringstream out;
    out << parameters[static_cast<std::size_t>(map.xAxis().parameter)].name;
    if (map.yAxis()) out << ',' << parameters[static_cast<std::size_t>(map.yAxis()->parameter)].name;
    out << ",verdict,smem,grid_blocks,occupancy_pct,padding_waste,splits\n";
    for (int iy = 0; iy < map.height(); ++iy) {
        for (int ix = 0; ix < map.width(); ++ix) {
            const auto& cell = map.cell(ix, iy);
            out << map.xAxis().values[static_cast<std::size_t>(ix)];
            if (map.yAxis()) out << ',' << map.yAxis()->values[static_cast<std::size_t>(iy)];
            out << ',' << verdictName(cell.verdict) << ',' << cell.totalSmem << ',' << cell.gridBlocks << ',';
            if (cell.occupancyPct >= 0) out << cell.occupancyPct;
            out << ',' << cell.paddingWaste << ',' << cell.splits << '\n';
        }
    }
    return out.str();
}

// An ok cell's split count as one character; a failing cell keeps its verdict's glyph.
char splitGlyph(const BoundaryCell& cell) {
    if (cell.verdict != Verdict::Ok) return verdictGlyph(cell.verdict);
    if (cell.splits >= 1 && cell.splits <= 9) return static_cast<char>('0' + cell.splits);
    if (cell.splits >= 10 && cell.splits <= 35) return static_cast<char>('a' + (cell.splits - 10));
    return '#';
}

void printSweepText(const BoundaryMap& map) {
    const auto& parameters = map.kernel().family->parameters();
    const auto& xName = parameters[static_cast<std::size_t>(map.xAxis().parameter)].name;
    std::cout << map.kernel().family->name() << " / " << map.kernel().variantName() << " on " << map.device().id << " ("
              << map.device().archName() << "), base " << formatShape(map.baseShape(), parameters) << '\n';
    for (const SweepAxis* axis : {&map.xAxis(), map.yAxis() ? &*map.yAxis() : nullptr})
        if (axis && !axis->followers.empty()) std::cout << "note: " << followerNote(*axis, parameters) << '\n';
    std::cout << '\n';
    // Where the planner's split count (split-KV num_splits, split-K) changes, runs and maps show it too.
    const bool splitsChange = splitCountChanges(map);
    if (!map.yAxis()) {
        // One row per run of equal verdicts (and split counts): the boundaries are where the rows change.
        std::vector<std::vector<std::string>> rows{{xName, "verdict", "message (first value of the run)"}};
        if (splitsChange) rows.front().insert(rows.front().begin() + 2, "splits");
        auto same = [&](int a, int b) {
            const BoundaryCell &p = map.cell(a, 0), &q = map.cell(b, 0);
            return p.verdict == q.verdict && (!splitsChange || p.splits == q.splits);
        };
        int start = 0;
        for (int ix = 1; ix <= map.width(); ++ix) {
            if (ix < map.width() && same(ix, start)) continue;
            const auto from = map.xAxis().values[static_cast<std::size_t>(start)];
            const auto to = map.xAxis().values[static_cast<std::size_t>(ix - 1)];
            const LaunchPlan plan = map.planAt(start, 0, nullptr);
            rows.push_back({from == to ? std::to_string(from) : std::to_string(from) + " .. " + std::to_string(to),
                            std::string(verdictName(plan.verdict)), plan.message});
            if (splitsChange) rows.back().insert(rows.back().begin() + 2, std::to_string(map.cell(start, 0).splits));
            start = ix;
        }
        printTable(std::cout, rows);
    } else {
        const auto& yName = parameters[static_cast<std::size_t>(map.yAxis()->parameter)].name;
        std::cout << "rows: " << yName << " (top = largest), columns: " << xName << " " << map.xAxis().values.front() << " .. "
                  << map.xAxis().values.back() << "\n";
        std::size_t labelWidth = 0;
        for (auto v : map.yAxis()->values) labelWidth = std::max(labelWidth, std::to_string(v).size());
        for (int iy = map.height() - 1; iy >= 0; --iy) {
            std::string label = std::to_string(map.yAxis()->values[static_cast<std::size_t>(iy)]);
            std::string line(labelWidth - label.size(), ' ');
            line += label + " ";
            for (int ix = 0; ix < map.width(); ++ix) line += verdictGlyph(map.cell(ix, iy).verdict);
            std::cout << line << '\n';
        }
        if (splitsChange) {
            const auto [fewest, most] = splitCountRange(map);
            std::cout << "\nsplits of the ok cells (" << fewest << " .. " << most
                      << "; 1-9, a = 10 .. z = 35, # = 36 or more; other cells as above):\n";
            for (int iy = map.height() - 1; iy >= 0; --iy) {
                std::string label = std::to_string(map.yAxis()->values[static_cast<std::size_t>(iy)]);
                std::string line(labelWidth - label.size(), ' ');
                line += label + " ";
                for (int ix = 0; ix < map.width(); ++ix) line += splitGlyph(map.cell(ix, iy));
                std::cout << line << '\n';
            }
        }
    }
    std::cout << "\nlegend:";
    const auto counts = map.verdictCounts();
    for (Verdict v : kAllVerdicts)
        if (counts[static_cast<std::size_t>(v)] > 0)
            std::cout << "  " << verdictGlyph(v) << " " << verdictName(v) << " (" << counts[static_cast<std::size_t>(v)] << ")";
    std::cout << '\n';
}

struct SweepCommandOptions {
    KernelOptions kernel;
    std::string x, y, out;
    std::string trace;  // --trace FILE
    bool json = false, csv = false;
    int threads = 1;
    bool run = false;  // --run: every cell on the local GPU (commands_run.cpp)
    int repeat = 5;
    bool flushL2 = false;     // --flush-l2 with --run
    std::string calibration;  // --calibration FILE with --run
    bool estimate = false;    // --estimate: the roofline estimate per cell (1-D, model mode)
};

// `sweep --estimate`: one row per cell with its tile, waves and model-mode roofline estimate.
void printSweepEstimates(const BoundaryMap& map) {
    const auto& parameters = map.kernel().family->parameters();
    const Roofline ceilings = datasheetRoofline(map.device(), database());
    std::cout << map.kernel().family->name() << " / " << map.kernel().variantName() << " on " << map.device().id << ", base "
              << formatShape(map.baseShape(), parameters) << ": model-mode estimates (not measured)\n"
              << "roofline " << formatRoofline(ceilings) << "\n\n";
    std::vector<std::vector<std::string>> rows{
        {parameters[static_cast<std::size_t>(map.xAxis().parameter)].name, "verdict", "tile", "waves", "estimate (us)", "bound (us)"}};
    for (int ix = 0; ix < map.width(); ++ix) {
        const LaunchPlan plan = map.planAt(ix, 0, nullptr);
        const auto estimate = estimateTime(plan, ceilings, rooflineDtypeOf(plan.family, builtinKernels()));
        char waves[32] = "unknown", estimateUs[32] = "-", boundUs[32] = "-";
        if (plan.occupancy) std::snprintf(waves, sizeof waves, "%.2f", plan.occupancy->waves);
        if (estimate) {
            std::snprintf(estimateUs, sizeof estimateUs, "%.2f", estimate->estimateUs);
            std::snprintf(boundUs, sizeof boundUs, "%.2f", estimate->boundUs);
        }
        rows.push_back({std::to_string(map.xAxis().values[static_cast<std::size_t>(ix)]), std::string(verdictName(plan.verdict)),
                        plan.tile.empty() ? "-" : std::string(plan.tile), plan.ok() ? waves : "-", estimateUs, boundUs});
    }
    printTable(std::cout, rows);
    std::cout << "estimate = roofline bound (max of bytes / bandwidth, FLOPs / peak) x ceil(waves) / waves\n";
}

int runSweep(const SweepCommandOptions& o) {
    const Resolved r = resolve(o.kernel);
    auto [x, y] = frontend::sweepAxes(r, o.x, o.y);
    if (o.run) return runSweepOnGpu(r.kernel, r.shape, x, y, o.repeat, true, o.flushL2, o.calibration);
    if (!o.calibration.empty()) throw UsageError{"--calibration applies to --run (measured cells)"};
    if (o.estimate && y) throw UsageError{"--estimate prints one row per cell of a 1-D sweep (no --y)"};
    if (o.estimate && (o.json || o.csv)) throw UsageError{"--estimate prints a table (no --json or --csv)"};
    BoundaryMap map(r.kernel, r.device, r.shape, std::move(x), std::move(y));
    SweepOptions sweepOptions;
    sweepOptions.threads = o.threads;
    evaluateBoundaryMap(map, sweepOptions);
    if (!o.trace.empty()) saveSweepTrace(map, o.trace);

    std::string text;
    if (o.json) text = boundaryMapToJson(map).dump(2) + "\n";
    else if (o.csv) text = csvOf(map);
    if (!o.out.empty()) {
        if (text.empty()) throw UsageError{"--out needs --json or --csv"};
        std::ofstream file(o.out, std::ios::binary);
        if (!(file << text)) throw UsageError{"cannot write " + o.out};
        std::cerr << "wrote " << map.cellCount() << " cells to " << o.out << '\n';
    } else if (!text.empty()) {
        std::cout << text;
    } else if (o.estimate) {
        printSweepEstimates(map);
    } else {
        printSweepText(map);
    }
    return kExitOk;
}

}  // namespace

void addDevicesCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("devices", "List the GPUs in the database, or every limit of one");
    auto id = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    command->add_option("id", *id, "a device id or device .json file to show in full");
    command->add_flag("--json", *json, "machine-readable output");
    command->callback([=, &exitCode] {
        runDevices(*id, *json);
        exitCode = kExitOk;
    });
}

void addKernelsCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("kernels", "List kernel families, their variants and parameters");
    auto name = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    command->add_option("kernel", *name, "one family to show");
    command->add_flag("--json", *json, "machine-readable output");
    command->callback([=, &exitCode] {
        runKernels(*name, *json);
        exitCode = kExitOk;
    });
}

void addPlanCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("plan",
                                       "Plan one kernel call: launch, shared memory, occupancy, verdict and fix.\n"
                                       "Exit 0 when it launches, 1 when it fails.");
    auto options = std::make_shared<KernelOptions>();
    auto json = std::make_shared<bool>(false);
    addKernelOptions(command, *options);
    command->add_flag("--json", *json,
                      "one JSON object (kernel, variant, device, shape, verdict, message, limit, fix, launch, tile, occupancy, ...)");
    auto tracePath = std::make_shared<std::string>();
    command->add_option("--trace", *tracePath, "also save the plan as a predicted run in a trace file (X.tilescope.json)");
    auto estimate = std::make_shared<bool>(false);
    command->add_flag("--estimate", *estimate, "also the model-mode time estimate on the device's datasheet roofline (not a measurement)");
    command->callback([=, &exitCode] { exitCode = runPlan(*options, *json, *tracePath, *estimate); });
}

void addSweepCommand(CLI::App& app, int& exitCode) {
    auto* command = app.add_subcommand("sweep",
                                       "Evaluate a 1-D or 2-D boundary map over parameters (model mode).\n"
                                       "Axes: NAME=FROM:TO:xF (multiply), NAME=FROM:TO:+S (add) or NAME=V1,V2,...");
    auto o = std::make_shared<SweepCommandOptions>();
    addKernelOptions(command, o->kernel);
    command->add_option("--x", o->x, "first axis, e.g. M=1:4096:x2")->required();
    command->add_option("--y", o->y, "second axis, e.g. head_dim=32:512:+16");
    auto* json = command->add_flag("--json", o->json, "the map as JSON");
    command->add_flag("--csv", o->csv, "the map as CSV, one row per cell")->excludes(json);
    command->add_option("-o,--out", o->out, "write the JSON/CSV to FILE");
    command->add_option("-j,--threads", o->threads, "worker threads (0: all cores)")->check(CLI::Range(0, 1024));
    command->add_flag("--run", o->run, "run every cell on the local GPU (plans on the live device); one JSON line per finished cell");
    command->add_option("--repeat", o->repeat, "with --run: timed repeats per cell")->check(CLI::Range(0, 100000));
    command->add_flag("--flush-l2", o->flushL2, "with --run: evict L2 before every timed repeat (cold weights, as in a model)");
    command->add_option("--trace", o->trace, "also save the map in a trace file (X.tilescope.json) that reopens as it was");
    command->add_option("--calibration", o->calibration,
                        "with --run: hold each cell against this GPU's measured roofline (from 'calibrate --json')");
    command->add_flag("--estimate", o->estimate,
                      "1-D model mode: each cell's time estimate on the device's datasheet roofline (not measured)");
    command->callback([=, &exitCode] { exitCode = runSweep(*o); });
}

}  // namespace tilescope::cli

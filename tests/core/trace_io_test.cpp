// Native trace format: round trips, atomic writes, and clear errors (never a crash) for malformed files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/trace/kineto_import.h"
#include "core/trace/native_trace_reader.h"
#include "core/model/sweep.h"
#include "core/trace/trace_io.h"
#include "trace_fixture.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("tilescope_trace_io_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

Result<Trace> readText(const std::string& text) { return readTraceText(text, "test.tilescope.json", builtinKernels()); }

TEST(TraceIo, RoundTripIsExact) {
    const Trace original = test::fixtureTrace();
    const auto path = scratch("fixture.tilescope.json").string();
    ASSERT_TRUE(writeTraceFile(original, path).ok());
    auto read = readTraceFile(path, builtinKernels());
    ASSERT_TRUE(read.ok()) << read.error();
    // Byte-exact on a second write...
    EXPECT_EQ(traceToText(*read), traceToText(original));
    // ...and the values themselves.
    EXPECT_EQ(read->build, original.build);
    EXPECT_EQ(read->notes, original.notes);
    ASSERT_EQ(read->devices.size(), 3u);
    EXPECT_EQ(read->devices[2].id, "local:0");
    EXPECT_EQ(read->devices[1].smemPerBlockOptin, original.devices[1].smemPerBlockOptin);
    ASSERT_EQ(read->runs.size(), original.runs.size());
    for (std::size_t i = 0; i < original.runs.size(); ++i) {
        const auto& a = original.runs[i];
        const auto& b = read->runs[i];
        EXPECT_EQ(a.kind, b.kind);
        EXPECT_EQ(a.plan.family, b.plan.family);
        EXPECT_EQ(a.plan.variant, b.plan.variant);
        EXPECT_EQ(a.plan.shape, b.plan.shape);
        EXPECT_EQ(a.plan.verdict, b.plan.verdict);
        EXPECT_EQ(a.plan.message, b.plan.message);
        EXPECT_EQ(a.plan.grid, b.plan.grid);
        EXPECT_EQ(a.plan.block, b.plan.block);
        EXPECT_EQ(a.plan.totalSmem(), b.plan.totalSmem());
        EXPECT_EQ(a.plan.registers, b.plan.registers);
        EXPECT_EQ(a.plan.fix, b.plan.fix);
        EXPECT_EQ(a.plan.tileIndex, b.plan.tileIndex);
        EXPECT_EQ(a.plan.failingParameter, b.plan.failingParameter);
        EXPECT_EQ(a.plan.occupancy.has_value(), b.plan.occupancy.has_value());
        if (a.plan.occupancy) {
            EXPECT_EQ(a.plan.occupancy->occupancyPct, b.plan.occupancy->occupancyPct);
            EXPECT_EQ(a.plan.occupancy->limiters, b.plan.occupancy->limiters);
            EXPECT_EQ(a.plan.occupancy->blockLimitRegisters, b.plan.occupancy->blockLimitRegisters);
        }
        EXPECT_EQ(a.gpu.has_value(), b.gpu.has_value());
    }
    EXPECT_EQ(read->runs[0].kind, RunKind::Predicted);
    EXPECT_FALSE(read->runs[0].gpu);
    const auto& failed = *read->runs[3].gpu;
    EXPECT_EQ(failed.launch.errorName, "cudaErrorInvalidConfiguration");
    EXPECT_EQ(failed.launch.code, 9);
    EXPECT_TRUE(std::isinf(failed.check->maxRelativeError));
    const auto& good = *read->runs[2].gpu;
    ASSERT_EQ(good.records.size(), 1u);
    EXPECT_EQ(good.records[0].staticSmem, 10'496);
    EXPECT_EQ(good.timing->medianUs, 12.5);

    ASSERT_EQ(read->sweeps.size(), 1u);
    const auto& map = read->sweeps[0];
    const auto& before = original.sweeps[0];
    EXPECT_EQ(map.device().id, "t4");
    EXPECT_EQ(map.xAxis().values, before.xAxis().values);
    ASSERT_EQ(map.cells().size(), before.cells().size());
    for (std::size_t i = 0; i < map.cells().size(); ++i) {
        EXPECT_EQ(map.cells()[i].verdict, before.cells()[i].verdict);
        EXPECT_EQ(map.cells()[i].occupancyPct, before.cells()[i].occupancyPct);
        EXPECT_EQ(map.cells()[i].tileIndex, before.cells()[i].tileIndex);
        EXPECT_EQ(map.cells()[i].totalSmem, before.cells()[i].totalSmem);
    }
    // The reopened map recomputes any cell's full plan, as the live one does.
    EXPECT_EQ(map.planAt(3, 1, nullptr).message, before.planAt(3, 1, nullptr).message);

    ASSERT_EQ(read->records.size(), 2u);
    EXPECT_EQ(read->records[0].launchStartNs, original.records[0].launchStartNs);
    EXPECT_EQ(read->records[0].sharedMemory, 67'584);
    EXPECT_FALSE(read->records[1].registersPerThread);
    fs::remove_all(fs::path(path).parent_path());
}

TEST(TraceIo, WriteIsAtomicAndLeavesNoTemporary) {
    const auto path = scratch("atomic.tilescope.json");
    std::ofstream(path) << "old contents";
    ASSERT_TRUE(writeTraceFile(test::fixtureTrace(), path.string()).ok());
    int files = 0;
    for (const auto& entry : fs::directory_iterator(path.parent_path())) files += entry.path() == path ? 1 : 100;
    EXPECT_EQ(files, 1) << "a temporary file was left behind";
    EXPECT_TRUE(readTraceFile(path.string(), builtinKernels()).ok());
    // A folder that does not exist: an error, and the message names the path.
    auto failed = writeTraceFile(test::fixtureTrace(), (path.parent_path() / "missing" / "x.tilescope.json").string());
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().find("missing"), std::string::npos);
    fs::remove_all(path.parent_path());
}

TEST(TraceIo, UnknownKeysOfTheSameMajorVersionAreIgnored) {
    auto j = traceToJson(test::fixtureTrace());
    j["added_in_1_5"] = {{"anything", 1}};
    j["runs"][0]["plan"]["future_field"] = "x";
    auto read = readText(j.dump());
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(read->runs.size(), 4u);
}

struct Malformed {
    const char* name;
    std::string text;
    const char* expected;  // a piece of the error message
};

std::string withRunField(const std::string& pointer, const nlohmann::ordered_json& value) {
    auto j = traceToJson(test::fixtureTrace());
    j[nlohmann::ordered_json::json_pointer(pointer)] = value;
    return j.dump();
}

std::vector<Malformed> malformedCases() {
    const std::string good = traceToText(test::fixtureTrace());
    std::string deep = "{\"format\": \"tilescope-trace\", \"version\": 1, \"runs\": ";
    deep += std::string(10'000, '[') + std::string(10'000, ']') + "}";
    // Axes that claim 65,536 x 65,536 = 4,294,967,296 cells over a handful really present.
    auto claimed = traceToJson(test::fixtureTrace());
    auto& sweep = claimed["sweeps"][0];
    std::vector<std::int64_t> many(65'536, 64);
    sweep["x"]["values"] = many;
    sweep["y"]["values"] = many;
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919 + 13) % 256);

    return {
        {"empty", "", "empty file"},
        {"whitespace", "  \n\t ", "empty file"},
        {"truncated", good.substr(0, good.size() / 2), "not valid JSON at byte"},
        {"garbage", garbage, "not valid JSON at byte"},
        {"deep nesting", deep, "nested deeper than 64"},
        {"not an object", "[1, 2, 3]", "expected a tilescope-trace object"},
        {"wrong format", R"({"format": "chrome", "version": 1})", "at /format"},
        {"newer major version", R"({"format": "tilescope-trace", "version": 2, "runs": "whatever"})", "version 2 is newer"},
        {"absurd version", R"({"format": "tilescope-trace", "version": 99999999999999999999})", "at /version"},
        {"huge version", R"({"format": "tilescope-trace", "version": 18446744073709551615})", "newer than this build"},
        {"version as text", R"({"format": "tilescope-trace", "version": "1"})", "at /version"},
        {"number overflow", R"({"format": "tilescope-trace", "version": 1, "x": 1e400})", "not valid JSON"},
        {"runs not an array", withRunField("/runs", "none"), "at /runs: expected an array"},
        {"grid of strings", withRunField("/runs/0/plan/launch/grid", {"a", "b", "c"}), "at /runs/0/plan/launch/grid/0"},
        {"grid of two", withRunField("/runs/0/plan/launch/grid", {1, 2}), "expected an array of 3 integers"},
        {"absurd grid", withRunField("/runs/0/plan/launch/grid/1", 1e300), "at /runs/0/plan/launch/grid/1"},
        {"unknown verdict", withRunField("/runs/1/plan/verdict", "maybe"), "unknown verdict 'maybe'"},
        {"measured without gpu", withRunField("/runs/2/gpu", nullptr), "a measured run needs its GPU results"},
        {"predicted with gpu", withRunField("/runs/0/gpu", {{"device_name", "x"}}), "a predicted run carries no GPU results"},
        {"negative smem", withRunField("/runs/0/plan/launch/dynamic_smem", -1), "dynamic_smem"},
        {"bad device", withRunField("/devices/0/sm_count", "many"), "sm_count"},
        {"claimed cells", claimed.dump(), "expected 4294967296 cells"},
        {"unknown family sweep", withRunField("/sweeps/0/kernel", "no_such_kernel"), "unknown kernel 'no_such_kernel'"},
        {"record end before start", withRunField("/records/0/end_ns", 0), "end_ns >= start_ns"},
        {"huge record array claim", withRunField("/records/0/grid", {1000000000, 1000000000, 1000000000}), nullptr},
    };
}

TEST(TraceIo, MalformedFilesGiveClearErrors) {
    for (const auto& c : malformedCases()) {
        SCOPED_TRACE(c.name);
        auto read = readText(c.text);
        if (!c.expected) {
            // Legal but absurd figures are read as they are (a record is what a tracer saw).
            EXPECT_TRUE(read.ok()) << read.error();
            continue;
        }
        ASSERT_FALSE(read.ok());
        EXPECT_NE(read.error().find(c.expected), std::string::npos) << read.error();
        EXPECT_EQ(read.error().rfind("test.tilescope.json: ", 0), 0u) << read.error();
    }
}

TEST(TraceIo, RunsOfAFamilyThisBuildDoesNotKnowAreKept) {
    auto j = traceToJson(test::fixtureTrace());
    j["runs"][0]["plan"]["kernel"] = "future_kernel";
    j["runs"][0]["plan"]["fix_shape"] = nullptr;
    auto read = readText(j.dump());
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(read->runs[0].plan.family, "future_kernel");
    EXPECT_EQ(read->runs[0].parameters.size(), test::fixtureTrace().runs[0].parameters.size());
}

// ---- the reader on simdjson (core/native_trace_reader) against the DOM reader

// The fast reader's result, or nullopt when it declines.
std::optional<Trace> readFast(const std::string& text) { return readNativeTraceText(text, builtinKernels()); }

// Both readers on one text: the fast one must take it, and read it to the same bytes.
void expectSameReading(const std::string& text, const std::string& what) {
    SCOPED_TRACE(what);
    auto dom = readTraceTextDom(text, what, builtinKernels());
    ASSERT_TRUE(dom.ok()) << dom.error();
    auto fast = readFast(text);
    ASSERT_TRUE(fast.has_value()) << "the simdjson reader declined a trace the DOM reader reads";
    EXPECT_EQ(traceToText(*fast), traceToText(*dom));
    EXPECT_EQ(fast->records.size(), dom->records.size());
    EXPECT_EQ(fast->sweeps.size(), dom->sweeps.size());
    auto viaApi = readTraceText(text, what, builtinKernels());
    ASSERT_TRUE(viaApi.ok()) << viaApi.error();
    EXPECT_EQ(traceToText(*viaApi), traceToText(*dom));
    // The same text streamed from a file.
    const fs::path path = fs::temp_directory_path() / ("tilescope_same_reading_" + std::to_string(::getpid()) + ".tilescope.json");
    std::ofstream(path, std::ios::binary) << text;
    auto fromFile = readNativeTraceFile(path.string(), builtinKernels());
    fs::remove(path);
    ASSERT_TRUE(fromFile.has_value()) << "the simdjson reader declined the trace from a file";
    EXPECT_EQ(traceToText(*fromFile), traceToText(*dom));
}

std::string fileText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every native trace the repository holds (tests/data, resources/samples, found by content).
TEST(TraceIo, TheSimdjsonReaderReadsEveryBundledNativeTraceAsTheDomReader) {
    int found = 0;
    for (const char* folder : {"/tests/data", "/resources/samples"}) {
        for (const auto& entry : fs::recursive_directory_iterator(std::string(TILESCOPE_SOURCE_DIR) + folder)) {
            if (!entry.is_regular_file() || entry.path().extension() == ".gz") continue;
            const std::string text = fileText(entry.path());
            if (text.substr(0, 4096).find("\"tilescope-trace\"") == std::string::npos) continue;
            ++found;
            expectSameReading(text, entry.path().string());
        }
    }
    EXPECT_GE(found, 1) << "tests/data/trace_golden.tilescope.json at least";
}

// A trace like a session's: a real profiler trace's records (hta_alexnet_a100, imported), runs,
// and a 2-D and a 1-D boundary map; then the values the writers spell specially.
TEST(TraceIo, TheSimdjsonReaderReadsASessionTraceAsTheDomReader) {
    Trace trace =
        openTraceFile(std::string(TILESCOPE_SOURCE_DIR) + "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels()).value();
    ASSERT_EQ(trace.records.size(), 79u);
    const Trace fixture = test::fixtureTrace();
    trace.runs = fixture.runs;
    for (const auto& d : fixture.devices) trace.addDevice(d);
    const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
    trace.addDevice(h100);
    const KernelChoice gemm = resolveKernel(builtinKernels(), "awq_gemm", "legacy_grid_y").value();
    const auto& parameters = gemm.family->parameters();
    BoundaryMap map(gemm, h100, Shape::defaults(parameters), parseSweepAxis("M=128:32768:x2", parameters).value(),
                    parseSweepAxis("N=64:16384:x2", parameters).value());
    evaluateBoundaryMap(map, {});
    trace.sweeps.push_back(std::move(map));
    BoundaryMap line(gemm, h100, Shape::defaults(parameters), parseSweepAxis("K=128:65536:x2", parameters).value(), std::nullopt);
    evaluateBoundaryMap(line, {});
    trace.sweeps.push_back(std::move(line));
    trace.sweeps.insert(trace.sweeps.end(), fixture.sweeps.begin(), fixture.sweeps.end());
    const std::string text = traceToText(trace);
    expectSameReading(text, "session trace");

    // Non-finite figures as the writers spell them, nulls, a duplicated key (the last one counts,
    // as in nlohmann's parser), unknown keys, minified text.
    auto j = traceToJson(trace);
    j["records"][0]["kineto_occupancy_pct"] = "nan";
    j["records"][1]["kineto_occupancy_pct"] = "-inf";
    j["records"][2]["launch_api"] = nullptr;
    j["records"][3]["future"] = {{"nested", {1, 2, 3}}};
    j["sweeps"][0]["cells"][0]["occupancy_pct"] = nullptr;
    j["sweeps"][0]["cells"][1].erase("splits");
    j["sweeps"][0]["cells"][2].erase("tile_index");
    std::string minified = j.dump();
    const std::string firstName = "\"name\":";
    const auto at = minified.find(firstName, minified.find("\"records\""));
    ASSERT_NE(at, std::string::npos);
    minified.insert(at, "\"name\":\"overwritten by the next key\",");
    expectSameReading(minified, "special values");
    EXPECT_EQ(readFast(minified)->records[0].name, trace.records[0].name);

    // The streamed reader holds a sweep's cells until its other members are read: the cells first
    // (the writer puts them before "device_spec"), and a duplicated "cells" whose last one counts.
    auto reordered = traceToJson(trace);
    for (auto& sweep : reordered["sweeps"]) {
        auto moved = decltype(reordered)::object();
        moved["cells"] = sweep["cells"];
        for (const auto& [key, value] : sweep.items()) moved[key] = value;
        sweep = moved;
    }
    const std::string oneCell = "\"cells\": [" + reordered["sweeps"][0]["cells"][0].dump() + "],";
    std::string twoCells = reordered.dump();
    const auto cellsAt = twoCells.find("\"cells\":");
    ASSERT_NE(cellsAt, std::string::npos);
    twoCells.insert(cellsAt, oneCell);
    expectSameReading(twoCells, "cells first, and twice");
}

// The Boundaries map's dispatch line (awq_gemm autoawq: dequantize + cuBLAS from M = 1024) comes from
// the cells' callsLibrary flag; a saved map must reopen with it, through both readers.
TEST(TraceIo, AStacksDispatchSurvivesTheRoundTrip) {
    const DeviceSpec& h200 = *DeviceDatabase::embedded().find("h200");
    const KernelChoice autoawq = resolveKernel(builtinKernels(), "awq_gemm", "autoawq").value();
    BoundaryMap map(autoawq, h200, Shape::defaults(autoawq.family->parameters()),
                    parseSweepAxis("M=256:4096:x2", autoawq.family->parameters()).value(), std::nullopt);
    evaluateBoundaryMap(map, {});
    std::vector<bool> dispatched;
    for (int ix = 0; ix < map.width(); ++ix) dispatched.push_back(map.cell(ix, 0).callsLibrary);
    ASSERT_EQ(dispatched, (std::vector<bool>{false, false, true, true, true})) << "M = 256, 512 below AutoAWQ's 1024; 1024-4096 from it";
    Trace trace;
    trace.addDevice(h200);
    trace.sweeps.push_back(map);
    const std::string text = traceToText(trace);
    expectSameReading(text, "dispatch map");
    auto read = readText(text);
    ASSERT_TRUE(read.ok()) << read.error();
    for (int ix = 0; ix < map.width(); ++ix)
        EXPECT_EQ(read->sweeps[0].cell(ix, 0).callsLibrary, dispatched[static_cast<std::size_t>(ix)]) << "cell " << ix;
    auto bad = traceToJson(trace);
    bad["sweeps"][0]["cells"][2]["calls_library"] = "yes";
    EXPECT_FALSE(readText(bad.dump()).ok());
}

TEST(TraceIo, ASharedStringReadsAndComparesAsItsText) {
    const SharedString name("void gemm_kernel<128>()");
    const SharedString copy = name;
    EXPECT_EQ(copy.data(), name.data()) << "copies share the text";
    const SharedString equal(std::string("void gemm_kernel<128>()"));
    EXPECT_NE(equal.data(), name.data());
    EXPECT_EQ(equal, name);
    EXPECT_EQ(name, "void gemm_kernel<128>()");
    EXPECT_EQ(name, std::string("void gemm_kernel<128>()"));
    EXPECT_LT(name, SharedString("void gemm_kernel<256>()"));
    EXPECT_EQ(name.str().size(), 23u);
    EXPECT_EQ(name + "!", "void gemm_kernel<128>()!");
    EXPECT_TRUE(SharedString().empty());
    EXPECT_EQ(SharedString(""), SharedString());
    EXPECT_EQ(SharedString().str(), "");
}

// Records with the same kernel name (and launch API) point at one string after a read, of the
// native format by both streamed entry points and of a PyTorch profiler trace.
void expectNamesShared(const std::vector<KernelRecord>& records, const std::string& what) {
    int repeated = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        for (std::size_t k = 0; k < i; ++k) {
            if (records[k].name == records[i].name) {
                ++repeated;
                EXPECT_EQ(records[k].name.data(), records[i].name.data()) << what << ": records " << k << " and " << i;
            }
            if (!records[i].launchApi.empty() && records[k].launchApi == records[i].launchApi) {
                EXPECT_EQ(records[k].launchApi.data(), records[i].launchApi.data()) << what << ": records " << k << " and " << i;
            }
        }
    }
    EXPECT_GT(repeated, 0) << what << ": the sample repeats kernel names";
}

TEST(TraceIo, AReadsRecordsShareTheirNames) {
    const Trace imported =
        openTraceFile(std::string(TILESCOPE_SOURCE_DIR) + "/resources/samples/hta_alexnet_a100.json.gz", builtinKernels()).value();
    expectNamesShared(imported.records, "Kineto import");
    const std::string text = traceToText(imported);
    expectNamesShared(readFast(text).value().records, "readNativeTraceText");
    const auto path = scratch("shared_names.tilescope.json").string();
    ASSERT_TRUE(writeTraceFile(imported, path).ok());
    expectNamesShared(readNativeTraceFile(path, builtinKernels()).value().records, "readNativeTraceFile");
}

TEST(TraceIo, TheSimdjsonReaderDeclinesWhatTheDomReaderRejects) {
    for (const auto& c : malformedCases()) {
        SCOPED_TRACE(c.name);
        auto fast = readFast(c.text);
        if (!c.expected) {
            EXPECT_TRUE(fast.has_value());
            continue;
        }
        EXPECT_FALSE(fast.has_value()) << "took a trace the DOM reader rejects";
    }
    // Nesting at the DOM reader's limit (64 levels, the root object one of them) and one past it.
    const std::string good = traceToText(test::fixtureTrace());
    for (int depth : {63, 64, 65}) {
        SCOPED_TRACE(depth);
        std::string text = good;
        const auto close = text.rfind('}');
        text.insert(close, ", \"deep\": " + std::string(static_cast<std::size_t>(depth - 1), '[') +
                               std::string(static_cast<std::size_t>(depth - 1), ']'));
        auto dom = readTraceTextDom(text, "deep", builtinKernels());
        auto fast = readFast(text);
        EXPECT_EQ(dom.ok(), depth <= kMaxTraceNesting);
        if (fast) {
            ASSERT_TRUE(dom.ok()) << "took a trace the DOM reader rejects: " << dom.error();
            EXPECT_EQ(traceToText(*fast), traceToText(*dom));
        }
    }
}

}  // namespace
}  // namespace tilescope

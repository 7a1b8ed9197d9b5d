// Kineto import on real PyTorch profiler traces (tests/data, see its README) and on hostile input.
#include <gtest/gtest.h>

#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/trace/kineto_import.h"
#include "core/trace/trace_io.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;

std::string data(const char* name) { return std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/" + name; }

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("tilescope_kineto_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

std::string gunzip(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    std::string out;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
    gzclose(f);
    return out;
}

std::string writeFile(const std::string& name, const std::string& text) {
    const auto path = scratch(name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

TEST(KinetoImport, AlexNetOnA100CorrectsKinetosZeroOccupancyAbove48KB) {
    auto imported = importKinetoFile(data("hta_alexnet_a100.json.gz"));
    ASSERT_TRUE(imported.ok()) << imported.error();
    const auto& k = *imported;
    EXPECT_EQ(k.kernelCount, 79);
    EXPECT_EQ(k.kernels.size(), 79u);
    EXPECT_EQ(k.linkedLaunches, 79);
    ASSERT_EQ(k.devices.size(), 8u);
    const auto& gpu0 = k.devices[0];
    EXPECT_TRUE(gpu0.checkable);
    EXPECT_EQ(gpu0.spec.computeCapability.smVersion(), 80);
    EXPECT_EQ(gpu0.spec.smCount, 108);
    EXPECT_EQ(gpu0.spec.smemPerBlockOptin, 166'912);   // from the trace
    EXPECT_EQ(gpu0.spec.reservedSmemPerBlock, 1'024);  // from the architecture table, and said so
    EXPECT_NE(std::find(gpu0.filled.begin(), gpu0.filled.end(), "reserved_smem_per_block"), gpu0.filled.end());
    EXPECT_TRUE(k.launchViolations.empty());

    // Exactly the six kernels with 67,584 B: Kineto says 0 %, cuda_occupancy.h with the opt-in limit does not.
    std::int64_t corrected = 0;
    for (const auto& c : k.occupancyCorrections) {
        corrected += c.count;
        EXPECT_EQ(c.sharedMemory, 67'584);
        EXPECT_EQ(c.kinetoOccupancyPct, 0.0);
        ASSERT_TRUE(c.occupancyPct);
        // 252 registers x 128 threads (32,768 registers) and 67,584 + 1,024 reserved bytes per block:
        // two blocks of 4 warps out of 64 per SM, by registers and by shared memory alike.
        EXPECT_DOUBLE_EQ(*c.occupancyPct, 100.0 * 8 / 64);
        EXPECT_NE(c.limiter.find("shared memory"), std::string::npos);
    }
    EXPECT_EQ(corrected, 6);
    std::int64_t above48k = 0;
    for (const auto& r : k.kernels)
        if (r.sharedMemory && *r.sharedMemory > gpu0.spec.smemPerBlock) ++above48k;
    EXPECT_EQ(above48k, 6);
    // Every record keeps Kineto's figures as recorded.
    EXPECT_EQ(k.kernels[0].grid, (Dim3{864, 1, 1}));
    EXPECT_EQ(k.kernels[0].registersPerThread, 47);
    EXPECT_EQ(k.kernels[0].startNs, 1'695'835'573'023'613'000);
    EXPECT_EQ(k.kernels[0].durationNs(), 71'000);
    EXPECT_EQ(k.kernels[0].launchApi, "cudaLaunchKernel");
}

TEST(KinetoImport, PlainJsonGivesTheSameResultAsGzip) {
    const auto plain = writeFile("alexnet.json", gunzip(data("hta_alexnet_a100.json.gz")));
    auto a = importKinetoFile(plain);
    auto b = importKinetoFile(data("hta_alexnet_a100.json.gz"));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->bytes, b->bytes);
    Trace ta = a->toTrace(), tb = b->toTrace();
    ta.source = tb.source;
    EXPECT_EQ(traceToText(ta), traceToText(tb));
    EXPECT_EQ(a->occupancyCorrections.size(), b->occupancyCorrections.size());
}

TEST(KinetoImport, SmallReadsGiveTheSameResultAsLargeOnes) {
    // With 4 KB reads nearly every event of the real traces straddles a read and the buffer is
    // compacted and grown many times: the result must not change.
    for (const char* name : {"hta_alexnet_a100.json.gz", "tracelens_bert-small_h100.json.gz", "hta_triton_example_a100.json.gz"}) {
        KinetoImportOptions small;
        small.readChunkBytes = 4096;
        auto a = importKinetoFile(data(name), small);
        auto b = importKinetoFile(data(name));
        ASSERT_TRUE(a.ok() && b.ok()) << name;
        EXPECT_EQ(a->bytes, b->bytes) << name;
        EXPECT_EQ(a->eventCount, b->eventCount) << name;
        EXPECT_EQ(a->kernelCount, b->kernelCount) << name;
        EXPECT_EQ(traceToText(a->toTrace()), traceToText(b->toTrace())) << name;
    }
}

TEST(KinetoImport, ACancelledImportStopsWithAnError) {
    // The GUI's Cancel sets the flag from the GUI thread while the import runs on a worker; the
    // import reads it before every read of the file, the first one included.
    std::atomic<bool> cancel{true};
    KinetoImportOptions options;
    options.readChunkBytes = 4096;
    options.cancel = &cancel;
    auto imported = importKinetoFile(data("hta_alexnet_a100.json.gz"), options);
    ASSERT_FALSE(imported.ok());
    EXPECT_NE(imported.error().find("import cancelled"), std::string::npos) << imported.error();
    cancel.store(false);
    EXPECT_TRUE(importKinetoFile(data("hta_alexnet_a100.json.gz"), options).ok());
}

TEST(KinetoImport, BertOnH100FindsNineKernelsAbove48KB) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> progress;
    KinetoImportOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t total) { progress.emplace_back(done, total); };
    auto k = importKinetoFile(data("tracelens_bert-small_h100.json.gz"), options);
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->kernelCount, 60);
    std::int64_t corrected = 0;
    std::int64_t largest = 0;
    for (const auto& c : k->occupancyCorrections) {
        corrected += c.count;
        largest = std::max(largest, c.sharedMemory.value_or(0));
        EXPECT_GT(*c.sharedMemory, 48 * 1024);
        EXPECT_GT(*c.estAchievedOccupancyPct, 0.0);
    }
    EXPECT_EQ(corrected, 9);
    EXPECT_EQ(largest, 231'424);  // under the H100's 232,448 B opt-in: it launches
    EXPECT_TRUE(k->launchViolations.empty());
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back().first, progress.back().second);
}

TEST(KinetoImport, TraceWithoutDevicePropertiesSaysOccupancyIsUnknown) {
    auto k = importKinetoFile(data("hta_sampled_rank-0_no_deviceprops.json.gz"));
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->kernelCount, 1'154);
    EXPECT_TRUE(k->devices.empty());
    EXPECT_EQ(k->uncheckedKernels, 1'154);
    EXPECT_TRUE(k->occupancyCorrections.empty());
    ASSERT_FALSE(k->notes.empty());
    EXPECT_NE(k->notes[0].find("no deviceProperties"), std::string::npos);

    // With a device assumed, the 290 kernels over 48 KB are checked (and Kineto's 0 % corrected).
    KinetoImportOptions options;
    options.assumedDevice = *DeviceDatabase::embedded().find("a100-80gb-sxm");
    auto assumed = importKinetoFile(data("hta_sampled_rank-0_no_deviceprops.json.gz"), options);
    ASSERT_TRUE(assumed.ok());
    EXPECT_LT(assumed->uncheckedKernels, 1'154);
    std::int64_t over48k = 0;
    for (const auto& r : assumed->kernels)
        if (r.sharedMemory && *r.sharedMemory > 48 * 1024) ++over48k;
    EXPECT_EQ(over48k, 290);
    EXPECT_NE(assumed->notes[0].find("assumed device a100-80gb-sxm"), std::string::npos);
}

TEST(KinetoImport, AmdTraceIsShownButNotChecked) {
    auto k = importKinetoFile(data("hta_mi250_rocm_no_regs.json.gz"));
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->kernelCount, 14);
    EXPECT_EQ(k->uncheckedKernels, 14);
    ASSERT_FALSE(k->devices.empty());
    for (const auto& d : k->devices) {
        EXPECT_FALSE(d.checkable);
        EXPECT_NE(d.why.find("not an NVIDIA GPU (warp size 64)"), std::string::npos);
    }
    EXPECT_EQ(k->kernels[0].grid.volume(), 0);                // not recorded
    EXPECT_EQ(k->kernels[0].startNs, 4'203'669'603'771'648);  // fractional microseconds, exactly
    // Its devices are not put in a native trace (their limits are not known), its records are.
    const Trace t = k->toTrace();
    EXPECT_TRUE(t.devices.empty());
    EXPECT_EQ(t.records.size(), 14u);
    EXPECT_TRUE(readTraceText(traceToText(t), "x", builtinKernels()).ok());
}

TEST(KinetoImport, TritonKernelIsLinkedToItsDriverLaunch) {
    auto k = importKinetoFile(data("hta_triton_example_a100.json.gz"));
    ASSERT_TRUE(k.ok()) << k.error();
    ASSERT_EQ(k->kernels.size(), 1u);
    EXPECT_EQ(k->kernels[0].name, "triton_poi_fused_add_cos_sin_0");
    EXPECT_EQ(k->kernels[0].launchApi, "cuLaunchKernel");
    EXPECT_TRUE(k->occupancyCorrections.empty());  // grid (1,1,1): Kineto's 0 % is right
}

TEST(KinetoImport, ImportedTraceRoundTripsThroughTheNativeFormat) {
    auto k = importKinetoFile(data("tracelens_bert-small_h100.json.gz"));
    ASSERT_TRUE(k.ok());
    const Trace t = k->toTrace();
    auto read = readTraceText(traceToText(t), "x", builtinKernels());
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(traceToText(*read), traceToText(t));
    auto opened = openTraceFile(data("tracelens_bert-small_h100.json.gz"), builtinKernels());
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(opened->records.size(), 60u);
}

TEST(KinetoImport, HostileInputGivesErrorsNotCrashes) {
    const std::string event =
        R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"device": 0, "grid": [1, 1, 1], "block": [32, 1, 1], "registers per thread": 16, "shared memory": 0}})";
    const std::string real = gunzip(data("hta_triton_example_a100.json.gz"));
    std::string garbage;
    for (int i = 0; i < 100'000; ++i) garbage += static_cast<char>((i * 7919 + 13) % 256);
    struct Case {
        const char* name;
        std::string text;
        const char* expected;
    };
    const std::vector<Case> cases = {
        {"empty", "", "empty file"},
        {"truncated", real.substr(0, real.size() / 2), "truncated"},
        {"garbage", garbage, "expected a Chrome trace"},
        {"deep nesting", "{\"traceEvents\": [" + std::string(10'000, '[') + std::string(10'000, ']') + "]}", "expected an event object"},
        {"deep event", "{\"traceEvents\": [{\"a\": " + std::string(10'000, '[') + std::string(10'000, ']') + "}]}",
         "nested deeper than 256"},
        {"mismatched brackets", R"({"traceEvents": [{"a": [1, 2}]})", "unexpected '}'"},
        {"no events", R"({"deviceProperties": []})", "no traceEvents"},
        {"events not an array", R"({"traceEvents": {"a": 1}})", "expected traceEvents to be an array"},
        {"trailing data", "{\"traceEvents\": []} {}", "unexpected data after"},
        {"grid of text", R"({"traceEvents": [{"cat": "kernel", "ts": 1, "dur": 1, "args": {"grid": "big"}}]})", "args.grid"},
        {"absurd registers", R"({"traceEvents": [{"cat": "kernel", "ts": 1, "dur": 1, "args": {"registers per thread": 1e300}}]})",
         "registers per thread"},
        {"absurd ts", R"({"traceEvents": [{"cat": "kernel", "ts": 1e300, "dur": 1}]})", "expected a time in microseconds"},
        {"kernel without dur", R"({"traceEvents": [{"cat": "kernel", "ts": 1}]})", "needs \"ts\" and \"dur\""},
        {"bad deviceProperties", "{\"deviceProperties\": [{\"numSms\": -5}], \"traceEvents\": [" + event + "]}", "numSms"},
        {"unterminated string", "{\"traceEvents\": [{\"name\": \"abc", "truncated"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto k = importKinetoFile(writeFile("hostile.json", c.text));
        ASSERT_FALSE(k.ok());
        EXPECT_NE(k.error().find(c.expected), std::string::npos) << k.error();
        EXPECT_NE(k.error().find("byte"), std::string::npos) << k.error();
    }
    // Legal but absurd launch figures are checked, not trusted.
    auto absurd = importKinetoFile(writeFile(
        "absurd.json",
        R"({"deviceProperties": [{"id": 0, "name": "NVIDIA A100", "computeMajor": 8, "computeMinor": 0, "numSms": 108, "totalGlobalMem": 1000000, "warpSize": 32}],
           "traceEvents": [{"cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0, "grid": [1000000000, 1000000000, 1000000000], "block": [4096, 1, 1], "registers per thread": 300, "shared memory": 1000000000000}}]})"));
    ASSERT_TRUE(absurd.ok()) << absurd.error();
    ASSERT_EQ(absurd->launchViolations.size(), 1u);
    const auto& v = absurd->launchViolations[0].violation;
    EXPECT_NE(v.find("grid.y 1000000000 > max_grid_dim 65535"), std::string::npos) << v;
    EXPECT_NE(v.find("threads per block 4096 > max_threads_per_block 1024"), std::string::npos) << v;
    EXPECT_NE(v.find("smem_per_block_optin"), std::string::npos) << v;
    EXPECT_NE(v.find("max_regs_per_thread 255"), std::string::npos) << v;
    // A corrupt gzip stream.
    std::string gz = std::string("\x1f\x8b\x08\x00", 4) + garbage.substr(0, 1000);
    auto corrupt = importKinetoFile(writeFile("corrupt.json.gz", gz));
    ASSERT_FALSE(corrupt.ok());
    EXPECT_NE(corrupt.error().find("decompress"), std::string::npos) << corrupt.error();
    fs::remove_all(scratch("x").parent_path());
}

TEST(KinetoImport, EventsLargerThanTheLimitAreRejected) {
    KinetoImportOptions options;
    options.maxEventBytes = 1 << 20;
    const std::string big = "{\"traceEvents\": [{\"name\": \"" + std::string(40u << 20, 'a') + "\"}]}";
    auto k = importKinetoFile(writeFile("big.json", big), options);
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.error().find("larger than 1 MB"), std::string::npos) << k.error();
    fs::remove_all(scratch("x").parent_path());
}

}  // namespace
}  // namespace tilescope

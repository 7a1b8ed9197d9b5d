// A gzip'ed profiler trace that is cut short or damaged must fail like a cut plain trace does,
// never import as complete. The damaged copies are made here from the real samples in tests/data.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/trace/kineto_import.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;

std::string data(const char* name) { return std::string(TILESCOPE_SOURCE_DIR) + "/tests/data/" + name; }

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` as one gzip member (zlib's deflate with a gzip wrapper, as gzip(1) writes it).
std::string gzipMember(const std::string& text) {
    z_stream stream{};
    EXPECT_EQ(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 32, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

// The JSON of a gzip file, through zlib's own reader.
std::string gunzipFile(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    EXPECT_NE(file, nullptr);
    std::string out;
    char chunk[65536];
    for (int got = 0; file && (got = gzread(file, chunk, sizeof chunk)) > 0;) out.append(chunk, static_cast<std::size_t>(got));
    if (file) gzclose(file);
    return out;
}

class KinetoGzip : public ::testing::Test {
protected:
    void TearDown() override { fs::remove_all(m_dir); }
    std::string write(const std::string& name, const std::string& bytes) {
        fs::create_directories(m_dir);
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    fs::path m_dir = fs::temp_directory_path() / ("tilescope_kineto_gzip_" + std::to_string(::getpid()));
};

// Where the cut falls: inside the deflate data (the JSON ends mid-event), or in the 8-byte
// trailer (all of the JSON inflates, only the CRC-32 and length are missing).
TEST_F(KinetoGzip, AStreamCutShortIsAnErrorNamingTheCut) {
    struct Cut {
        const char* sample;
        std::size_t keep;  // bytes kept; 0: all but `drop`
        std::size_t drop;
    };
    const std::vector<Cut> cuts = {
        {"hta_sampled_rank-0_no_deviceprops.json.gz", 100'000, 0},  // the first 100 KB of a 124 KB file
        {"tracelens_bert-small_h100.json.gz", 35'000, 0},
        {"hta_alexnet_a100.json.gz", 0, 8},  // no trailer at all: the JSON itself is whole
        {"hta_alexnet_a100.json.gz", 0, 3},  // half the length field
    };
    for (const auto& cut : cuts) {
        const std::string whole = readBytes(data(cut.sample));
        ASSERT_GT(whole.size(), cut.keep + cut.drop) << cut.sample;
        const std::size_t keep = cut.keep ? cut.keep : whole.size() - cut.drop;
        SCOPED_TRACE(std::string(cut.sample) + " cut to " + std::to_string(keep) + " bytes");
        const std::string path = write("cut.json.gz", whole.substr(0, keep));
        for (std::size_t chunk : {std::size_t{4096}, std::size_t{8} << 20}) {
            KinetoImportOptions options;
            options.readChunkBytes = chunk;
            auto imported = importKinetoFile(path, options);
            ASSERT_FALSE(imported.ok()) << imported->kernelCount << " kernels imported from a cut file";
            EXPECT_NE(imported.error().find("the gzip stream ends before its end marker"), std::string::npos) << imported.error();
            EXPECT_NE(imported.error().find("(the file's " + std::to_string(keep) + " bytes"), std::string::npos) << imported.error();
            EXPECT_NE(imported.error().find("truncated?)"), std::string::npos) << imported.error();
            EXPECT_EQ(imported.error().rfind(path + ": byte ", 0), 0u) << imported.error();
            EXPECT_EQ(imported.error().find(": byte 0:"), std::string::npos) << "the byte where the JSON stopped";
        }
        // Opening it as a trace (File > Open, `tilescope-cli trace`) fails the same way.
        auto opened = openTraceFile(path, builtinKernels());
        ASSERT_FALSE(opened.ok());
        EXPECT_NE(opened.error().find("ends before its end marker"), std::string::npos) << opened.error();
    }
    // The whole file still imports.
    auto whole = importKinetoFile(data("hta_alexnet_a100.json.gz"));
    ASSERT_TRUE(whole.ok()) << whole.error();
    EXPECT_EQ(whole->kernelCount, 79);
}

TEST_F(KinetoGzip, ADamagedTrailerIsAnError) {
    const std::string whole = readBytes(data("hta_alexnet_a100.json.gz"));
    ASSERT_GT(whole.size(), 8u);
    std::string badCrc = whole, badLength = whole;
    badCrc[whole.size() - 8] = static_cast<char>(badCrc[whole.size() - 8] ^ 1);
    badLength[whole.size() - 4] = static_cast<char>(badLength[whole.size() - 4] ^ 1);
    auto crc = importKinetoFile(write("crc.json.gz", badCrc));
    ASSERT_FALSE(crc.ok());
    EXPECT_NE(crc.error().find("the gzip stream is corrupt: its CRC-32 does not match"), std::string::npos) << crc.error();
    auto length = importKinetoFile(write("length.json.gz", badLength));
    ASSERT_FALSE(length.ok());
    EXPECT_NE(length.error().find("the gzip stream is corrupt: its recorded length does not match"), std::string::npos) << length.error();
}

// What did not change with the trailer check: gzip(1) semantics for concatenated members (read as
// one stream) and for bytes after the last member that are not a gzip header ("trailing garbage
// ignored"); a later member that is cut short is a cut like any other.
TEST_F(KinetoGzip, ConcatenatedMembersReadAsOneStreamAndTrailingGarbageIsIgnored) {
    const std::string sample = data("hta_alexnet_a100.json.gz");
    const std::string json = gunzipFile(sample);
    ASSERT_GT(json.size(), 200'000u);
    auto reference = importKinetoFile(sample);
    ASSERT_TRUE(reference.ok()) << reference.error();
    auto sameImport = [&](const std::string& path) {
        SCOPED_TRACE(path);
        for (std::size_t chunk : {std::size_t{4096}, std::size_t{8} << 20}) {
            KinetoImportOptions options;
            options.readChunkBytes = chunk;
            auto imported = importKinetoFile(path, options);
            ASSERT_TRUE(imported.ok()) << imported.error();
            EXPECT_EQ(imported->bytes, json.size());
            EXPECT_EQ(imported->eventCount, reference->eventCount);
            EXPECT_EQ(imported->kernelCount, 79);
            EXPECT_EQ(imported->linkedLaunches, reference->linkedLaunches);
            ASSERT_EQ(imported->kernels.size(), reference->kernels.size());
            for (std::size_t i = 0; i < imported->kernels.size(); ++i) {
                EXPECT_EQ(imported->kernels[i].name, reference->kernels[i].name);
                EXPECT_EQ(imported->kernels[i].startNs, reference->kernels[i].startNs);
                EXPECT_EQ(imported->kernels[i].endNs, reference->kernels[i].endNs);
            }
        }
    };
    // The JSON split inside an event (byte 150,000), each half its own member.
    const std::string firstHalf = gzipMember(json.substr(0, 150'000));
    const std::string secondHalf = gzipMember(json.substr(150'000));
    sameImport(write("two_members.json.gz", firstHalf + secondHalf));
    sameImport(write("trailing_garbage.json.gz", readBytes(sample) + "GARBAGE\n"));
    // The second member cut short: an error, with the cut named.
    const std::string cutPath = write("second_member_cut.json.gz", firstHalf + secondHalf.substr(0, secondHalf.size() / 2));
    auto cut = importKinetoFile(cutPath);
    ASSERT_FALSE(cut.ok()) << cut->kernelCount << " kernels imported from a cut file";
    EXPECT_NE(cut.error().find("the gzip stream ends before its end marker"), std::string::npos) << cut.error();
}

}  // namespace
}  // namespace tilescope

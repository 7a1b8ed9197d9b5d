// Replays inputs through a libFuzzer harness without libFuzzer: the ordinary build (gcc, and the
// asan preset's ASan + UBSan) links each harness with this main and ctest feeds it the seed
// inputs and every committed crash input (tests/fuzz/regressions/<harness>/), so an input that
// once crashed stays a test on every CI run, not only when someone fuzzes.
// Usage: <harness>_replay PATH...   (files, or folders read recursively)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
    std::fflush(stdout);  // a crash below leaves the name of the input that caused it
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH...  (input files, or folders of them)\n", argv[0]);
        return 2;
    }
    int inputs = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path path(argv[i]);
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
                if (entry.is_regular_file()) inputs += replay(entry.path()) ? 1 : 0;
        } else if (replay(path)) {
            ++inputs;
        } else {
            return 2;
        }
    }
    std::printf("replay: %d inputs, no crash\n", inputs);
    return inputs > 0 ? 0 : 2;
}

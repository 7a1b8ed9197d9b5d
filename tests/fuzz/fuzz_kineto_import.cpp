// libFuzzer harness: the Kineto (PyTorch profiler) import. The importer takes a path (it streams
// and may inflate gzip), so each input is written to a per-process temp file first.
#include "core/trace/kineto_import.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/tilescope_fuzz_kineto_" + std::to_string(::getpid()) + ".json";
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return 0;
    if (size > 0) (void)std::fwrite(data, 1, size, file);
    std::fclose(file);
    tilescope::KinetoImportOptions options;
    options.readChunkBytes = 4096;  // events straddle reads; no 16 MB buffer per run
    auto imported = tilescope::importKinetoFile(path, options);
    if (imported) (void)imported->toTrace();
    return 0;
}

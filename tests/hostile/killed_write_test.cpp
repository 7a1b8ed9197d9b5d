// Saving over an existing trace while the writer is SIGKILLed must leave the old file intact:
// a child process writes a large trace over it through core's writeTraceFile (temp file + fsync +
// rename); the parent kills it while the temporary file is still growing, then checks that the
// old file is byte-for-byte unchanged and still parses.
#include "core/trace/trace_io.h"
#include "kernels/builtin_kernels.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

Trace traceWithRecords(std::int64_t count) {
    Trace trace;
    trace.source = "killed_write_test";
    trace.addDevice(*DeviceDatabase::embedded().find("h100-sxm"));
    for (std::int64_t i = 0; i < count; ++i) {
        KernelRecord r;
        r.name = "void gemm_kernel<128, 64>(float const*, float*, int) #" + std::to_string(i);
        r.startNs = 1'000 * i;
        r.endNs = r.startNs + 500;
        r.grid = {108, 2, 1};
        r.block = {128, 1, 1};
        trace.records.push_back(std::move(r));
    }
    return trace;
}

// The temporary file writeTraceFile creates beside `target` (target + ".XXXXXX"), if any.
std::optional<fs::path> temporaryBeside(const fs::path& target) {
    for (const auto& entry : fs::directory_iterator(target.parent_path())) {
        const auto name = entry.path().filename().string();
        if (name.size() == target.filename().string().size() + 7 && name.rfind(target.filename().string() + ".", 0) == 0)
            return entry.path();
    }
    return std::nullopt;
}

// One attempt: 1 = old file intact after a mid-write kill, 0 = the write finished before the
// kill landed (inconclusive, retry bigger), -1 = failure.
int attempt(const fs::path& dir, std::int64_t records) {
    const fs::path target = dir / "old.tilescope.json";
    if (auto written = writeTraceFile(traceWithRecords(3), target.string()); !written) {
        std::cerr << "cannot write the old trace: " << written.error() << "\n";
        return -1;
    }
    const std::string before = readAll(target);
    int sizePipe[2];
    if (::pipe(sizePipe) != 0) return -1;
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(sizePipe[0]);
        const Trace big = traceWithRecords(records);
        const std::uint64_t size = traceToText(big).size();
        (void)!::write(sizePipe[1], &size, sizeof size);
        auto result = writeTraceFile(big, target.string());
        std::_Exit(result ? 0 : 1);
    }
    ::close(sizePipe[1]);
    std::uint64_t fullSize = 0;
    if (::read(sizePipe[0], &fullSize, sizeof fullSize) != sizeof fullSize) return -1;
    ::close(sizePipe[0]);
    std::uintmax_t seen = 0;
    bool killed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto temporary = temporaryBeside(target)) {
            std::error_code ec;
            seen = fs::file_size(*temporary, ec);
            if (!ec && seen > 0 && seen < fullSize) {
                ::kill(child, SIGKILL);
                killed = true;
                break;
            }
        }
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) return 0;  // finished before we saw it
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!killed) return 0;
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) return 0;
    const std::string after = readAll(target);
    if (after != before) {
        std::cerr << "FAIL: the old trace changed after the writer was killed at " << seen << " of " << fullSize << " bytes\n";
        return -1;
    }
    auto parsed = readTraceFile(target.string(), builtinKernels());
    if (!parsed || parsed->records.size() != 3) {
        std::cerr << "FAIL: the old trace no longer parses as before\n";
        return -1;
    }
    std::cout << "killed the writer at " << seen << " of " << fullSize << " bytes; the old trace (" << before.size()
              << " bytes) is unchanged and parses\n";
    return 1;
}

}  // namespace

int main() {
    const fs::path dir = fs::temp_directory_path() / ("tilescope_killed_write_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    int outcome = 0;
    for (std::int64_t records = 100'000; records <= 1'600'000 && outcome == 0; records *= 2) outcome = attempt(dir, records);
    fs::remove_all(dir);
    if (outcome == 0) std::cerr << "FAIL: never caught the writer mid-write (inconclusive)\n";
    return outcome == 1 ? 0 : 1;
}

// The byte source of the streamed trace readers: a file, plain or gzip (zlib's gz* interface
// passes plain files through), read through a small padded buffer, and a byte scanner that finds
// where each JSON value ends (strings and nesting respected, bracket pairs checked) without
// parsing it. simdjson's On-Demand parser then reads, in place, only the values a reader keeps.
//
// Errors name the file and the byte of (decompressed) JSON where the problem is. Used by the
// Kineto import (core/kineto_import); a reader derives from JsonByteStream and parses its format
// on top of skipSpace / scanValue.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"

struct gzFile_s;  // zlib's gzFile, so that only json_stream.cpp includes zlib.h

namespace tilescope {

inline bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Asks the kernel to back [data, data + bytes) with transparent huge pages (Linux, THP in
// "madvise" mode; a no-op elsewhere). Call before the memory is first written: the readers' big
// buffers and record vectors are fresh memory, and on a VM each 4 KB page's first-touch fault
// costs more than parsing the bytes that fill it (docs/PERFORMANCE.md, issue 17).
void adviseHugePages(const void* data, std::size_t bytes);

// A file read through zlib: gzip inflated (a cut or damaged stream is an error), plain passed through.
class FileInput {
public:
    FileInput() = default;
    FileInput(const FileInput&) = delete;
    FileInput& operator=(const FileInput&) = delete;
    ~FileInput();
    Result<void> open(const std::string& path);
    // Reads `text` as a plain file's bytes (not copied: it must outlive the reads).
    void openText(std::string_view text);
    // Whether the bytes are inflated from a gzip stream (known once read() has been called).
    bool compressed() const;
    // Bytes read into `out`, 0 at the end; an error for a corrupt gzip stream, or one that ends
    // before its trailer. zlib hands out what it could inflate from a cut stream and flags the cut
    // only in gzerror: that data is passed on, and the read after it (0 bytes) fails, so the error
    // names the byte of JSON where the stream stopped, as a cut plain file's does.
    Result<std::size_t> read(char* out, std::size_t n);
    std::uint64_t size() const { return m_size; }  // of the file (compressed)
    std::uint64_t position() const;                // in the file (compressed)

private:
    gzFile_s* m_file = nullptr;
    std::uint64_t m_size = 0;
    std::string_view m_text;  // the source when no file is open
    std::size_t m_textRead = 0;
};

struct JsonStreamLimits {
    std::size_t readChunkBytes = std::size_t{8} << 20;  // at least kMinReadChunk
    std::size_t maxValueBytes = std::size_t{64} << 20;  // one scanned value larger is an error
    const std::atomic<bool>* cancel = nullptr;          // set: the next refill fails ("import cancelled")
    // Called every few MB and at the end: bytes of the file read so far, and its size.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

// The buffer and scanner state of one streamed read. Indices are into m_buffer; m_base is the
// stream offset of m_buffer[0]. The first error wins (m_error).
class JsonByteStream {
protected:
    JsonByteStream(const std::string& path, JsonStreamLimits limits) : m_path(path), m_limits(std::move(limits)) {}

    static constexpr std::size_t kMinReadChunk = 4096;
    static constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;  // simdjson reads up to this far past a value
    static constexpr int kMaxNesting = 256;
    static constexpr std::uint64_t kProgressStep = std::uint64_t{16} << 20;

    // Sizes the buffer for the first read (twice the read chunk, padded).
    void startBuffer();
    // Grows or shrinks m_buffer to `bytes`, keeping [0, m_end), the rest zero; new memory gets huge pages.
    void resizeBuffer(std::size_t bytes);
    std::size_t readChunk() const;  // the configured chunk, or less for an input known to be smaller
    bool refill(std::size_t keepFrom, std::size_t& a, std::size_t& b);
    bool need(std::size_t& p, std::size_t& start);  // makes m_buffer[p] available, keeping [start, ...)
    bool skipSpace(std::size_t& p);
    // Finds the end of the JSON value starting at `start` (after refills `start` may move; with
    // keep == false the bytes before the scan position may be dropped and `start` is meaningless).
    bool scanValue(std::size_t& start, std::size_t& end, bool keep);
    void reportProgress(bool final);
    bool fail(std::uint64_t offset, const std::string& what);

    std::string m_path;
    JsonStreamLimits m_limits;
    FileInput m_input;
    std::vector<char> m_buffer;
    std::size_t m_end = 0;
    std::uint64_t m_base = 0;
    bool m_eof = false;
    std::uint64_t m_nextProgress = kProgressStep;
    std::vector<char> m_stack;
    std::optional<std::string> m_error;
    static constexpr std::size_t kNoCatKey = static_cast<std::size_t>(-1);
    std::size_t m_catKey = kNoCatKey;  // offset of the last scanned value's top-level "cat" key
};

}  // namespace tilescope

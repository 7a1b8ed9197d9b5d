#include "core/trace/json_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilescope {

namespace {

// ---- byte search (SSE2 where available)

// Bit i set when byte i of the 64 at `b` is '"', '\\', '{', '}', '[' or ']'. The buffer is padded:
// reading 64 bytes from any position before its end is safe.
std::uint64_t interestingMask(const char* b) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8('{');
    const __m128i close = _mm_set1_epi8('}');
    const __m128i lower = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
    std::uint64_t mask = 0;
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
        const __m128i folded = _mm_or_si128(v, lower);
        const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                          _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
        mask |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hits))) << (16 * k);
    }
    return mask;
#else
    std::uint64_t mask = 0;
    for (int i = 0; i < 64; ++i) {
        const char c = b[i];
        if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']') mask |= std::uint64_t{1} << i;
    }
    return mask;
#endif
}

// ---- the input: gzip or plain, through zlib's gz* interface (plain files pass through)

// What a zlib error of a gzip stream means to a user. `message` is gzerror's "PATH: what".
std::string describeGzipError(int code, const char* message, std::uint64_t fileBytes) {
    std::string what = message ? message : "";
    if (auto colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    if (code == Z_ERRNO) return "cannot read: " + std::string(std::strerror(errno));
    if (code == Z_BUF_ERROR)  // zlib: "unexpected end of file"
        return "the gzip stream ends before its end marker (the file's " + std::to_string(fileBytes) +
               " bytes stop inside the compressed data; truncated?)";
    if (what == "incorrect data check")
        return "the gzip stream is corrupt: its CRC-32 does not match the decompressed data (damaged file?)";
    if (what == "incorrect length check")
        return "the gzip stream is corrupt: its recorded length does not match the decompressed data (damaged file?)";
    return "cannot decompress: the gzip stream is corrupt (zlib: " + (what.empty() ? std::string("error ") + std::to_string(code) : what) +
           ")";
}

}  // namespace

FileInput::~FileInput() {
    if (m_file) gzclose(m_file);
}

Result<void> FileInput::open(const std::string& path) {
    std::error_code ec;
    m_size = std::filesystem::file_size(path, ec);
    if (ec) return makeError(path + ": cannot open: " + ec.message());
    m_file = gzopen(path.c_str(), "rb");
    if (!m_file) return makeError(path + ": cannot open");
    gzbuffer(m_file, 1 << 20);
    return {};
}

void FileInput::openText(std::string_view text) {
    m_text = text;
    m_textRead = 0;
    m_size = text.size();
}

bool FileInput::compressed() const { return m_file && gzdirect(m_file) == 0; }

Result<std::size_t> FileInput::read(char* out, std::size_t n) {
    if (!m_file) {
        const std::size_t got = std::min(n, m_text.size() - m_textRead);
        if (got > 0) std::memcpy(out, m_text.data() + m_textRead, got);
        m_textRead += got;
        return got;
    }
    const int got = gzread(m_file, out, static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)));
    if (got > 0) return static_cast<std::size_t>(got);
    int code = Z_OK;
    const char* message = gzerror(m_file, &code);
    if (got == 0 && (code == Z_OK || code == Z_STREAM_END)) return std::size_t{0};
    return makeError(describeGzipError(code, message, m_size));
}

std::uint64_t FileInput::position() const {
    if (!m_file) return m_textRead;
    const auto offset = gzoffset(m_file);
    return offset < 0 ? 0 : static_cast<std::uint64_t>(offset);
}

std::size_t JsonByteStream::readChunk() const {
    // A small input needs no 8 MB chunk: sized by the input (the file's size, compressed or not, or
    // the text's), a 1 KB trace does not allocate and clear 16 MB. The trace reader's fuzz harness
    // read ~280 inputs in 30 s that way, against ~50,000 before the reader streamed. A compressed
    // file inflates past its size; the buffer then grows as for any large value. Size 0 (unknown):
    // the configured chunk.
    const std::size_t configured = std::max(kMinReadChunk, m_limits.readChunkBytes);
    const std::uint64_t size = m_input.size();
    if (size == 0) return configured;
    return std::max(kMinReadChunk, static_cast<std::size_t>(std::min<std::uint64_t>(size, configured)));
}

void adviseHugePages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Only the whole 2 MB pages inside the range: madvise wants page-aligned bounds, and a huge
    // page that straddled the range's ends would cover memory the caller does not own.
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: failure changes nothing
#else
    (void)data;
    (void)bytes;
#endif
}

void JsonByteStream::resizeBuffer(std::size_t bytes) {
    if (bytes > m_buffer.capacity()) {
        std::vector<char> grown;
        grown.reserve(bytes);
        adviseHugePages(grown.data(), bytes);
        grown.assign(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(m_end));  // what is still needed
        m_buffer = std::move(grown);
    }
    m_buffer.resize(bytes, '\0');
}

void JsonByteStream::startBuffer() {
    m_buffer.clear();
    resizeBuffer(2 * readChunk() + kPadding);
}

bool JsonByteStream::fail(std::uint64_t offset, const std::string& what) {
    if (!m_error) m_error = m_path + ": byte " + std::to_string(offset) + ": " + what;
    return false;
}

void JsonByteStream::reportProgress(bool final) {
    if (!m_limits.progress) return;
    const std::uint64_t done = m_input.position();
    if (final || done >= m_nextProgress) {
        m_limits.progress(final ? m_input.size() : done, m_input.size());
        m_nextProgress = done + kProgressStep;
    }
}

bool JsonByteStream::refill(std::size_t keepFrom, std::size_t& a, std::size_t& b) {
    if (m_eof) return false;
    if (m_limits.cancel && m_limits.cancel->load(std::memory_order_relaxed)) return fail(m_base + m_end, "import cancelled");
    // Move what is still needed to the front, then grow if a single value fills the buffer.
    const std::size_t kept = m_end - keepFrom;
    if (keepFrom > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + keepFrom, kept);
        m_base += keepFrom;
        a = a >= keepFrom ? a - keepFrom : 0;
        b = b >= keepFrom ? b - keepFrom : 0;
        m_end = kept;
    }
    std::size_t capacity = m_buffer.size() - kPadding;
    const std::size_t chunk = readChunk();
    if (capacity - m_end < chunk) {
        if (kept > m_limits.maxValueBytes)
            return fail(m_base, "a single value is larger than " + std::to_string(m_limits.maxValueBytes >> 20) +
                                    " MB (the limit for one trace event)");
        capacity = std::max(capacity * 2, m_end + chunk);
        resizeBuffer(capacity + kPadding);
    }
    auto got = m_input.read(m_buffer.data() + m_end, capacity - m_end);
    if (!got) return fail(m_base + m_end, got.error());
    if (*got == 0) {
        m_eof = true;
        return false;
    }
    m_end += *got;
    std::memset(m_buffer.data() + m_end, 0, kPadding);
    reportProgress(false);
    return true;
}

bool JsonByteStream::need(std::size_t& p, std::size_t& start) {
    while (p >= m_end) {
        if (!refill(start, p, start)) return false;
    }
    return true;
}

bool JsonByteStream::skipSpace(std::size_t& p) {
    for (;;) {
        while (p < m_end && isJsonSpace(m_buffer[p])) ++p;
        if (p < m_end) return true;
        std::size_t start = p;
        if (!need(p, start)) return false;
    }
}

// Finds the end of the JSON value starting at `start` (after refills `start` may move; with
// keep == false the bytes before the scan position may be dropped and `start` is meaningless).
bool JsonByteStream::scanValue(std::size_t& start, std::size_t& end, bool keep) {
    const char* b = m_buffer.data();
    std::size_t p = start;
    const char first = b[p];
    if (first != '"' && first != '{' && first != '[') {
        // A scalar: runs to the next delimiter.
        for (;;) {
            while (p < m_end && !isJsonSpace(b[p]) && b[p] != ',' && b[p] != '}' && b[p] != ']') ++p;
            if (p < m_end || m_eof) break;
            if (!refill(start, p, start)) {
                if (m_error) return false;
                break;
            }
            b = m_buffer.data();
        }
        end = p;
        return true;
    }
    m_stack.clear();
    m_catKey = kNoCatKey;
    bool inString = first == '"';
    if (inString) ++p;
    for (;;) {
        b = m_buffer.data();
        while (p < m_end) {
            // 64 bytes at a time: a mask of the bytes that matter, walked bit by bit.
            std::uint64_t mask = interestingMask(b + p);
            const std::size_t available = m_end - p;
            if (available < 64) mask &= (std::uint64_t{1} << available) - 1;
            std::size_t next = p + std::min<std::size_t>(64, available);
            bool needMore = false;
            while (mask) {
                const std::size_t i = static_cast<std::size_t>(__builtin_ctzll(mask));
                mask &= mask - 1;
                const std::size_t q = p + i;
                const char c = b[q];
                if (inString) {
                    if (c == '\\') {
                        // The escaped byte is not structural, whatever it is.
                        if (q + 1 >= m_end) {
                            next = q;
                            needMore = true;
                            break;
                        }
                        if (i + 1 < 64) {
                            mask &= ~(std::uint64_t{1} << (i + 1));
                        } else {
                            next = q + 2;
                            break;
                        }
                    } else if (c == '"') {
                        inString = false;
                        if (m_stack.empty()) {
                            end = q + 1;
                            return true;
                        }
                    }
                    continue;
                }
                if (c == '"') {
                    inString = true;
                    // Where an event's own "cat" key is, so classify() need not search for it.
                    if (m_stack.size() == 1 && m_catKey == kNoCatKey && q + 5 <= m_end && std::memcmp(b + q + 1, "cat\"", 4) == 0)
                        m_catKey = q - start;
                } else if (c == '{' || c == '[') {
                    if (static_cast<int>(m_stack.size()) >= kMaxNesting)
                        return fail(m_base + q,
                                    "nested deeper than " + std::to_string(kMaxNesting) + " levels (a profiler trace nests a few levels)");
                    m_stack.push_back(c == '{' ? '}' : ']');
                } else if (c == '}' || c == ']') {
                    if (m_stack.empty() || m_stack.back() != c)
                        return fail(m_base + q, std::string("unexpected '") + c + "'" +
                                                    (m_stack.empty() ? "" : std::string(", expected '") + m_stack.back() + "'"));
                    m_stack.pop_back();
                    if (m_stack.empty()) {
                        end = q + 1;
                        return true;
                    }
                }
            }
            p = next;
            if (needMore) break;
        }
        const std::uint64_t valueStart = keep ? m_base + start : 0;
        if (!refill(keep ? start : p, p, start)) {
            if (m_error) return false;
            return fail(m_base + m_end,
                        keep ? "the file ends inside a value that starts at byte " + std::to_string(valueStart) + " (truncated?)"
                             : "the file ends inside a value (truncated?)");
        }
    }
}

}  // namespace tilescope

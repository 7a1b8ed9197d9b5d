// KernelRecord: one kernel execution as a tracer saw it (CUPTI, or a PyTorch profiler trace),
// and GpuOutcome: what happened when Tilescope launched a kernel for real.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/launch_plan.h"

namespace tilescope {

// An immutable string that copies share: a trace's 200,000 records carry a few dozen distinct
// kernel names of ~300 bytes each (PyTorch template names), and one string per record was most of
// the memory a read touched (docs/PERFORMANCE.md, issue 17). Reads as a const std::string&.
class SharedString {
public:
    SharedString() = default;
    SharedString(const std::string& text) : SharedString(std::string_view(text)) {}
    SharedString(std::string_view text) : m_text(text.empty() ? nullptr : std::make_shared<const std::string>(text)) {}
    SharedString(const char* text) : SharedString(std::string_view(text)) {}

    const std::string& str() const { return m_text ? *m_text : emptyString(); }
    void clear() { m_text.reset(); }  // this handle only: copies keep the text
    operator const std::string&() const { return str(); }
    operator std::string_view() const { return str(); }

    // std::string's reading API, so code that read the name as a std::string reads it unchanged.
    bool empty() const { return !m_text; }
    std::size_t size() const { return str().size(); }
    std::size_t length() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    const char* data() const { return str().data(); }
    std::string::const_iterator begin() const { return str().begin(); }
    std::string::const_iterator end() const { return str().end(); }
    char operator[](std::size_t i) const { return str()[i]; }
    char front() const { return str().front(); }
    char back() const { return str().back(); }
    std::size_t find(std::string_view s, std::size_t pos = 0) const { return str().find(s, pos); }
    std::size_t find(char c, std::size_t pos = 0) const { return str().find(c, pos); }
    std::size_t rfind(std::string_view s, std::size_t pos = std::string::npos) const { return str().rfind(s, pos); }
    std::size_t rfind(char c, std::size_t pos = std::string::npos) const { return str().rfind(c, pos); }
    std::string substr(std::size_t pos = 0, std::size_t n = std::string::npos) const { return str().substr(pos, n); }
    bool starts_with(std::string_view s) const { return str().starts_with(s); }
    bool ends_with(std::string_view s) const { return str().ends_with(s); }
    int compare(std::string_view s) const { return str().compare(s); }

    // Equal texts compare equal whether or not they share storage.
    friend bool operator==(const SharedString& a, const SharedString& b) { return a.m_text == b.m_text || a.str() == b.str(); }
    friend bool operator==(const SharedString& a, const std::string& b) { return a.str() == b; }
    friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
    friend bool operator==(const SharedString& a, const char* b) { return a.str() == b; }
    friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) { return a.str() <=> b.str(); }
    friend std::strong_ordering operator<=>(const SharedString& a, const std::string& b) { return a.str() <=> b; }
    friend std::strong_ordering operator<=>(const SharedString& a, std::string_view b) { return std::string_view(a.str()) <=> b; }
    friend std::strong_ordering operator<=>(const SharedString& a, const char* b) { return std::string_view(a.str()) <=> b; }
    friend std::string operator+(const SharedString& a, std::string_view b) { return std::string(a.str()).append(b); }
    friend std::string operator+(std::string_view a, const SharedString& b) { return std::string(a).append(b.str()); }
    friend std::string operator+(const SharedString& a, char b) { return a.str() + b; }
    friend std::string operator+(char a, const SharedString& b) { return a + b.str(); }
    friend std::ostream& operator<<(std::ostream& out, const SharedString& s) { return out << s.str(); }

private:
    static const std::string& emptyString() {
        static const std::string empty;
        return empty;
    }
    std::shared_ptr<const std::string> m_text;  // null when empty
};

// One SharedString per distinct text for as long as a reader lives: the records a read builds
// share their names. Owned by one read (never global), so what it holds ends with the read.
class StringInterner {
public:
    SharedString intern(std::string_view text) {
        if (text.empty()) return {};
        if (text == m_last.str()) return m_last;  // records often repeat the previous name
        auto it = m_seen.find(text);
        if (it == m_seen.end()) {
            const SharedString shared(text);
            it = m_seen.emplace(std::string_view(shared.str()), shared).first;  // the key views the shared text
        }
        m_last = it->second;
        return m_last;
    }

private:
    std::unordered_map<std::string_view, SharedString> m_seen;
    SharedString m_last;
};

struct KernelRecord {
    SharedString name;  // as the tracer reports it (mangled or demangled)
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    int device = 0;
    std::int64_t stream = 0;
    std::int64_t correlationId = 0;
    std::optional<std::int64_t> externalId;  // ties the record to Tilescope's launch
    Dim3 grid;
    Dim3 block;
    std::optional<int> registersPerThread;
    std::optional<std::int64_t> staticSmem;
    std::optional<std::int64_t> dynamicSmem;
    std::optional<std::int64_t> localMemoryPerThread;
    std::optional<int> shmemLimitConfig;        // CUPTI: 0 default limit, 1 opt-in
    std::optional<double> kinetoOccupancyPct;   // "est. achieved occupancy %" of an imported trace
    std::optional<std::int64_t> sharedMemory;   // static + dynamic, when only the total is known (Kineto)
    SharedString launchApi;                     // the API call that launched it ("cudaLaunchKernel"); empty: unknown
    std::optional<std::int64_t> launchStartNs;  // when that call started (host clock of the trace)

    std::int64_t durationNs() const { return endNs - startNs; }
};

// The CUDA runtime's answer to a launch: cudaSuccess or the error it raised.
struct CudaOutcome {
    std::string errorName = "cudaSuccess";  // cudaGetErrorName
    std::string errorText = "no error";     // cudaGetErrorString
    int code = 0;
    bool ok() const { return code == 0; }
};

// Output compared with the float64 CPU reference.
struct ReferenceCheck {
    double maxRelativeError = 0.0;
    double bound = 0.0;  // per-dtype bound the check used
    bool passed = false;
};

// Time of the timed repeats (the checked launch excluded). CUPTI kernel records measure the
// kernel alone; CUDA events around a launch add its overhead (~9 us on an H200 for a 36 us
// kernel), so events are only the fallback when CUPTI delivered no record.
struct Timing {
    int repeats = 0;
    double minUs = 0.0;
    double medianUs = 0.0;
    double meanUs = 0.0;
    std::string source = "events";  // "cupti" | "events"
    bool l2Flushed = false;         // L2 evicted before every repeat (weights cold, as in a real model)
};

// What a real GPU run produced. Absent from predicted runs, which are never mixed up with it.
struct GpuOutcome {
    CudaOutcome launch;                   // cudaLaunchKernelExC's return / first sticky error
    CudaOutcome synchronize;              // cudaDeviceSynchronize
    std::vector<KernelRecord> records;    // CUPTI kernel records of this run
    std::optional<ReferenceCheck> check;  // nullopt: --no-check or the launch failed
    std::optional<Timing> timing;
    std::string deviceName;  // the live GPU's name
};

}  // namespace tilescope

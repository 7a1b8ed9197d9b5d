#include "kernels/triton/diagnosis.h"

#include <charconv>

#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"
#include "kernels/triton/plan.h"

namespace tilescope {

std::vector<TritonConfigValue> findTritonConfig(const LogText& log, int errorLine, int window) {
    struct Spelling {
        std::string_view parameter;
        Pattern pattern;
    };
    // The tutorial's names (BLOCK_SIZE_M) and the common short ones (BLOCK_M), quoted as dict keys
    // or written as keyword arguments.
    static const std::vector<Spelling> spellings = [] {
        auto p = [](const char* name) {
            return Pattern(std::string(R"((?:^|[^A-Za-z0-9_])['"]?)") + name + R"(['"]?\s*[:=]\s*(\d+))", Pattern::Case::Sensitive);
        };
        std::vector<Spelling> s;
        s.push_back({"BLOCK_M", p("BLOCK_(?:SIZE_)?M")});
        s.push_back({"BLOCK_N", p("BLOCK_(?:SIZE_)?N")});
        s.push_back({"BLOCK_K", p("BLOCK_(?:SIZE_)?K")});
        s.push_back({"num_stages", p("num_stages")});
        s.push_back({"num_warps", p("num_warps")});
        return s;
    }();
    std::vector<TritonConfigValue> out;
    for (const auto& spelling : spellings)
        for (int i = errorLine; i >= 0 && i >= errorLine - window; --i) {
            const std::string& text = log.line(i);
            SvMatch match;
            if (!spelling.pattern.search(text, match)) continue;
            std::int64_t value = 0;
            const std::string digits = match.str(1);
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (ec != std::errc() || ptr != digits.data() + digits.size()) continue;
            out.push_back({std::string(spelling.parameter), value, i, text});
            break;
        }
    return out;
}

namespace {

// Shared memory a triton-family plan of `values` asks for (the pipeliner's formula through the
// planner, core has no copy of it); nullopt when the planner refuses the config before that.
std::optional<std::int64_t> tritonSharedMemory(const FindingBuilder& b, const std::vector<DiagnosisValue>& values) {
    auto kernel = resolveKernel(b.scope().kernels, "triton", "");
    if (!kernel) return std::nullopt;
    const auto& parameters = kernel->family->parameters();
    Shape shape = Shape::defaults(parameters);
    for (const auto& v : values) {
        const int index = parameterIndex(parameters, v.name);
        if (index < 0 || !checkParameterValue(parameters[static_cast<std::size_t>(index)], v.value)) return std::nullopt;
        shape[index] = v.value;
    }
    const LaunchPlan plan = kernel->family->plan(kernel->variant, shape, b.planDevice(), PlanDetail::Brief);
    if (plan.limit && plan.limit->name == "smem_per_block_optin") return plan.limit->actual;
    if (plan.hasLaunch()) return plan.totalSmem();
    return std::nullopt;
}

// Triton's OutOfResources with the autotuner config the log quotes: planned as the triton family
// (the matmul tutorial's pipelined kernel) when BLOCK_M/N/K and num_stages are all there.
bool tritonConfigFromLog(FindingBuilder& b, std::int64_t required) {
    auto& f = b.finding();
    const auto config = findTritonConfig(b.scope().log, b.line(), kDiagnosisContextLines);
    for (const auto& c : config) b.valueFrom(c.parameter, c.value, c.line + 1, c.text);
    for (std::string_view needed : {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages"})
        if (!b.valueOf(needed)) {
            f.unknown =
                "the log quotes no full Triton config (BLOCK_M, BLOCK_N, BLOCK_K and num_stages): with them, "
                "`tilescope-cli plan -k triton -s BLOCK_M=..,BLOCK_N=..,BLOCK_K=..,num_stages=..` checks it on every GPU";
            return false;
        }
    auto values = known(b, {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages", "num_warps"});
    // The element size is rarely printed: the one at which the formula gives Triton's own figure.
    std::string note;
    for (const std::int64_t bytes : {2, 1, 4}) {
        auto withBytes = values;
        withBytes.push_back({"dtype_bytes", bytes, 0, {}});
        if (tritonSharedMemory(b, withBytes) == required) {
            b.valueFrom("dtype_bytes", bytes, 0,
                        "the element size at which Triton's pipeliner formula gives the printed " + withThousands(required) + " B");
            note =
                "the config the log quotes needs exactly the printed " + withThousands(required) + " B at " + str(bytes) + " B per element";
            break;
        }
    }
    if (note.empty()) {
        values.push_back({"dtype_bytes", 2, 0, {}});
        const auto fp16 = tritonSharedMemory(b, values);
        note = "the matmul tutorial's pipeliner needs " + (fp16 ? withThousands(*fp16) + " B" : std::string("an unknown amount")) +
               " for the quoted config at 2 B per element, not the printed " + withThousands(required) +
               " B: the failing kernel stages other tiles, or another Triton version allocates otherwise; planned as the tutorial's";
    }
    b.kernel("triton", "matmul");
    b.plan("triton", "matmul", known(b, {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_stages", "num_warps", "dtype_bytes"}), "num_stages", note);
    return true;
}

// Triton's OutOfResources for shared memory: its compiler's own check against the device's opt-in limit.
void buildTritonSharedMemory(FindingBuilder& b, const SvMatch& m) {
    SharedMemoryReport report;
    report.allocated = groupNumber(m, 1);
    report.maximum = groupNumber(m, 2);
    report.explanation = "Triton compiled a kernel whose shared memory exceeds what this GPU grants one block (its opt-in limit).";
    report.fix = "reduce BLOCK sizes or num_stages";
    report.compilerCheck = true;
    report.planFromLog = tritonConfigFromLog;
    buildSharedMemoryOverLimit(b, report);
}

// Triton's second OutOfResources: num_warps x 32 against the loaded function's maximum threads per
// block (compiler.py _init_handles: OutOfResources(num_warps * warp_size, n_max_threads, "threads")).
void buildTritonThreads(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto required = groupNumber(m, 1);
    const auto limit = groupNumber(m, 2);
    b.value("threads", required);
    b.value("thread_limit", limit);
    if (required && limit) f.limit = LimitHit{"max_threads_per_block", *limit, *required};
    f.title = "Triton: num_warps x 32 threads over the kernel's limit" +
              (required && limit ? ": " + withThousands(*required) + " > " + withThousands(*limit) : std::string());
    f.explanation =
        "Triton compared num_warps x 32 with the compiled kernel's maximum threads per block "
        "(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK): the GPU's 1,024 at most, fewer when the kernel's "
        "registers per thread do not fit that many threads in a block's register file.";
    if (limit && *limit < b.planDevice().maxThreadsPerBlock)
        f.explanation += " " + withThousands(*limit) +
                         " is below 1,024: the kernel's registers set the limit here, and "
                         "Tilescope does not know them (Triton picks them).";
    if (limit) f.fix = "num_warps=" + str(*limit / 32) + " or fewer";
    if (required && *required % 32 == 0) {
        b.valueFrom("num_warps", *required / 32, f.line, f.message + " (Required / 32)");
        // Over the GPU's own limit the triton family reproduces it; under it, registers decide and are unknown.
        if (limit && *limit == b.planDevice().maxThreadsPerBlock && *required > *limit) {
            b.kernel("triton", "matmul");
            b.plan("triton", "matmul", known(b, {"num_warps"}), "num_warps",
                   "the log gives num_warps only: the blocks keep the family's defaults");
        }
    }
    b.fallbackCommand("");
}

}  // namespace

const DiagnosisSignatures* TritonFamily::diagnosisSignatures() const {
    using V = Verdict;
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.signatures = {
            // Triton >= 2.1 prints "shared memory, Required: N, Hardware limit: N"; Triton 1.x ("triton.code_gen",
            // triton-lang/triton #384) ran the words together: "shared memoryRequired: NHardware limit: N".
            {30,
             "smem.triton",
             {"out of resource"},
             R"(out of resources?:\s*shared memory,?\s*Required:\s*(\d+),?\s*Hardware limit:\s*(\d+))",
             V::InvalidLaunch,
             false,
             buildTritonSharedMemory},
            {40,
             "triton.threads",
             {"out of resource"},
             R"(out of resources?:\s*threads,\s*Required:\s*(\d+),\s*Hardware limit:\s*(\d+))",
             V::InvalidLaunch,
             false,
             buildTritonThreads},
        };
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope

#include "core/diagnosis/failing_kernel.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <re2/re2.h>

#include "core/diagnosis/call_shapes.h"
#include "core/diagnosis/diagnosis_signatures.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

// Public Python calls that run one kernel family each, as reports call them.
constexpr std::array<std::string_view, 9> kNamedCalls{
    "flash_attn_varlen_func",
    "flash_attn_with_kvcache",
    "flash_attn_func",
    "memory_efficient_attention",
    "scaled_dot_product_attention",
    "single_prefill_with_kv_cache",
    "single_decode_with_kv_cache",
    "causal_conv1d_fn",
    "causal_conv1d_update",
};

bool contains(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

// "CUDA error (/x/flashmla-src/csrc/smxx/mla_combine.cu:201): ...", "ggml-cuda.cu:6863",
// "sampling.cuh: line 547 at function cudaLaunchKernel"; on the error line itself also a host
// file's check ("Cuda failure: ... in file src/preprocess.cpp:106"), but never PyTorch's own
// check site (c10/cuda/CUDAException.cpp), which every CUDA error passes through.
std::optional<std::string> sourceLocation(const std::string& line, const std::string& lower, bool errorLine) {
    std::string path, number;
    if (contains(lower, ".cu")) {
        static const RE2 cuda(R"(([\w./\\:+-]*?[\w+-]+\.cuh?)(?::\s*line\s+|:|\()(\d+))");
        if (RE2::PartialMatch(line, cuda, &path, &number)) return path + ":" + number;
    }
    if (!errorLine || contains(lower, "c10/") || contains(lower, "cudaexception")) return std::nullopt;
    if (contains(lower, ".cpp:") || contains(lower, ".cc:") || contains(lower, ".h:") || contains(lower, ".hpp:")) {
        static const RE2 host(R"(([\w./\\:+-]*?[\w+-]+\.(?:cpp|cc|h|hpp)):(\d+))");
        if (RE2::PartialMatch(line, host, &path, &number)) return path + ":" + number;
    }
    return std::nullopt;
}

// FlashInfer's own launch check: "TopPSamplingFromProbs failed with error code too many resources ...".
std::optional<std::string> stackKernelName(const std::string& line, const std::string& lower) {
    if (!contains(lower, "failed with error code")) return std::nullopt;
    static const RE2 re(R"(\b([A-Z][A-Za-z0-9_]+) failed with error code)");
    std::string name;
    if (!RE2::PartialMatch(line, re, &name)) return std::nullopt;
    return name;
}

// A Triton launch "name[grid](", an extension op "x_cuda.op(" / "torch.ops.ns.op(", a CUTLASS
// kernel, or one of kNamedCalls, on a traceback's line.
std::optional<std::pair<std::string, std::string>> kernelOnLine(const std::string& line, const std::string& lower) {
    std::string name;
    if (contains(lower, "](")) {
        static const RE2 triton(R"(([A-Za-z_][\w.]*)\[[^\]]*\]\()");
        if (RE2::PartialMatch(line, triton, &name)) return std::make_pair(name, std::string("Triton kernel launched there"));
    }
    if (contains(lower, "torch.ops.") || contains(lower, "_cuda.") || contains(lower, "_c.") || contains(lower, "_ext.") ||
        contains(lower, "_ops.") || contains(lower, "_c_") || contains(lower, "_kernel.") || contains(lower, "_kernels.")) {
        // The module's name says it is a compiled extension: torch.ops.*, _C*, *_cuda, *_C, *_ext,
        // *_ops, *_kernel(s) in any case ("CUDA_KERNEL.code2x8_matmat(").
        static const RE2 op(R"(((?:torch\.ops\.[A-Za-z_][\w.]*)|(?:\b_C\w*|\b\w+(?i:_cuda|_c|_ext|_ops|_kernels?))\.[A-Za-z_]\w*)\s*\()");
        if (RE2::PartialMatch(line, op, &name)) return std::make_pair(name, std::string("extension op"));
    }
    if (contains(lower, "cutlass")) {
        static const RE2 cutlass(R"(\b(cutlass\w*_sm\d+\w*|cutlass::[\w:]+))");
        if (RE2::PartialMatch(line, cutlass, &name)) return std::make_pair(name, std::string("CUTLASS kernel"));
    }
    // A frame of c10's C++ backtrace ("# 9  fbgemm_gpu::reorder_batched_ad_lengths_gpu(...)"),
    // PyTorch's own frames skipped: the first other one is the op that launched.
    if (lower.rfind("# ", 0) == 0 || lower.rfind("#", 0) == 0) {
        static const RE2 frame(R"(^#\s*\d+\s+([A-Za-z_][\w]*::[\w:]+)\()");
        if (RE2::PartialMatch(line, frame, &name) && !name.starts_with("c10::") && !name.starts_with("at::") &&
            !name.starts_with("torch::") && !name.starts_with("std::") && !name.starts_with("pybind11::"))
            return std::make_pair(name, std::string("C++ frame of the c10 backtrace"));
    }
    for (std::string_view call : kNamedCalls) {
        const auto at = lower.find(call);
        if (at == std::string::npos) continue;
        // The call as written, with its module path ("xformers.ops.memory_efficient_attention").
        std::size_t start = at;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '_' || line[start - 1] == '.'))
            --start;
        std::size_t end = at + call.size();
        while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
        const std::string written = line.substr(start, end - start);
        // An import names the API without calling it; a call or a frame ("in flash_attn_func") does.
        const bool called = (end < line.size() && line[end] == '(') || contains(lower, ", in " + std::string(call));
        if (called) return std::make_pair(written, std::string("call"));
    }
    return std::nullopt;
}

// "  File \".../awq/modules/fused/cache.py\", line 40, in update_kv" over
// "    self.k[:batch_size, ...] = keys_store" right above the error.
std::optional<FailingKernel> innermostCopy(const LogText& log, int errorLine) {
    int source = errorLine - 1;
    while (source >= 0) {
        const std::string_view text = log.withoutPrefix(source);
        if (!text.empty() && text.find_first_not_of("^~ ") != std::string_view::npos) break;
        --source;  // blank lines and Python 3.11's ^^^^ markers
    }
    if (source < 1 || !log.isTracebackSource(source)) return std::nullopt;
    static const RE2 assignment(R"(^\s*[A-Za-z_][\w.]*\[[^\]]*\]\s*=[^=])");
    static const RE2 frame(R"xx(File "(?:[^"]*/)?([^"/]+/[^"/]+)", line (\d+), in (\w+))xx");
    const std::string code(log.withoutPrefix(source));
    if (!RE2::PartialMatch(code, assignment)) return std::nullopt;
    for (int i = source - 1; i >= 0 && i >= source - 2; --i) {
        std::string file, number, function;
        if (RE2::PartialMatch(std::string(log.withoutPrefix(i)), frame, &file, &number, &function))
            return FailingKernel{file + ":" + number + " " + function, "tensor copy (slice assignment) in the innermost frame", source + 1};
    }
    return std::nullopt;
}

}  // namespace

std::optional<FailingKernel> findFailingKernel(const LogText& log, int errorLine) {
    if (errorLine < 0 || errorLine >= log.lineCount()) return std::nullopt;
    // The error's own line and its neighbours: a source location or the stack's own kernel name.
    for (int i : {errorLine, errorLine + 1, errorLine - 1, errorLine + 2}) {
        if (i < 0 || i >= log.lineCount()) continue;
        const std::string line(log.withoutPrefix(i));
        const std::string lower = lowercaseAscii(line);
        // The whole line: glog's prefix is itself the failing check's file:line ("F0401 ... relu_layer.cu:29] Cuda kernel failed").
        if (auto at = sourceLocation(log.line(i), log.lowerLine(i), i == errorLine))
            return FailingKernel{*at, "source location of the error", i + 1};
        if (auto name = stackKernelName(line, lower)) return FailingKernel{*name, "the stack's own kernel name in the error", i + 1};
    }
    // The innermost Python frame assigns into a tensor slice: the failing launch is that copy.
    if (auto copy = innermostCopy(log, errorLine)) return copy;
    // The traceback above the error, innermost frame first; then a reproducer below it.
    auto scan = [&](int from, int to, int step) -> std::optional<FailingKernel> {
        for (int i = from; i != to; i += step) {
            const std::string line(log.withoutPrefix(i));
            const std::string lower = lowercaseAscii(line);
            if (auto hit = kernelOnLine(line, lower)) return FailingKernel{hit->first, hit->second, i + 1};
        }
        return std::nullopt;
    };
    if (auto above = scan(errorLine - 1, std::max(-1, errorLine - 1 - kFailingKernelWindow), -1)) return above;
    return scan(errorLine + 1, std::min(log.lineCount(), errorLine + 1 + kFailingKernelWindow), 1);
}

void noteFailingKernel(FindingBuilder& b) {
    auto& f = b.finding();
    if (auto kernel = findFailingKernel(b.scope().log, b.line())) {
        f.failingKernel = kernel->name;
        f.failingKernelHow = kernel->how;
        f.failingKernelLine = kernel->line;
    } else if (const auto shape = findCallShape(b.scope().log, b.line()); shape && !shape->values.empty()) {
        // Named without a call's parentheses ("I call func _memory_efficient_attention_xformers"),
        // but the log shows its tensors: that call is the one that failed.
        f.failingKernel = shape->call;
        f.failingKernelHow = "the attention call whose tensor shapes the log gives";
        f.failingKernelLine = shape->callLine;
    }
}

namespace {

// Attention calls whose kernels launch batch and heads on grid y and z: FlashAttention-2's
// forward grid is (m_blocks, batch, heads) (flash-attention csrc/flash_attn/src/
// flash_fwd_launch_template.h line 64 at 0251105a); xformers' and PyTorch's memory-efficient
// (CUTLASS) forward is (query_blocks, heads, batch) (xformers v0.0.28 xformers/csrc/attention/
// cuda/fmha/kernel_forward.h lines 364-369); SDPA and memory_efficient_attention dispatch to one
// of the two.
bool launchesBatchAndHeadsOnGridYz(const std::string& call) {
    return call == "flash_attn_func" || call == "flash_attn_with_kvcache" || call == "memory_efficient_attention" ||
           call == "scaled_dot_product_attention";
}

}  // namespace

void explainFailingKernel(FindingBuilder& b) {
    auto& f = b.finding();
    if (f.failingKernel.empty()) return;
    callShapeFigures(b);
    const auto shape = findCallShape(b.scope().log, b.line());
    if (!f.family.empty()) return;  // a bundled family took the finding: its plan explains it
    const std::string where = "line " + str(f.failingKernelLine);
    f.explanation += " The log names the failing kernel: " + f.failingKernel + " (" + f.failingKernelHow + ", " + where +
                     "); it is none of Tilescope's bundled families, so none of them is ranked.";
    if (!contains(f.fix, "CUDA_LAUNCH_BLOCKING")) return;
    const DeviceSpec& device = b.planDevice();
    // The default device's limits are every CUDA GPU's here; name the architecture only when the log does.
    const std::string gpu = b.deviceNamed() ? device.archName() : std::string("the GPU");
    const std::int64_t yz = std::min(device.maxGridDim[1], device.maxGridDim[2]);
    std::string over;
    if (shape && launchesBatchAndHeadsOnGridYz(shape->call))
        for (const char* name : {"batch", "heads"})
            if (const auto v = b.valueOf(name); v && *v > yz) {
                over = name;
                f.limit = LimitHit{"max_grid_dim_y_z", yz, *v};
                f.explanation += " " + shape->call + " launches batch and heads on the grid's y and z dimensions, at most " +
                                 withThousands(yz) + " each on " + gpu + ": " + std::string(name) + " " + withThousands(*v) +
                                 " is over it.";
                break;
            }
    if (!over.empty()) {
        const auto read = std::find_if(f.shape.begin(), f.shape.end(), [&](const DiagnosisValue& v) { return v.name == over; });
        f.fix = "split the " + shape->call + " call along " + over + " into launches of at most " + withThousands(yz) + " each (" + over +
                " " + withThousands(*b.valueOf(over)) +
                (read != f.shape.end() && read->line > 0 ? ", read on line " + str(read->line) : "") + ")";
    } else {
        f.fix = "the log names the kernel (" + f.failingKernel + ", " + where +
                "): compare the grid and block it launches for this input with " + gpu + "'s limits (grid y and z at most " +
                withThousands(yz) + ", at most " + withThousands(device.maxThreadsPerBlock) + " threads per block)";
    }
}

}  // namespace tilescope

// Core's own signatures (of no bundled family): the CUDA runtime's errors, ptxas, the CuTe DSL and
// tile checks, each with the builder that turns its match into a finding.
#include "core/diagnosis/diagnosis_core_signatures.h"

#include <algorithm>
#include <cmath>

#include "core/diagnosis/diagnosis_stacks.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_resources.h"
#include "core/model/launch_checks.h"
#include "core/model/text_format.h"

namespace tilescope {

namespace {

// The architecture a number of bytes is the opt-in shared-memory limit of ("sm_86, sm_89, sm_120").
std::vector<std::string> archsWithOptin(const DeviceDatabase& devices, std::int64_t bytes) {
    std::vector<std::string> out;
    for (const auto& arch : devices.architectures())
        if (arch.limits.smemPerBlockOptin == bytes) out.push_back(archNameOf(arch.computeCapability));
    return out;
}

}  // namespace

// ---- core signatures ------------------------------------------------------------------

// The contributions of `kernels`' families, in registry order.
std::vector<const DiagnosisSignatures*> contributions(const KernelRegistry& kernels) {
    std::vector<const DiagnosisSignatures*> out;
    for (const auto& family : kernels.families())
        if (const DiagnosisSignatures* contributed = family->diagnosisSignatures()) out.push_back(contributed);
    return out;
}

namespace {

// A tile search's capacity message without a kernel's own wording ("exceeds shared memory capacity").
void buildLooseCapacity(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    b.value("smem_limit", groupNumber(m, 2));
    attentionFigures(b);
    f.title = "no tile fits shared memory" + (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = "A tile search found no candidate under the device's shared-memory capacity.";
    f.fix = "use a smaller tile or head size, or a GPU with a larger opt-in shared-memory limit";
    if (const auto limit = b.valueOf("smem_limit")) {
        const auto archs = archsWithOptin(b.scope().devices, *limit);
        if (!archs.empty()) f.explanation += " " + withThousands(*limit) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->noTileFits) family->noTileFits(b);
    b.fallbackCommand("head_dim");
}

// The command that replays a launch the text gives only the shared memory of, through the family
// that models bare launches; "" when the registry has none.
std::string bareLaunchCommand(const FindingBuilder& b, std::string_view parameter, std::int64_t bytes, bool optIn,
                              std::string_view device) {
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->bareLaunchCommand) return family->bareLaunchCommand(parameter, bytes, optIn, device);
    return {};
}

// The database GPUs the text's figures imply when it names none, said in the explanation; plans and
// commands then use the first of them.
void implyDevices(FindingBuilder& b, std::vector<std::string> ids, const std::string& why) {
    auto& f = b.finding();
    if (ids.empty()) return;
    f.impliedDevices = std::move(ids);
    f.impliedBy = why;
    f.explanation += " It implies " + joinList(f.impliedDevices) + " (" + why + ").";
    b.preferDevice(f.impliedDevices.front(), "the first database GPU the text implies: " + why);
}

// The device id the replay commands use: the log's GPU, else the first implied one, else the default.
std::string commandDevice(const FindingBuilder& b) {
    const auto& f = b.finding();
    if (b.deviceNamed()) return b.planDevice().id;
    return f.impliedDevices.empty() ? b.planDevice().id : f.impliedDevices.front();
}

}  // namespace

// Shared memory over the opt-in limit, as a launch check (the CuTe DSL's) or a compiler (Triton's
// OutOfResources, through its family's signature) reports it.
void buildSharedMemoryOverLimit(FindingBuilder& b, const SharedMemoryReport& report) {
    auto& f = b.finding();
    const auto allocated = report.allocated;
    const auto maximum = report.maximum;
    b.value("smem_bytes", allocated);
    b.value("smem_limit", maximum);
    attentionFigures(b);
    if (allocated && maximum) f.limit = LimitHit{"smem_per_block_optin", *maximum, *allocated};
    f.title = "shared memory per block over the limit" +
              (allocated && maximum ? ": " + withThousands(*allocated) + " B > " + withThousands(*maximum) + " B" : std::string()) +
              (f.arch.empty() ? std::string() : " on " + f.arch);
    f.explanation = report.explanation;
    const int rocm = report.compilerCheck ? b.scope().lookups.rocmMention() : -1;
    if (maximum && rocm < 0) {
        const auto archs = archsWithOptin(b.scope().devices, *maximum);
        if (!archs.empty()) f.explanation += " " + withThousands(*maximum) + " B is the opt-in limit of " + joinList(archs) + ".";
    }
    if (rocm >= 0) {
        // ROCm's Triton prints an AMD GPU's LDS as the hardware limit (65,536 B on MI300X): no NVIDIA GPU is implied.
        f.explanation += " " + otherVendorText(*b.scope().lookups.otherVendor(), FindingBuilder::trimmed(b.scope().log.line(rocm)));
    } else if (!f.arch.empty() && !report.compilerCheck) {
        if (auto cc = findArchitecture(f.arch))
            implyDevices(b, devicesOfArchitecture(b.scope().devices, *cc),
                         f.arch + ": every database GPU of compute capability " + cc->toString());
    } else if (maximum && !b.deviceNamed()) {
        implyDevices(b, devicesWithOptinLimit(b.scope().devices, *maximum),
                     "Hardware limit " + withThousands(*maximum) + " B: every database GPU with that opt-in limit");
    }
    f.fix = report.fix;
    if (allocated && maximum) f.fix += " (" + withThousands(*allocated - *maximum) + " B too many)";
    if (allocated && rocm < 0) {
        const auto larger = devicesWithOptinAtLeast(b.scope().devices, *allocated);
        if (!larger.empty()) f.fix += "; or run on a GPU whose opt-in limit fits " + withThousands(*allocated) + " B: " + joinList(larger);
    }
    if (report.planFromLog && allocated && rocm < 0 && report.planFromLog(b, *allocated)) return;
    // A family whose kernel is named at the error claims it (a FlashAttention kernel: the family that plans it).
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        if (family->sharedMemoryOverLimit) family->sharedMemoryOverLimit(b);
    // Nothing planned: the launch as the text gives it, through the family that models bare launches.
    if (f.command.empty() && allocated && rocm < 0) f.command = bareLaunchCommand(b, "dynamic_smem", *allocated, true, commandDevice(b));
    b.fallbackCommand("head_dim");
}

namespace {

// The CuTe DSL's launch check ("launch shared memory exceeds current GPU arch sm_89 allowed.
// Allocated: N bytes. Max: N bytes."): the runtime would refuse the launch.
void buildCuteSmem(FindingBuilder& b, const SvMatch& m) {
    SharedMemoryReport report;
    report.allocated = groupNumber(m, 2);
    report.maximum = groupNumber(m, 3);
    report.explanation =
        "The kernel asked for more dynamic shared memory than this GPU grants one block (its opt-in "
        "limit); the runtime refuses the launch with cudaErrorInvalidValue.";
    report.fix = "use a smaller tile or fewer pipeline stages";
    buildSharedMemoryOverLimit(b, report);
}

// ptxas' refusal of an entry function whose static shared memory passes the per-block cap (0xc000 =
// 48 KB on every architecture): the build fails, there is no launch.
void buildStaticSmem(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto bytes = parseHexBytes(m.str(1));
    const auto system = m[2].matched ? parseHexBytes(m.str(2)) : std::optional<std::int64_t>(0);
    const auto cap = parseHexBytes(m.str(3));
    // The entry function ptxas names before the text, found by plain search: mangled names run long.
    std::string function;
    const std::string& text = b.scope().log.line(b.line());
    constexpr std::string_view kEntry = "Entry function '";
    if (const auto open = text.find(kEntry); open != std::string::npos) {
        const auto close = text.find('\'', open + kEntry.size());
        if (close != std::string::npos && text.find("uses too much shared data", close) != std::string::npos) {
            function = text.substr(open + kEntry.size(), close - open - kEntry.size());
            f.message = text.substr(open, close + 1 - open) + " " + f.message;
        }
    }
    if (bytes) b.valueFrom("static_smem", *bytes, f.line, f.message + " (" + m.str(1) + ")");
    if (bytes && cap) f.limit = LimitHit{"static_smem_per_block", *cap, *bytes + (system ? *system : 0)};
    f.title = "ptxas: static shared memory over the per-block cap" +
              (bytes && cap ? ": " + withThousands(*bytes) + " B > " + withThousands(*cap) + " B" : std::string());
    f.explanation = "ptxas refused " +
                    (function.empty() ? std::string("an entry function") : "'" + FindingBuilder::trimmed(function) + "'") +
                    ": its __shared__ arrays take " + (bytes ? withThousands(*bytes) + " B" : std::string("more")) + ", over the " +
                    (cap ? withThousands(*cap) + " B" : std::string("static")) +
                    " a block may hold statically. The build fails, so nothing launches on any GPU.";
    // The cap is the same on every architecture: every GPU is implied, and none is planned on for it.
    if (cap && !b.deviceNamed()) {
        for (const auto& d : b.scope().devices.devices())
            if (d.smemPerBlock == *cap) f.impliedDevices.push_back(d.id);
        f.impliedBy = withThousands(*cap) + " B is the static cap of every architecture";
        if (!f.impliedDevices.empty()) f.explanation += " Every database GPU has this cap: the build fails for all of them.";
    }
    f.fix = "move the arrays to dynamic shared memory (extern __shared__) and raise cudaFuncAttributeMaxDynamicSharedMemorySize";
    if (bytes) {
        const auto fits = devicesWithOptinAtLeast(b.scope().devices, *bytes);
        const std::string dynamic = bareLaunchCommand(b, "dynamic_smem", *bytes, true, b.planDevice().id);
        if (fits.size() == b.scope().devices.devices().size())
            f.fix += " (" + dynamic + "): every database GPU's opt-in limit holds " + withThousands(*bytes) + " B";
        else if (!fits.empty()) f.fix += " (" + dynamic + "): the opt-in limit holds " + withThousands(*bytes) + " B on " + joinList(fits);
        f.command = bareLaunchCommand(b, "static_smem", *bytes, false, b.planDevice().id);
    }
    b.fallbackCommand("");
}

// A kernel's tile constraint ("input_size_per_partition = 10944 is not divisible by min_thread_k = 128"):
// recognised, but no Tilescope family models the kernel that checks it, so there is no plan.
void buildNotDivisible(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const std::string name = m.str(1), divisorName = m.str(3);
    const auto value = groupNumber(m, 2);
    const auto divisor = groupNumber(m, 4);
    b.value(name, value);
    b.value(divisorName, divisor);
    if (value && divisor) f.limit = LimitHit{"divisor", *divisor, *value};
    f.title = name + " is not a multiple of " + divisorName + (divisor ? " (" + withThousands(*divisor) + ")" : std::string()) +
              ": recognised, no model";
    // vLLM's GPTQ / AWQ Marlin kernels name their tile minimums min_thread_k / min_thread_n (marlin_utils.py).
    const bool marlin = divisorName.starts_with("min_thread_") || divisorName.starts_with("thread_");
    f.explanation = std::string("A kernel's tile constraint: ") + name + " must be a multiple of " + divisorName + "." +
                    (marlin ? " vLLM's Marlin GEMM kernels (GPTQ / AWQ) check their tile sizes this way." : "") +
                    " No Tilescope family models this kernel, so there is no plan and no device verdict: it fails on every GPU.";
    f.fix = value && divisor ? divisibilityText(*value, *divisor) : std::string();
    if (lowercaseAscii(f.message).find("tensor_parallel_size") != std::string::npos || b.near({"tensor_parallel_size"}))
        f.fix += (f.fix.empty() ? "" : "; ") + std::string("a smaller tensor_parallel_size splits the layer less");
}

void buildBf16Device(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    f.title = "bfloat16 on a GPU without bf16 support" + (f.arch.empty() ? std::string() : " (" + f.arch + ")");
    f.explanation = "bf16 needs compute capability 8.0 or newer.";
    f.fix = "load the model in float16 (vLLM: --dtype half; transformers: torch_dtype=torch.float16)";
    b.fallbackCommand("");
}

// vLLM's check of a quantization method against the GPU before it loads the model (its model loader:
// `capability < quant_config.get_min_capability()` raises "The quantization method {method} is not
// supported for the current GPU. Minimum capability: {min}. Current capability: {capability}.", the
// capability as major x 10 + minor). A method of no bundled family (gptq, bitsandbytes, fp8, marlin...)
// is said as the text says it, and nothing is planned; AWQ's own text is the awq_gemm family's.
void buildQuantizationCapability(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const std::string method = m.str(1);
    const auto minimum = groupNumber(m, 2);
    const auto current = groupNumber(m, 3);
    b.value("min_capability", minimum);
    b.value("capability", current);
    if (minimum && current) f.limit = LimitHit{"compute_capability", *minimum, *current};
    const auto ccText = [](std::int64_t v) { return capabilityOfVersion(v).toString(); };
    f.title =
        "vLLM refuses " + method + " on this GPU" +
        (minimum && current ? ": it needs compute capability " + ccText(*minimum) + ", the GPU has " + ccText(*current) : std::string());
    f.explanation = "vLLM checks the quantization method against the GPU before it loads the model: " + method + " needs " +
                    (minimum ? "compute capability " + ccText(*minimum) + " (\"Minimum capability: " + str(*minimum) + "\")"
                             : std::string("a newer GPU")) +
                    (current ? ", the GPU is " + ccText(*current) + " (\"Current capability: " + str(*current) + "\", major x 10 + minor)"
                             : std::string()) +
                    ". Tilescope bundles no " + method + " kernel, so nothing is planned.";
    if (current) {
        const ComputeCapability cc = capabilityOfVersion(*current);
        if (b.deviceOfCapability(
                cc, "\"Current capability: " + str(*current) + "\": every database GPU of compute capability " + cc.toString()))
            f.command = "tilescope-cli devices " + b.planDevice().id;
    }
    f.fix = "run on a GPU of compute capability " + (minimum ? ccText(*minimum) : std::string("the method needs")) +
            " or newer, or serve a checkpoint whose quantization method vLLM runs on " +
            (current ? "compute capability " + ccText(*current) : std::string("this GPU")) + " (each method's get_min_capability())";
    b.fallbackCommand("");
}

// vLLM's compressed-tensors config checks each layer's scheme against the GPU before it loads the model
// (CompressedTensorsConfig._check_scheme_supported: `capability < scheme.get_min_capability()` raises a
// RuntimeError whose message is a tuple, printed "('Quantization scheme is not supported for ', 'the
// current GPU. Min capability: 80. ', 'Current capability: 75.')"). AWQ and GPTQ weights saved by
// llm-compressor are W4A16 schemes of it: vLLM runs them with its mixed-precision kernels (Marlin,
// Machete), not with the AWQ GEMM the awq_gemm family models, so nothing is planned even for AWQ.
void buildCompressedTensorsCapability(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const auto minimum = groupNumber(m, 1);
    const auto current = groupNumber(m, 2);
    b.value("min_capability", minimum);
    b.value("capability", current);
    if (minimum && current) f.limit = LimitHit{"compute_capability", *minimum, *current};
    const auto ccText = [](std::int64_t v) { return capabilityOfVersion(v).toString(); };
    f.title =
        "vLLM refuses the checkpoint's compressed-tensors scheme on this GPU" +
        (minimum && current ? ": it needs compute capability " + ccText(*minimum) + ", the GPU has " + ccText(*current) : std::string());
    f.explanation =
        "vLLM checks each layer's compressed-tensors scheme against the GPU before it loads the model "
        "(scheme.get_min_capability()): the scheme needs " +
        (minimum ? "compute capability " + ccText(*minimum) + " (\"Min capability: " + str(*minimum) + "\")" : std::string("a newer GPU")) +
        (current ? ", the GPU is " + ccText(*current) + " (\"Current capability: " + str(*current) + "\", major x 10 + minor)"
                 : std::string()) +
        ". The message does not name the scheme; a W4A16 checkpoint (AWQ or GPTQ weights saved as compressed-tensors) "
        "runs on vLLM's mixed-precision kernels (Marlin, Machete), which Tilescope does not model.";
    if (const int awq = b.scope().lookups.awqMention(); awq >= 0)
        f.explanation += " The log names AWQ (line " + str(awq + 1) +
                         "), but in compressed-tensors form vLLM does not run it through its AWQ GEMM (the awq_gemm family's "
                         "vllm variant), so that kernel's minimum does not apply and nothing is planned.";
    else f.explanation += " Nothing is planned.";
    if (current) {
        const ComputeCapability cc = capabilityOfVersion(*current);
        if (b.deviceOfCapability(
                cc, "\"Current capability: " + str(*current) + "\": every database GPU of compute capability " + cc.toString()))
            f.command = "tilescope-cli devices " + b.planDevice().id;
    }
    f.fix = "run on a GPU of compute capability " + (minimum ? ccText(*minimum) : std::string("the scheme needs")) +
            " or newer, or serve a checkpoint whose quantization vLLM runs on " +
            (current ? "compute capability " + ccText(*current) : std::string("this GPU")) +
            " (each scheme's and method's get_min_capability())";
    b.fallbackCommand("");
}

// The driver found no code the GPU can run: neither SASS for its architecture (or an older one of
// its major) nor PTX it could JIT-compile for it. PyTorch's warning at CUDA's start says which GPU
// and which architectures the build holds; the finding reads both when the log shows them.
void buildNoKernelImage(FindingBuilder& b, const SvMatch& m) {
    auto& f = b.finding();
    const bool driverApi = lowercaseAscii(m.str(0)).find("no_binary_for_gpu") != std::string::npos;
    const std::string cuda13Oldest = "sm_" + str(kCuda13OldestSmVersion);
    f.explanation =
        (driverApi ? std::string("CUDA_ERROR_NO_BINARY_FOR_GPU")
                   : std::string(kCudaErrorNoKernelImageForDevice.name) + " (" + str(kCudaErrorNoKernelImageForDevice.code) + ")") +
        ": the binary (a PyTorch wheel, an extension, a library) holds no SASS for this GPU's architecture "
        "(nor for an older one of its major, which the GPU would run) and no PTX the driver can JIT-compile "
        "for it (PTX runs on its own architecture and newer ones). It was built for other GPUs: a CUDA 13 build "
        "(nothing older than " +
        cuda13Oldest + ") or a wheel that dropped Pascal on a Pascal or Volta GPU, or a build whose newest code predates the GPU.";
    if (driverApi)
        f.explanation += " The driver API also says this when the PTX JIT itself fails (no JIT library, PTX newer than the driver).";
    std::optional<ComputeCapability> cc;
    if (!f.arch.empty()) cc = findArchitecture(f.arch);
    std::string fixBuild =
        "install a build compiled for this GPU's architecture (torch.cuda.get_arch_list() lists a PyTorch "
        "build's; an extension takes TORCH_CUDA_ARCH_LIST or CMAKE_CUDA_ARCHITECTURES)";
    std::string fixGpu = "run on a GPU the build was compiled for";
    if (const auto& warning = b.scope().lookups.buildArchWarning()) {
        cc = warning->cc;
        const std::string gpu = warning->device.empty() ? archNameOf(warning->cc) : warning->device;
        f.explanation += " PyTorch's warning on line " + str(warning->line + 1) + " says " + gpu + " is " + archNameOf(warning->cc) +
                         " and not in this build";
        std::vector<ComputeCapability> sass;
        for (const auto& arch : warning->archs)
            if (arch.starts_with("sm_"))
                if (auto built = findArchitecture(arch)) sass.push_back(*built);
        if (!warning->archs.empty()) {
            std::string list;
            for (const auto& arch : warning->archs) list += (list.empty() ? "" : " ") + arch;
            f.explanation += ", which holds " + list + " (line " + str(warning->listLine + 1) + ")";
        }
        f.explanation += ".";
        if (!sass.empty()) {
            const auto [oldest, newest] = std::minmax_element(sass.begin(), sass.end());
            if (warning->cc < *oldest) {
                f.explanation += " The GPU is older than every architecture the build holds.";
                fixBuild = "install a PyTorch build that still includes " + archNameOf(warning->cc) +
                           " (an older CUDA's wheel: CUDA 13 compiles nothing older than " + cuda13Oldest +
                           "; torch.cuda.get_arch_list() shows what a build holds), or build from source with TORCH_CUDA_ARCH_LIST=" +
                           warning->cc.toString();
                fixGpu = "run on a GPU of " + archNameOf(*oldest) + " or newer";
            } else if (*newest < warning->cc) {
                f.explanation += " The GPU is newer than every architecture the build holds.";
                fixBuild = "install a PyTorch build for a newer CUDA that includes " + archNameOf(warning->cc) +
                           " (torch.cuda.get_arch_list() shows what a build holds)";
                fixGpu = "run on a GPU of an architecture the build holds (" + archNameOf(*oldest) + " to " + archNameOf(*newest) + ")";
            }
        }
    } else if (const auto& old = b.scope().lookups.oldGpuWarning()) {
        cc = old->cc;
        if (f.arch.empty()) f.arch = archNameOf(old->cc);
        f.explanation += " PyTorch's warning on line " + str(old->line + 1) + " says " +
                         (old->device.empty() ? std::string("the GPU") : old->device) + " is compute capability " + old->cc.toString();
        if (old->minimum) {
            f.explanation += " and this build's oldest is " + old->minimum->toString() +
                             (old->maximum ? " (its newest " + old->maximum->toString() + ")" : std::string()) + " (line " +
                             str(old->rangeLine + 1) + ")";
            if (old->cc < *old->minimum) {
                f.explanation += ": the GPU is older than every architecture the build holds.";
                fixBuild = "install a PyTorch build that still includes " + archNameOf(old->cc) +
                           " (an older CUDA's wheel: CUDA 13 compiles nothing older than " + cuda13Oldest +
                           "; torch.cuda.get_arch_list() shows what a build holds), or build from source with TORCH_CUDA_ARCH_LIST=" +
                           old->cc.toString();
                fixGpu = "run on a GPU of compute capability " + old->minimum->toString() + " or newer";
            } else {
                f.explanation += ".";
            }
        } else {
            f.explanation += ", too old for this build.";
        }
    }
    if (cc && cc->smVersion() < kCuda13OldestSmVersion)
        f.explanation += " CUDA 13 compiles nothing older than " + cuda13Oldest + ", so no CUDA 13 build runs on " + archNameOf(*cc) +
                         " (the planner says the same of Tilescope's bundled kernels there: unsupported_device).";
    f.title = "no kernel image for this GPU" + (cc ? " (" + archNameOf(*cc) + ")" : std::string()) +
              ": the binary was built for other architectures";
    f.fix = fixBuild + "; or " + fixGpu;
    b.fallbackCommand("");
}

// PyTorch's warning that its build supports no capability this old (or new): a prediction, for a log
// that ends before the error (the warning does not stop the program; torch.cuda.is_available() stays
// true). A log that shows the error has cuda.no_kernel_image's finding instead (Signature::foretells).
void buildOldGpuWarning(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    const auto warning = findOldGpuWarning(b.scope().log, b.line());
    if (!warning) {  // the text wrapped inside the capability: the match alone, without its figures
        f.title = "PyTorch's build has no code for this GPU: its first CUDA kernel will fail with \"no kernel image is available\"";
        f.explanation =
            "PyTorch's warning when CUDA starts (torch/cuda/__init__.py, _check_capability) says its build does not "
            "support this GPU's compute capability.";
        f.fix = "install a PyTorch build whose torch.cuda.get_arch_list() includes this GPU's architecture, or run on a GPU it does";
        b.fallbackCommand("");
        return;
    }
    if (const auto& vendor = b.scope().lookups.otherVendor()) {
        // PyTorch's ROCm build runs the same check on the HIP device's major.minor, which names no NVIDIA
        // architecture (ROCm/pytorch#627: a Radeon RX 580 "of cuda capability 3.0" that ran its tensor).
        f.title = "PyTorch's old-GPU warning under " + vendor->vendor + ": its \"cuda capability\" is no NVIDIA architecture";
        f.explanation = "The log runs on " + vendor->vendor + " (line " + str(vendor->line + 1) +
                        "): PyTorch's warning at CUDA's start (torch/cuda/__init__.py, _check_capability) compares that "
                        "stack's device version (" +
                        warning->cc.toString() +
                        ") with NVIDIA's minimum, which says nothing of the kernels a ROCm build holds. No NVIDIA GPU is implied "
                        "and no failure is predicted.";
        f.fix = "check that the PyTorch build supports this GPU's target on " + vendor->vendor +
                " (its list of supported GPUs); the warning alone does not mean a kernel fails";
        b.fallbackCommand("");
        return;
    }
    const ComputeCapability cc = warning->cc;
    const std::string arch = archNameOf(cc);
    const std::string gpu = warning->device.empty() ? arch : warning->device;
    const bool older = warning->minimum && cc < *warning->minimum;
    const bool newer = warning->maximum && *warning->maximum < cc;
    const std::string range = warning->minimum ? (warning->maximum ? warning->minimum->toString() + " to " + warning->maximum->toString()
                                                                   : warning->minimum->toString() + " and newer")
                                               : std::string();
    f.title = "PyTorch's build has no code for " + gpu + " (compute capability " + cc.toString() +
              "): its first CUDA kernel will fail with \"no kernel image is available\"";
    f.explanation = "PyTorch's warning when CUDA starts (torch/cuda/__init__.py, _check_capability): GPU" + str(warning->gpuIndex) + ", " +
                    gpu + ", is compute capability " + cc.toString() +
                    (range.empty() ? std::string(", which this build no longer supports")
                                   : ", and this build supports " + range + " (line " + str(warning->rangeLine + 1) + ")") +
                    ". The warning does not stop the program: torch.cuda.is_available() is still true, and the first kernel "
                    "launched on the GPU fails with " +
                    std::string(kCudaErrorNoKernelImageForDevice.name) + " (\"" + std::string(kNoKernelImageText) +
                    "\"): the build holds no SASS for this architecture and no PTX the driver could compile for it. The log does not "
                    "show that error; this finding predicts it.";
    if (const auto& list = b.scope().lookups.buildArchWarning(); list && !list->archs.empty()) {
        std::string archs;
        for (const auto& a : list->archs) archs += (archs.empty() ? "" : " ") + a;
        f.explanation += " The build holds " + archs + " (line " + str(list->listLine + 1) + ").";
    }
    if (cc.smVersion() < kCuda13OldestSmVersion)
        f.explanation +=
            " CUDA 13 compiles nothing older than sm_" + str(kCuda13OldestSmVersion) + ", so no CUDA 13 build runs on " + arch + ".";
    if (!b.deviceNamed()) b.deviceOfCapability(cc, "PyTorch's warning: every database GPU of compute capability " + cc.toString());
    if (f.arch.empty()) f.arch = arch;
    if (newer)
        f.fix = "install a PyTorch build for a newer CUDA that includes " + arch +
                " (torch.cuda.get_arch_list() shows what a build holds); or run on a GPU of compute capability " + range;
    else
        f.fix = "install a PyTorch build that still includes " + arch + " (an older CUDA's wheel: CUDA 13 compiles nothing older than sm_" +
                str(kCuda13OldestSmVersion) +
                "; torch.cuda.get_arch_list() shows what a build holds), or build from source with TORCH_CUDA_ARCH_LIST=" + cc.toString() +
                "; or run on a GPU of compute capability " +
                (older ? warning->minimum->toString() + " or newer" : std::string("this build supports"));
    if (!b.planDevice().id.empty() && (b.deviceNamed() || !f.impliedDevices.empty()))
        f.command = "tilescope-cli devices " + b.planDevice().id;
    b.fallbackCommand("");
}

// No bundled kernel is named: the families that could raise the message, likeliest first (the
// families' causes for this signature, in their order).
void rankFamilies(FindingBuilder& b) {
    auto& f = b.finding();
    if (!f.failingKernel.empty()) return;  // the log names its own kernel (core/diagnosis/failing_kernel)
    std::vector<const LikelyCause*> causes;
    for (const DiagnosisSignatures* family : contributions(b.scope().kernels))
        for (const auto& cause : family->causes)
            if (cause.signature == f.signature) causes.push_back(&cause);
    if (causes.empty()) return;
    std::stable_sort(causes.begin(), causes.end(), [](const LikelyCause* x, const LikelyCause* y) { return x->order < y->order; });
    for (const LikelyCause* cause : causes) f.familyRanking.emplace_back(cause->text);
    f.explanation += " The log names no bundled kernel; of the four families, the likeliest to raise this first: ";
    for (std::size_t i = 0; i < f.familyRanking.size(); ++i)
        f.explanation += (i ? "; " : "") + std::to_string(i + 1) + ". " + f.familyRanking[i];
    f.explanation += ".";
}

// A grid or block the runtime refused, in the kernel family the context names: that family sets
// the kernel and plans the log's shape; false when no family with a plan for it is named.
bool planRejectedLaunch(FindingBuilder& b, const std::string& family) {
    const KernelFamily* named = family.empty() ? nullptr : b.scope().kernels.find(family);
    const DiagnosisSignatures* contributed = named ? named->diagnosisSignatures() : nullptr;
    if (!contributed || !contributed->rejectedLaunch) return false;
    contributed->rejectedLaunch(b);
    return true;
}

std::string launchLimitsText(const DeviceSpec& device) {
    return "a grid dimension is 0 or over its limit (y and z: " + withThousands(device.maxGridDim[1]) + "), or the block is over " +
           withThousands(device.maxThreadsPerBlock) + " threads or its per-dimension limits.";
}

void buildInvalidConfiguration(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    // This name and text are the CUDA 12.x (and older) runtime's; CUDA 13 says "invalid argument".
    b.cudaRuntime(12);
    f.title = "CUDA rejected a launch configuration (grid or block)";
    f.explanation = "cudaErrorInvalidConfiguration: " + launchLimitsText(b.planDevice());
    f.fix = "find the kernel with CUDA_LAUNCH_BLOCKING=1 and compare its grid and block with the device's limits";
    if (planRejectedLaunch(b, b.familyFromContext())) return;
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    rankFamilies(b);
    b.fallbackCommand("");
}

void buildOutOfResources(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    const std::string family = b.familyFromContext();
    if (!family.empty()) b.kernel(family, "");
    const auto threads = b.figure(LogFigure::Threads);
    const auto registers = b.figure(LogFigure::Registers);
    b.value("threads_per_block", threads);
    b.value("registers_per_thread", registers);
    const DeviceSpec& device = b.planDevice();
    f.title = "too many resources requested for launch (registers x threads)";
    f.explanation =
        "cudaErrorLaunchOutOfResources: the block's registers (registers per thread x threads, allocated per "
        "warp) exceed the register file one block may use (" +
        withThousands(device.regsPerBlock) + ").";
    f.fix = "cap registers per thread (__launch_bounds__ or -maxrregcount) or launch fewer threads per block";
    if (threads && registers && *threads > 0 && *registers > 0) {
        // The runtime's own rule (launch_checks) decides; the limits come from the device.
        const KernelResourceTable noTable;
        auto launches = [&](std::int64_t t, int r) {
            LaunchPlan probe;
            probe.block = {t, 1, 1};
            probe.registers = r;
            finishLaunch(probe, device, noTable, PlanDetail::Brief);
            return probe;
        };
        const LaunchPlan asLogged = launches(*threads, static_cast<int>(*registers));
        if (asLogged.verdict == Verdict::OutOfResources && asLogged.limit) f.limit = asLogged.limit;
        std::int64_t maxThreads = 0;
        for (std::int64_t t = *threads; t >= device.warpSize; t -= device.warpSize)
            if (launches(t, static_cast<int>(*registers)).ok()) {
                maxThreads = t;
                break;
            }
        int maxRegisters = 0;
        for (int r = static_cast<int>(*registers); r >= 1; --r)
            if (launches(*threads, r).ok()) {
                maxRegisters = r;
                break;
            }
        if (asLogged.verdict == Verdict::OutOfResources) {
            std::vector<std::string> options;
            if (maxRegisters > 0)
                options.push_back("cap registers at " + str(maxRegisters) + " per thread for " + str(*threads) +
                                  " threads (__launch_bounds__(" + str(*threads) + ") or -maxrregcount=" + str(maxRegisters) + ")");
            if (maxThreads > 0)
                options.push_back("launch at most " + str(maxThreads) + " threads per block at " + str(*registers) + " registers");
            if (!options.empty()) {
                f.fix.clear();
                for (const auto& o : options) f.fix += (f.fix.empty() ? "" : "; or ") + o;
            }
            f.explanation += " With " + str(*registers) + " registers x " + str(*threads) + " threads the block needs " +
                             withThousands(asLogged.limit ? asLogged.limit->actual : 0) + " registers on " + device.archName() +
                             (b.deviceNamed() ? "" : " (" + device.id + ", the database default: the log names no device)") + ".";
        } else {
            f.explanation += " " + str(*registers) + " registers x " + str(*threads) + " threads fit the register file on " +
                             device.archName() + ": another resource of the launch is over.";
        }
    }
    // The bundled kernels' launches do not explain a tuning run's block size: show the device's limits.
    f.command = "tilescope-cli devices" + (b.deviceNamed() ? " " + device.id : std::string());
}

std::optional<std::int64_t> parseSize(const std::string& number, const std::string& unit) {
    double value = 0;
    try {
        value = std::stod(number);
    } catch (...) {
        return std::nullopt;
    }
    std::string u;
    for (char c : unit) u += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    const bool binary = u.find('I') != std::string::npos;
    const double base = binary ? 1024.0 : 1000.0;
    double scale = 1;
    switch (u.empty() ? 'B' : u[0]) {
        case 'K': scale = base; break;
        case 'M': scale = base * base; break;
        case 'G': scale = base * base * base; break;
        case 'T': scale = base * base * base * base; break;
        default: scale = 1;
    }
    return static_cast<std::int64_t>(std::llround(value * scale));
}

void buildOutOfMemory(FindingBuilder& b, const SvMatch&) {
    auto& f = b.finding();
    static const Pattern tried(R"(tried to allocate\s*([\d.]+)\s*([KMGT]i?B|bytes|B)\b)");
    static const Pattern total(R"((?:total capacity of\s*([\d.]+)\s*([KMGT]i?B))|(?:([\d.]+)\s*([KMGT]i?B) total capacity))");
    static const Pattern free(R"(([\d.]+)\s*([KMGT]i?B)\s+(?:is\s+)?free)");
    const std::string& text = b.scope().log.line(b.line());
    SvMatch m;
    if (tried.search(text, m)) b.value("tried_to_allocate_bytes", parseSize(m.str(1), m.str(2)));
    if (total.search(text, m))
        b.value("total_capacity_bytes", m[1].matched ? parseSize(m.str(1), m.str(2)) : parseSize(m.str(3), m.str(4)));
    if (free.search(text, m)) b.value("free_bytes", parseSize(m.str(1), m.str(2)));
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    const std::string lower = lowercaseAscii(text);
    const bool device = lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos ||
                        lower.find("device") != std::string::npos || lower.find("outofmemoryerror") != std::string::npos;
    f.title = device ? "device out of memory" : "out of memory (device or host: the line does not say)";
    f.explanation = device ? "The buffers did not fit in device memory."
                           : "Something ran out of memory; the line names neither CUDA nor a GPU, so this may be host memory.";
    f.fix = "lower the batch size or sequence length (the KV cache grows with both), free cached memory, or use a GPU with more memory";
    if (const auto capacity = b.valueOf("total_capacity_bytes")) {
        std::vector<std::string> larger;
        for (const auto& d : b.scope().devices.devices())
            if (d.memoryBytes > *capacity) larger.push_back(d.id);
        if (!larger.empty()) f.fix += " (" + joinList(larger) + ")";
    }
    const auto want = b.valueOf("tried_to_allocate_bytes");
    const auto available = b.valueOf("free_bytes");
    if (want && available) f.limit = LimitHit{"free_memory_bytes", *available, *want};
    b.fallbackCommand("");
}

void buildInvalidValue(FindingBuilder& b, const SvMatch& match) {
    auto& f = b.finding();
    const std::string matched = lowercaseAscii(match.str(0));
    // Driver-API stacks (Triton, pycuda, numba) name the driver's error whatever the runtime; the
    // runtime's own "CUDA error: invalid argument" at a launch is the CUDA 13 runtime's.
    const bool driverApi = matched.find("cuda_error") != std::string::npos || matched.find("culaunch") != std::string::npos ||
                           matched.find("triton") != std::string::npos;
    if (!driverApi) b.cudaRuntime(13);
    f.title =
        driverApi ? "CUDA driver API: invalid argument (CUDA_ERROR_INVALID_VALUE)" : "CUDA error: invalid argument (cudaErrorInvalidValue)";
    f.explanation = "At a kernel launch this means the launch was refused: " + launchLimitsText(b.planDevice()) +
                    " (the CUDA 13 runtime and the driver API report a bad grid or block this way; CUDA 12 runtimes say "
                    "\"invalid configuration argument\"), or dynamic shared memory over the device's opt-in limit (" +
                    withThousands(b.planDevice().smemPerBlockOptin) + " B on " + b.planDevice().archName() +
                    ") in cudaFuncSetAttribute or the launch.";
    f.fix =
        "find the kernel with CUDA_LAUNCH_BLOCKING=1; compare its grid and block with the device's limits and its dynamic "
        "shared memory with the opt-in limit";
    if (planRejectedLaunch(b, b.familyFromContext())) return;
    b.value("batch", b.figure(LogFigure::Batch));
    b.value("seq", b.figure(LogFigure::Seq));
    rankFamilies(b);
    b.fallbackCommand("");
}

}  // namespace

// The signatures of no bundled family. Their order numbers leave room between them for the
// families' (kernels/<family>/diagnosis.cpp): a kernel's exact text comes before a looser generic
// one that also matches it; core/README.md lists the whole order.
const std::vector<Signature>& coreSignatures() {
    using V = Verdict;
    static const std::vector<Signature> list{
        {20,
         "smem.launch_arch",
         {"launch shared memory"},
         R"(launch shared memory exceeds current GPU arch\s+(sm_\w+)\s+allowed\.?(?:\s*Allocated:\s*(\d+)\s*bytes\.?\s*Max:\s*(\d+)\s*bytes\.?)?)",
         V::InvalidLaunch,
         true,
         buildCuteSmem},
        {50,
         "ptxas.static_smem",
         {"uses too much shared data"},
         R"(uses too much shared data \((0x[0-9a-f]+) bytes(?:\s*\+\s*(0x[0-9a-f]+) bytes system)?,\s*(0x[0-9a-f]+) max\))",
         V::UnsupportedShape,
         false,
         buildStaticSmem},
        {60,
         "tile.not_divisible",
         {"is not divisible by"},
         R"(([A-Za-z_]\w*)\s*=\s*(\d+)\s+is not divisible by\s+([A-Za-z_]\w*)\s*=\s*(\d+))",
         V::UnsupportedShape,
         false,
         buildNotDivisible},
        {220,
         "device.bf16",
         {"bfloat16 is only supported on gpus"},
         R"(Bfloat16 is only supported on GPUs with compute capability of at least (\d+)\.(\d+))",
         V::UnsupportedDevice,
         false,
         buildBf16Device},
        {230,
         "smem.capacity",
         {"memory capacity"},
         R"(exceeds\s+(?:the\s+)?(\w+\s+)?shared[- ]?memory\s+capacity(?:\s*\(\s*(\d+)\s*bytes\s*\))?)",
         V::NoTileFits,
         false,
         buildLooseCapacity},
        {240,
         "cuda.out_of_resources",
         {"too many resources", "launchoutofresources"},
         R"((?:CUDA error:\s*)?too many resources requested for launch|cudaErrorLaunchOutOfResources)",
         V::OutOfResources,
         true,
         buildOutOfResources},
        {250,
         "cuda.invalid_configuration",
         {"invalid configuration", "invalidconfiguration"},
         R"((?:CUDA error:\s*)?invalid configuration argument|cudaErrorInvalidConfiguration)",
         V::InvalidLaunch,
         true,
         buildInvalidConfiguration},
        // vLLM's check of any quantization method; AWQ's own text is awq_gemm's (awq_gemm.vllm_capability, 145).
        {215,
         "vllm.quantization_capability",
         {"is not supported for the current gpu"},
         R"(The quantization method ([\w-]+) is not supported for the current GPU\.?\s*Minimum capability:\s*(\d+)\.?\s*Current capability:\s*(\d+)\.?)",
         V::UnsupportedDevice,
         false,
         buildQuantizationCapability},
        // The same check for a compressed-tensors checkpoint, its message a printed Python tuple (vLLM's
        // compressed_tensors.py passes three strings to RuntimeError); the joined sentence matches too.
        {216,
         "vllm.compressed_tensors_capability",
         {"quantization scheme is not supported"},
         R"((?:\(')?Quantization scheme is not supported for[',\s]*the current GPU\.?[',\s]*Min capability:\s*(\d+)\.?[',\s]*Current capability:\s*(\d+)\.?(?:'\))?)",
         V::UnsupportedDevice,
         false,
         buildCompressedTensorsCapability},
        {260,
         "cuda.out_of_memory",
         {"out of memory", "outofmemory", "memoryallocation"},
         R"(CUDA out of memory|(?:CUDA error:\s*)?out of memory|cudaErrorMemoryAllocation|OutOfMemoryError)",
         V::OutOfMemory,
         true,
         buildOutOfMemory},
        // The runtime's text (CUDA 13 at a launch; any version at cudaFuncSetAttribute), and the
        // driver API's as Triton ("Triton Error [CUDA]: invalid argument", triton-lang/triton #3299),
        // pycuda ("cuLaunchKernel failed: invalid argument", tinygrad #625) and numba / Halide
        // ("... CUDA_ERROR_INVALID_VALUE", numba #1055) print it.
        {270,
         "cuda.invalid_value",
         {"invalid argument", "invalidvalue", "invalid_value"},
         R"(CUDA error:\s*invalid argument|cudaErrorInvalidValue|Triton Error \[CUDA\]:\s*invalid argument|cuLaunchKernel failed:\s*invalid argument|CUDA_ERROR_INVALID_VALUE)",
         V::InvalidLaunch,
         true,
         buildInvalidValue},
        // The runtime's text (PyTorch's "CUDA error: ...", CUDA samples' "(error code ...)", THCudaCheck's
        // "error=48 : ..." before CUDA 10.1 renumbered it 209) and the driver API's name, as numba prints it
        // ("('Failed to load module', 'CUDA_ERROR_NO_BINARY_FOR_GPU')", ContinuumIO/numbapro-examples #2).
        {275,
         "cuda.no_kernel_image",
         {"no kernel image", "no_binary_for_gpu"},
         R"((?:CUDA error:\s*)?no kernel image is available for execution on the device|CUDA_ERROR_NO_BINARY_FOR_GPU)",
         V::UnsupportedDevice,
         true,
         buildNoKernelImage},
        // PyTorch's warning at CUDA's start that the GPU's capability is outside its build's: it predicts
        // cuda.no_kernel_image and yields to it when the log shows it.
        {280,
         "torch.gpu_too_old",
         {"which is of cuda capability"},
         R"(Found GPU\d+\s+.+ which is of cuda capability \d+\.\d+)",
         V::UnsupportedDevice,
         false,
         buildOldGpuWarning,
         "cuda.no_kernel_image"},
    };
    return list;
}

}  // namespace tilescope

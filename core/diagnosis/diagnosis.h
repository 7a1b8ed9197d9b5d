// Diagnosis: a log or traceback in, findings out. Each finding names the kernel family and
// limit behind a known error signature, the shape values the text gives, the device it names,
// the planner's verdict on that shape (when the text gives enough of it), a fix and a ready
// tilescope-cli command. The CLI (`diagnose`) and the GUI's Diagnose dock both show it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"
#include "core/diagnosis/model_catalog.h"
#include "core/model/result.h"

namespace tilescope {

class DeviceDatabase;

// One figure the text gives: a kernel parameter ("M", "head_dim") or a launch figure
// ("smem_bytes", "registers_per_thread"), named as in the family's parameter list where it is one.
struct DiagnosisValue {
    std::string name;
    std::int64_t value = 0;
    int line = 0;        // 1-based line of the log it came from; 0 when not from the log (a model config, a product)
    std::string source;  // where it came from: the log's text ("prompt tokens: 16384") or "config.json of <model>: ..."
};

// One reading of a figure the text gives, when readings disagree: the plan takes the chosen one.
struct DiagnosisCandidate {
    std::string name;  // "M"
    std::int64_t value = 0;
    int line = 0;         // 1-based
    std::string source;   // the text read
    std::string reading;  // what the text says it is: "prompt length", "tensor shape", "step token budget"
    bool chosen = false;
};

// A layer of the model the log names, planned at the finding's shape.
struct DiagnosisLayer {
    std::string name;                   // "gate_proj"
    std::vector<DiagnosisValue> shape;  // N, K, group_size (linear) or heads, head_dim (an attention call)
    Verdict verdict = Verdict::Ok;
    std::string message;
};

struct DiagnosisFinding {
    Verdict kind = Verdict::InvalidLaunch;  // what the log shows, in KERNELS.md's verdict kinds
    std::string signature;                  // stable id of the matched signature, "<family>.batch", "cuda.out_of_memory"
    std::string title;                      // one line for a list: "AWQ GEMV kernel got batch 2"
    std::string family;                     // "" when the text does not say which kernel
    std::string variant;                    // "" when unknown
    std::string message;                    // the matched text
    int line = 0;                           // 1-based line of the (first) occurrence
    std::vector<int> lines;                 // every line where the same finding occurs
    std::vector<DiagnosisValue> shape;      // values the text gives
    std::string arch;                       // "sm_89" when the text names the architecture
    std::string deviceId;                   // database id when the text names a device unambiguously
    std::string deviceText;                 // how the text names the device ("NVIDIA GeForce RTX 4090")
    std::optional<LimitHit> limit;          // the limit involved and the value that broke it
    std::string explanation;                // what happened, in a sentence or two
    std::string fix;
    std::string command;                         // ready tilescope-cli command (plan, or devices when no kernel is known)
    std::string sweepCommand;                    // tilescope-cli sweep along the failing axis; "" when no kernel is known
    std::string sweepAxis;                       // that sweep's axis ("M=1:65536:x2"), for a boundary map to open
    std::string sweepShape;                      // its base shape ("M=32768,N=5376,..."); "" = the family's defaults
    std::string sweepDevice;                     // its device id
    std::optional<int> consequenceOf;            // index of the finding that caused this one
    std::vector<DiagnosisCandidate> candidates;  // every reading of a figure the text gives, when they disagree
    std::string model;                           // the model the log names (Hugging Face id), "" when none is known
    std::string modelSource;                     // where its config came from, and the log line that names it
    std::vector<DiagnosisLayer> layers;          // the model's layers of the finding's kernel, planned at its shape
    std::optional<std::int64_t> boundary;        // along the sweep axis: the passing value nearest the failing one
    std::vector<std::string> familyRanking;      // when the text names no kernel: the bundled families that could raise it, likeliest first
    // The kernel the log itself names at the error (a .cu:line, an extension op, a Triton launch,
    // the API called), how it names it and the 1-based line; "" / 0 when it names none.
    std::string failingKernel;
    std::string failingKernelHow;
    int failingKernelLine = 0;
    std::string unknown;  // which figures the text does not give, and how to supply them
    // The database GPUs the text implies without naming one (an architecture, a printed limit), and why.
    std::vector<std::string> impliedDevices;
    std::string impliedBy;  // "sm_89: every database GPU of compute capability 8.9"

    // The bundled planner's view of the shape the text implies; nullopt when the text gives too little.
    std::optional<LaunchPlan> plan;
    std::string plannedDevice;  // the device id the plan used
    std::string planNote;       // how the planned shape and device were chosen
};

struct Diagnosis {
    std::vector<DiagnosisFinding> findings;  // in line order; consequences point back to their cause
    int lineCount = 0;
};

// Reads a whole log. Errors (as values): empty or binary input. Text with no known signature
// gives a Diagnosis without findings. `kernels` plans the implied shapes; `devices` resolves
// device names and supplies the device to plan on.
Result<Diagnosis> diagnoseText(std::string_view text, const KernelRegistry& kernels, const DeviceDatabase& devices);

// Model configs beyond the embedded resources/models: `models` are matched against the names the
// log gives; `model` (diagnose --model) is the one to use when the log names none of them.
struct DiagnosisOptions {
    std::vector<CatalogModel> models;
    std::optional<CatalogModel> model;
    // For a front-end that diagnoses off its UI thread: `progress` (when set) is called now and
    // then with the share of the log's lines read so far (0 to 1), from the diagnosing thread;
    // when `cancel` is set and becomes true the diagnosis stops and returns the error kDiagnosisCancelled.
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
};
inline constexpr const char* kDiagnosisCancelled = "the diagnosis was cancelled";
Result<Diagnosis> diagnoseText(std::string_view text, const KernelRegistry& kernels, const DeviceDatabase& devices,
                               const DiagnosisOptions& options);

// What the diagnosis knows, for an answer that found no signature: the upstream checks of each
// family that contributes its own error texts (by title), then core's generic ones.
std::string knownSignaturesText(const KernelRegistry& kernels);

// The lines a finding occurs on, for a reader: every line while there are few ("5, 6"), else the
// count, the first lines and the last ("x 16,000, lines 1, 2, 3, 4, 5, 6, 7, 8, ..., 16000").
std::string occurrencesText(const std::vector<int>& lines);

// {"findings": [...]}: each with kind, family, variant, message, line, shape, device, fix,
// command, consequence_of (null when none) and the fields after them. A refusal (no finding)
// adds "reason", "known" and "known_signatures" (every signature id, in the order tried).
nlohmann::ordered_json diagnosisToJson(const Diagnosis& diagnosis, const KernelRegistry& kernels);

// The device ids a free-text device name refers to ("RTX 4090", "H100 PCIe", "sm_120"): one id
// when unambiguous, several when the text fits more than one, none when it names no known GPU.
std::vector<std::string> matchDeviceName(std::string_view text, const DeviceDatabase& devices);

}  // namespace tilescope

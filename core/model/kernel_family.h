// KernelFamily: one bundled kernel family's parameters, variants and planner, and their registry.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/launch_plan.h"
#include "core/model/shape.h"

namespace tilescope {

struct DeviceSpec;
struct DiagnosisSignatures;

// One axis of the Boundaries map a variant opens on: a parameter, and the range that shows its
// boundary (0..0: the parameter's own explorer range, core/series/explorer_axis.h).
struct MapAxisHint {
    std::string parameter;  // "M"
    std::int64_t from = 0;
    std::int64_t to = 0;
    int cells = 0;  // values along the axis; 0: the page's "cells per axis" (group_size: 4 powers of two, not 32 in-betweens)
};

struct VariantInfo {
    std::string name;         // "legacy_grid_y"
    std::string description;  // one line for lists and tooltips
    std::string upstream;     // the upstream file whose launch design it follows
    // The plane where this variant's failures are (gemv: M x group_size, it takes M=1 and groups of
    // 64/128 only), so a map opened on it shows both sides of a boundary (issue #15 item 8).
    MapAxisHint mapX;
    MapAxisHint mapY;  // empty parameter: a 1-D map
};

// The element type of a family's tensor math; it picks which tensor peak a roofline bounds it by.
enum class ElementType { Fp16, Bf16 };

// A call of a Hugging Face AWQ model that a model check plans (core/diagnosis/model_check.h).
enum class ModelCall {
    None,
    AwqLinearGemmPacked,  // a linear layer of a GEMM-packed checkpoint (quantization_config.version "gemm")
    AwqLinearGemvPacked,  // a linear layer of a GEMV-packed one ("gemv", "gemv_fast")
    Attention,            // the attention call
};

// What a variant is to the backend matrix (`check-model --backends`, the Backends page;
// core/series/backend_matrix.h): an attention backend a serving or training stack may pick, or a
// quantized GEMM a checkpoint's linear layers may run on. The matrix fills the variant's
// parameters by name from the checkpoint (batch, seqlen_q, seqlen_k, heads, kv_heads, head_dim,
// head_dim_v, causal, train; M, N, K, group_size) and leaves the others at their defaults.
enum class BackendRole {
    None,
    AttentionForward,   // prefill / training forward: seqlen_q = seqlen_k = seq
    AttentionDecode,    // one new token per sequence: seqlen_q = 1, seqlen_k = seq
    AttentionBackward,  // the backward pass (`--train` only)
    QuantizedGemm,      // every linear layer of a quantized checkpoint: M = batch x seq
};

// Where a family whose shape is one launch's own figures keeps each figure: the parameter index of
// the grid, block, registers per thread, static and dynamic shared memory and the opt-in flag.
struct LaunchFigureParameters {
    int gridX, gridY, gridZ;
    int blockX, blockY, blockZ;
    int registers, staticSmem, dynamicSmem, smemOptin;
};

class KernelFamily {
public:
    virtual ~KernelFamily() = default;

    virtual std::string_view name() const = 0;                     // the family's folder under kernels/
    virtual std::string_view title() const = 0;                    // "AWQ 4-bit GEMM"
    virtual const std::vector<VariantInfo>& variants() const = 0;  // [0] is the default
    virtual const ParameterList& parameters() const = 0;
    // The only place this family's launch is computed. Never throws: failures are verdicts.
    virtual LaunchPlan plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const = 0;
    // Every device function the planner may name in LaunchPlan::kernelSymbol.
    virtual std::vector<std::string_view> kernelSymbols() const = 0;
    // False for a family that only models launches: no device code, so `run`, `sweep --run`
    // and GPU > Run refuse it, and the register table has no entries for its symbols.
    virtual bool hasDeviceCode() const { return true; }
    // False for a variant with no device code in a family that has some (attention's fa2_bwd plans
    // upstream's backward, which this build does not compile): run and sweep --run refuse it too.
    // Front-ends ask KernelChoice::hasDeviceCode(), which is this.
    virtual bool variantHasDeviceCode(int variant) const {
        (void)variant;
        return hasDeviceCode();
    }
    // True when every kernel also has a bf16 instantiation, <symbol>_bf16 (`run --dtype bf16`).
    virtual bool hasBf16Kernels() const { return false; }
    // The family's error texts and clues for `diagnose` (kernels/<family>/diagnosis.cpp, which
    // core/diagnosis/diagnosis_signatures.h describes); null when it has none.
    virtual const DiagnosisSignatures* diagnosisSignatures() const { return nullptr; }
    // Non-null for a family that takes any kernel's launch by its own figures (grid, block, registers,
    // shared memory), as a build log or a profile reports them: `check-launch` and File > Open Build
    // Log open a reported kernel as this family.
    virtual const LaunchFigureParameters* launchFigureParameters() const { return nullptr; }
    // The plan's refusal as the compiler would word it for `function`, a reported kernel's own name
    // (the plan names the family's label); the plan's message when the family has no such text.
    virtual std::string refusalFor(const LaunchPlan& plan, std::string_view function) const;
    // What LaunchPlan::splitK counts in this family's plans, as a plan change names it ("split-K 1 -> 8").
    virtual std::string_view splitName() const { return "split-K"; }
    // The element type of this family's tensor math when a run does not say (`run --dtype`).
    virtual ElementType elementType() const { return ElementType::Fp16; }
    // The model call this family plans in a model check; None: a model check plans nothing with it.
    virtual ModelCall modelCall() const { return ModelCall::None; }
    // What `variant` is to the backend matrix; None: the matrix leaves it out.
    virtual BackendRole backendRole(int variant) const {
        (void)variant;
        return BackendRole::None;
    }

    int variantIndex(std::string_view variantName) const;  // -1 when unknown

protected:
    // What every plan starts with: this family, the variant's name, the shape, and the device id
    // (Full detail only: a sweep cell does not carry it). Planners call it first.
    LaunchPlan startPlan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const;
};

class KernelRegistry {
public:
    void add(std::unique_ptr<KernelFamily> family);
    const std::vector<std::unique_ptr<KernelFamily>>& families() const { return m_families; }
    const KernelFamily* find(std::string_view name) const;
    // The first family that takes a launch's own figures (KernelFamily::launchFigureParameters); null when none.
    const KernelFamily* launchFiguresFamily() const;
    std::string names() const;  // every family's name, ", "-joined, for error messages
    // The first family that plans `call` in a model check; null when none does.
    const KernelFamily* planning(ModelCall call) const;

private:
    std::vector<std::unique_ptr<KernelFamily>> m_families;
};

// A family and one of its variants, resolved from user input.
struct KernelChoice {
    const KernelFamily* family = nullptr;
    int variant = 0;
    std::string_view variantName() const { return family->variants()[static_cast<std::size_t>(variant)].name; }
    bool hasDeviceCode() const { return family->variantHasDeviceCode(variant); }  // something to run on a GPU
};

// Resolves "--kernel <family> --variant <variant>"; an empty variant means the default.
Result<KernelChoice> resolveKernel(const KernelRegistry& registry, std::string_view family, std::string_view variant);

}  // namespace tilescope

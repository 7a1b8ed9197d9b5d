// _tilescope: the pybind11 binding under the Python package `tilescope` (python/tilescope/__init__.py).
// No logic of its own: every function resolves its inputs and builds its JSON with the functions
// tilescope-cli calls (app/frontend, core) and returns that JSON as text, which the package turns into
// Python values, so that X(...).to_dict() equals `tilescope-cli X --json`. Bad input (the CLI's exit 2)
// raises ValueError with the CLI's message; any other C++ exception becomes a Python exception at this
// boundary (pybind11 translates std::exception and unknown exceptions), never a crash.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "app/frontend/frontend.h"
#include "app/frontend/launch_check.h"
#include "core/diagnosis/model_check.h"
#include "core/model/build_info.h"
#include "core/model/fix_finder.h"
#include "core/series/launch_usage.h"
#include "core/trace/json_io.h"
#include "kernels/builtin_kernels.h"

namespace py = pybind11;

namespace tilescope::python {

using frontend::orUsageError;
using frontend::UsageError;
using nlohmann::ordered_json;

namespace {

const DeviceDatabase& database() { return DeviceDatabase::embedded(); }

// Python drops the GIL while the core plans, so that other threads of a serving process run on.
template <typename F>
std::string released(F&& f) {
    py::gil_scoped_release release;
    return f().dump();
}

std::string devices(const std::string& id) {
    return released([&] { return id.empty() ? frontend::devicesJson() : frontend::deviceJson(id); });
}

std::string kernels(const std::string& name) {
    return released([&] { return frontend::kernelsJson(name); });
}

frontend::KernelOptions kernelOptions(const std::string& kernel, const std::string& variant, const std::string& device,
                                      const std::string& shape, const std::string& cuda) {
    return {kernel, variant, device, shape, cuda};
}

// `plan --json` [--estimate]: as runPlan (app/cli/commands_model.cpp).
std::string plan(const std::string& kernel, const std::string& variant, const std::string& device, const std::string& shape,
                 const std::string& cuda, bool estimate) {
    return released([&] {
        const frontend::Resolved r = frontend::resolve(kernelOptions(kernel, variant, device, shape, cuda));
        return frontend::planJson(planWithFix(r.kernel, r.shape, r.device, &database()), r, estimate);
    });
}

// `sweep --json`: as runSweep in model mode.
std::string sweep(const std::string& kernel, const std::string& variant, const std::string& device, const std::string& shape,
                  const std::string& cuda, const std::string& x, const std::string& y, int threads) {
    return released([&] {
        const frontend::Resolved r = frontend::resolve(kernelOptions(kernel, variant, device, shape, cuda));
        auto axes = frontend::sweepAxes(r, x, y);
        BoundaryMap map(r.kernel, r.device, r.shape, std::move(axes.x), std::move(axes.y));
        SweepOptions options;
        options.threads = threads;
        evaluateBoundaryMap(map, options);
        return boundaryMapToJson(map);
    });
}

// `diagnose - --json` (the text as standard input) [--model PATH].
std::string diagnose(const std::string& text, const std::string& model) {
    return released([&] { return diagnosisToJson(frontend::diagnoseInput(text, "standard input", model), builtinKernels()); });
}

// What preflight's LaunchError names: the failing layer (or call), the limit, the shape and the fix.
py::dict failureOf(const std::string& layer, const KernelChoice& kernel, std::optional<std::int64_t> batch, std::optional<std::int64_t> seq,
                   const LaunchPlan& plan) {
    py::dict failure;
    failure["layer"] = layer;
    failure["kernel"] = std::string(kernel.family->name());
    failure["variant"] = std::string(kernel.variantName());
    failure["batch"] = batch ? py::object(py::int_(*batch)) : py::none();
    failure["seq"] = seq ? py::object(py::int_(*seq)) : py::none();
    failure["verdict"] = std::string(verdictName(plan.verdict));
    failure["message"] = plan.message;
    failure["limit"] = plan.limit ? py::object(py::str(describeLimit(*plan.limit))) : py::none();
    failure["shape"] = formatShape(plan.shape, kernel.family->parameters());
    failure["fix"] = plan.fix.empty() ? py::none() : py::object(py::str(plan.fix));
    return failure;
}

// The first failing layer of a model check, in the model's order, at its first failing batch x seq.
py::object firstFailure(const ModelCheck& check) {
    for (const ModelLayerCheck& l : check.layers) {
        if (!l.firstFailure) continue;
        const ModelCheckResult& r = l.results[*l.firstFailure];
        const KernelChoice kernel = orUsageError(resolveKernel(builtinKernels(), l.layer.family, l.layer.variant));
        return failureOf(l.layer.name, kernel, r.batch, r.seq, r.plan);
    }
    return py::none();
}

// `plan --json` and, when the call fails, what preflight's LaunchError names.
py::tuple planCall(const std::string& kernel, const std::string& variant, const std::string& device, const std::string& shape,
                   const std::string& cuda) {
    std::optional<frontend::Resolved> r;
    std::optional<LaunchPlan> plan;
    {
        py::gil_scoped_release release;
        r = frontend::resolve(kernelOptions(kernel, variant, device, shape, cuda));
        plan = planWithFix(r->kernel, r->shape, r->device, &database());
    }
    const std::string json = frontend::planJson(*plan, *r, false).dump();
    if (plan->ok()) return py::make_tuple(json, py::none());
    return py::make_tuple(json, failureOf(std::string(r->kernel.family->name()) + " call", r->kernel, std::nullopt, std::nullopt, *plan));
}

// `check-model CONFIG --json` with --device, --batch, --seq and --attention (empty: the CLI's default);
// `configText` (JSON of a Python dict) stands for a file when given.
py::tuple checkModel(const std::string& path, const std::optional<std::string>& configText, const std::string& device,
                     const std::string& batches, const std::string& seqs, const std::string& attention, const std::string& stack) {
    std::optional<ModelCheck> check;
    {
        py::gil_scoped_release release;
        check = frontend::modelCheck(path, configText, device, batches, seqs,
                                     attention.empty() ? frontend::defaultAttentionVariant() : attention, stack);
    }
    return py::make_tuple(modelCheckToJson(*check).dump(), firstFailure(*check));
}

// `check-model CONFIG --backends --json` with --devices, --batch, --seq and --train, as runBackendCheck
// (app/cli/commands_backends.cpp); `configText` (JSON of a Python dict) stands for a file when given.
std::string checkModelBackends(const std::string& path, const std::optional<std::string>& configText, const std::string& devices,
                               const std::string& batches, const std::string& seqs, bool train) {
    return released([&] {
        const auto check = frontend::backendCheck(path, configText, devices, frontend::parseList(batches, "--batch"),
                                                  frontend::parseList(seqs, "--seq"), train);
        return backendMatrixToJson(check.matrix);
    });
}

// `check-launch INPUT --json`; `text` (when given) is what the CLI would read from standard input.
std::string checkLaunch(const std::string& input, const std::optional<std::string>& text, const std::string& format,
                        const std::string& block, const std::string& grid, const std::string& devices, const std::string& cuda) {
    return released([&] {
        const KernelFamily* family = builtinKernels().launchFiguresFamily();
        if (!family) throw UsageError{"this build has no family that takes a launch's own figures (check-launch)"};
        frontend::CheckLaunchOptions o;
        o.input = text ? "-" : input;
        o.text = text;
        o.format = format;
        o.block = block;
        o.grid = grid;
        o.devices = devices;
        o.cuda = cuda;
        const auto run = frontend::runLaunchCheck(o, *family);
        return frontend::checksJson(o.input, run->report, run->checks, run->cudaRuntime, run->devices, KernelChoice{family, 0});
    });
}

// `import-kineto FILE --json` [--device].
std::string importKineto(const std::string& file, const std::string& device) {
    return released([&] { return frontend::kinetoImportJson(file, frontend::importKineto(file, device, false, {})); });
}

// `trace summary FILE --json` [--cliffs].
std::string traceSummary(const std::string& file, bool cliffs) {
    return released([&] { return frontend::traceSummaryJson(frontend::openTrace(file, {}), {}, cliffs); });
}

}  // namespace

}  // namespace tilescope::python

PYBIND11_MODULE(_tilescope, m) {
    using namespace tilescope::python;
    m.doc() = "Tilescope's core, bound for the Python package 'tilescope' (use that, not this module)";
    // The CLI's usage and input errors (its exit code 2) are ValueErrors with the same message.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const tilescope::frontend::UsageError& e) {
            PyErr_SetString(PyExc_ValueError, e.message.c_str());
        }
    });
    m.attr("__version__") = std::string(TILESCOPE_VERSION);
    m.attr("git_revision") = tilescope::gitRevision();
    m.def("devices", &devices, py::arg("id") = "");
    m.def("kernels", &kernels, py::arg("name") = "");
    m.def("plan", &plan, py::arg("kernel"), py::arg("variant"), py::arg("device"), py::arg("shape"), py::arg("cuda"), py::arg("estimate"));
    m.def("plan_call", &planCall, py::arg("kernel"), py::arg("variant"), py::arg("device"), py::arg("shape"), py::arg("cuda"));
    m.def("sweep", &sweep, py::arg("kernel"), py::arg("variant"), py::arg("device"), py::arg("shape"), py::arg("cuda"), py::arg("x"),
          py::arg("y"), py::arg("threads"));
    m.def("diagnose", &diagnose, py::arg("text"), py::arg("model") = "");
    m.def("check_model", &checkModel, py::arg("path"), py::arg("config_text"), py::arg("device"), py::arg("batches"), py::arg("seqs"),
          py::arg("attention"), py::arg("stack") = "");
    m.def("check_model_backends", &checkModelBackends, py::arg("path"), py::arg("config_text"), py::arg("devices"), py::arg("batches"),
          py::arg("seqs"), py::arg("train"));
    m.def("check_launch", &checkLaunch, py::arg("input"), py::arg("text"), py::arg("format"), py::arg("block"), py::arg("grid"),
          py::arg("devices"), py::arg("cuda"));
    m.def("import_kineto", &importKineto, py::arg("file"), py::arg("device") = "");
    m.def("trace_summary", &traceSummary, py::arg("file"), py::arg("cliffs") = false);
}

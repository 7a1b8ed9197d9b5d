// The text of a report, for an engineer to attach to a bug: HTML (one self-contained file,
// plots embedded as base64 PNG) and Markdown (plots as files beside it). A report exported from
// the app covers what the explorer shows (kernel, shape, devices, verdict, boundary map) and the
// open trace. Every string that comes from a trace is escaped. The GUI renders the plots and the
// PDF; the assembly lives here, tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/series/calibration.h"
#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"
#include "core/model/shape.h"
#include "core/trace/trace.h"

namespace tilescope {

struct ReportPlot {
    std::string title;     // caption
    std::string fileName;  // "timeline.png": the Markdown report's file, the HTML figure's id
    std::string png;       // the encoded PNG bytes
};

// The explorer's state when the report was exported: kernel, shape, device and compare device,
// each one's plan (verdict, limit, CUDA error, fix) and the Boundaries page's map.
struct ReportExplorer {
    ParameterList parameters;  // the family's, to name the shape's values
    DeviceSpec device;
    LaunchPlan plan;
    std::optional<DeviceSpec> compareDevice;
    std::optional<LaunchPlan> comparePlan;
    std::optional<ReportPlot> map;  // the Boundaries page's plot
    std::string mapLegend;          // what its colours and lines mean, plain text
};

// Everything one report holds. No trace, or an empty one: the explorer part alone.
struct ReportContent {
    std::string title;     // "Tilescope report: bert.json.gz"
    std::string subtitle;  // one line under the title (what was exported, when); may be empty
    const Trace* trace = nullptr;
    std::vector<ReportPlot> tracePlots;  // the trace's timeline and kernel times
    std::optional<ReportExplorer> explorer;
};

std::string htmlEscape(std::string_view text);  // & < > " '
std::string base64Encode(std::string_view bytes);

// `kernels`: the families the trace's runs are read against (each names its element type and its
// split for the Roofline section). `calibrations`: measured rooflines (the GUI's); the Roofline
// section holds a measured run of a calibrated GPU against its calibration, any other against its datasheet.
std::string reportHtml(const ReportContent& content, const KernelRegistry& kernels, const std::vector<Calibration>& calibrations = {});
// Plots referenced as `plotFolder/fileName` (a folder the caller writes them to).
std::string reportMarkdown(const ReportContent& content, const KernelRegistry& kernels, std::string_view plotFolder,
                           const std::vector<Calibration>& calibrations = {});
// The trace alone (`title` heads the report).
std::string reportHtml(const Trace& trace, const KernelRegistry& kernels, const std::vector<ReportPlot>& plots, std::string_view title);
std::string reportMarkdown(const Trace& trace, const KernelRegistry& kernels, const std::vector<ReportPlot>& plots, std::string_view title,
                           std::string_view plotFolder);

// A run's duration in µs as a report shows it: "12.345" (the timing's median, else its kernels'
// sum), "—, failed" when the GPU run failed, "predicted" for a model run, "—" when nothing was timed.
std::string runDurationText(const Run& run);

// A report's file name without suffix: the trace's file name less its .json / .json.gz /
// .tilescope.json ending ("alexnet.json.gz" -> "alexnet-report"); with no trace, the kernel and
// shape ("<family>-<variant>-M1-N4096-K4096-report"). Only [A-Za-z0-9._-] survive.
std::string reportBaseName(std::string_view traceFileName, std::string_view family = {}, std::string_view variant = {},
                           std::string_view shapeText = {});

// Limits of a report's tables, so a 100k-record trace still gives a readable file.
inline constexpr std::size_t kReportMaxConfigurations = 40;
inline constexpr std::size_t kReportMaxFlagged = 100;
// Kernel names longer than this are shown with their middle elided and the full name in a
// footnote under the table (template arguments run to thousands of characters).
inline constexpr std::size_t kReportMaxNameChars = 180;
// A footnote's name is at most this long: a 5,123-character name printed whole was a page and a half
// of the PDF (issue 31).
inline constexpr std::size_t kReportMaxFootnoteChars = 600;

// A long kernel name as a footnote gives it: every bracket nested inside the first level's written
// "<…>" / "(…)" ("kernel<float, 4, transform<…>(…)::{lambda(…)#2}>(…)"), then the middle elided when
// still over kReportMaxFootnoteChars; `name` itself when it is already that short.
std::string compactKernelName(std::string_view name);

}  // namespace tilescope

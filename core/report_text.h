// The text of a trace report, for an engineer to attach to a bug: HTML (one self-contained file,
// plots embedded as base64 PNG) and Markdown (plots as files beside it). Every string that comes
// from a trace is escaped. The GUI renders the plots and the PDF; the assembly lives here, tested.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"

namespace tilescope {

struct ReportPlot {
    std::string title;     // caption
    std::string fileName;  // "timeline.png": the Markdown report's file, the HTML figure's id
    std::string png;       // the encoded PNG bytes
};

std::string htmlEscape(std::string_view text);  // & < > " '
std::string base64Encode(std::string_view bytes);

// `title` heads the report ("Tilescope report: bert.json.gz").
std::string reportHtml(const Trace& trace, const std::vector<ReportPlot>& plots, std::string_view title);
// Plots referenced as `plotFolder/fileName` (a folder the caller writes them to).
std::string reportMarkdown(const Trace& trace, const std::vector<ReportPlot>& plots, std::string_view title,
                           std::string_view plotFolder);

// Limits of a report's tables, so a 100k-record trace still gives a readable file.
inline constexpr std::size_t kReportMaxConfigurations = 40;
inline constexpr std::size_t kReportMaxFlagged = 100;

}  // namespace tilescope

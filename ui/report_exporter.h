// ReportExporter: a trace as a report file, chosen by suffix: .html (one self-contained file),
// .pdf (the same content through QTextDocument and QPdfWriter) or .md (Markdown with its PNG plots
// in a folder beside it, "<name>_files/"). Plots are rendered offscreen, so the command line can
// export without a display; the text itself comes from core/report_text.
#pragma once

#include <QImage>
#include <QString>
#include <vector>

#include "core/report_text.h"
#include "core/result.h"

namespace tilescope {

class ReportExporter {
public:
    // The timeline and the kernels by total time, as PNGs (none when the trace has no records).
    static std::vector<ReportPlot> renderPlots(const Trace& trace);
    static QImage renderTimeline(const Trace& trace, QSize size);
    static QImage renderKernelTimes(const Trace& trace, QSize size);

    static Result<void> exportReport(const Trace& trace, const QString& path, const QString& title);

    static constexpr int kPlotWidth = 1200;
    static constexpr int kPlotHeight = 420;
    static constexpr int kTopKernels = 15;
    static constexpr int kMinTimelineHeight = 80;
    static constexpr int kPdfImageWidth = 900;  // layout pixels: the width of a landscape A4 page's text
};

}  // namespace tilescope

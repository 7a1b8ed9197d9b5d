#include "ui/pages/timeline_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "core/series/timeline_layout.h"
#include "ui/widgets/timeline_view.h"
#include "ui/window/trace_document.h"

namespace tilescope {

namespace {
constexpr double kButtonZoom = 2.0;
}

TimelinePage::TimelinePage(TraceDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(new TimelineView), m_summary(new QLabel) {
    setObjectName(QStringLiteral("timelinePage"));
    auto* zoomIn = new QPushButton(tr("Zoom &in"));
    auto* zoomOut = new QPushButton(tr("Zoom o&ut"));
    auto* reset = new QPushButton(tr("&Whole trace"));
    connect(zoomIn, &QPushButton::clicked, m_view, [this] { m_view->zoomBy(kButtonZoom); });
    connect(zoomOut, &QPushButton::clicked, m_view, [this] { m_view->zoomBy(1.0 / kButtonZoom); });
    connect(reset, &QPushButton::clicked, m_view, &TimelineView::resetZoom);
    auto* bar = new QHBoxLayout;
    // Wraps rather than widening the window: a long trace name pushed it past 1,024 px (issue #15 item 12).
    m_summary->setWordWrap(true);
    m_summary->setMinimumWidth(0);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_summary, 1);
    bar->addWidget(zoomIn);
    bar->addWidget(zoomOut);
    bar->addWidget(reset);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_view);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(scroll, 1);
    auto* hint = new QLabel(tr("Wheel: zoom at the pointer · drag: pan · hover: the kernel record or the failure"));
    hint->setEnabled(false);
    layout->addWidget(hint);
    connect(m_document, &TraceDocument::traceChanged, this, &TimelinePage::refresh);
    connect(m_view, &TimelineView::viewChanged, this, &TimelinePage::refreshSummary);
    refresh();
}

void TimelinePage::refresh() { m_view->setTimeline(TimelineLayout::fromTrace(m_document->trace())); }

void TimelinePage::refreshSummary() {
    const TimelineLayout& layout = m_view->timeline();
    std::size_t bars = 0, markers = 0;
    for (const auto& lane : layout.lanes()) bars += lane.bars.size(), markers += lane.markers.size();
    const double visibleMs = static_cast<double>(layout.viewEndNs() - layout.viewBeginNs()) / 1e6;
    const double totalMs = static_cast<double>(layout.endNs() - layout.beginNs()) / 1e6;
    m_summary->setText(layout.empty() ? tr("No kernel records")
                                      : tr("%1 lanes · %2 kernels · %3 failed launches · showing %4 of %5 ms")
                                            .arg(layout.lanes().size())
                                            .arg(bars)
                                            .arg(markers)
                                            .arg(visibleMs, 0, 'f', 3)
                                            .arg(totalMs, 0, 'f', 3));
}

}  // namespace tilescope

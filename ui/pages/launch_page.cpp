#include "ui/pages/launch_page.h"

#include <QFontMetrics>
#include <cmath>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/model/device_spec.h"
#include "ui/window/explorer_state.h"
#include "ui/models/launch_model.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// Bars longer than this many percent of their limit are drawn at this length; the label
// still says the real figure.
constexpr double kBarDisplayCapPct = 200.0;
// A dimension under its minimum (0) is drawn as a red stub this long, so the failure is seen.
constexpr double kUnderStubPct = 4.0;
// The x axis with its title, the "device limit" caption and the legend row under the chart.
constexpr int kAxisAndLegendHeight = 92;

}  // namespace

LaunchPage::LaunchPage(ExplorerState* state, QWidget* parent)
    : PlotPage(parent), m_state(state), m_model(new LaunchModel(this)), m_plot(new PlotWidget), m_table(new QTableView) {
    setObjectName(QStringLiteral("launchPage"));
    m_plot->setObjectName(QStringLiteral("launch"));
    m_within = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    m_over = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    m_within->setName(tr("within limit"));
    m_over->setName(tr("over limit"));
    m_within->setWidth(0.6);
    m_over->setWidth(0.6);
    m_plot->xAxis->setLabel(tr("% of the device limit"));
    m_plot->yAxis->setTickLabelPadding(8);
    m_plot->legend->setVisible(true);
    // The legend gets its own row under the chart: a bar's label can reach any corner of the axis
    // rect (an over-limit grid.y at the top, the waves reason at the bottom; issue #15 item 12).
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->applyPalette();

    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("launchTable"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_plot);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({560, 300});
    m_noLaunch = new QLabel;
    m_noLaunch->setObjectName(QStringLiteral("noLaunchLabel"));
    m_noLaunch->setAlignment(Qt::AlignCenter);
    m_noLaunch->setWordWrap(true);
    m_noLaunch->setMargin(24);
    // The chart keeps a line per row (below); when the page is shorter than that (the Diagnose dock
    // dragged tall at 1,024 x 700) the page scrolls rather than raising the window's height (issue 31 items 1, 2).
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("launchScroll"));
    scroll->setWidget(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_stack = new QStackedWidget;
    m_stack->addWidget(scroll);
    m_stack->addWidget(m_noLaunch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    connect(state, &ExplorerState::changed, this, &LaunchPage::updateModel);
    updateModel();
}

bool LaunchPage::showsNoLaunch() const { return m_stack->currentWidget() == m_noLaunch; }

void LaunchPage::updateModel() {
    const LaunchPlan& plan = m_state->plan();
    m_model->setUsage(callLaunchUsage(plan, m_state->device()));
    if (!plan.hasLaunch() && plan.ok()) {  // a stack's rules only (issue 29: flashinfer, sdpa, fa3, marlin)
        m_noLaunch->setText(tr("<p><b>No launch to show.</b></p><p>This family checks a stack's own rules: the shape passes them, "
                               "but its kernels' grid, block and shared memory are not modelled.</p><p>%1</p>")
                                .arg(QString::fromStdString(plan.note).toHtmlEscaped()));
        m_stack->setCurrentWidget(m_noLaunch);
        return;
    }
    if (!plan.hasLaunch()) {
        m_noLaunch->setText(tr("<p><b>No launch to show.</b></p><p>The planner refuses this shape before it chooses a kernel, "
                               "so there is no grid, block or shared memory to set against the device's limits.</p>"
                               "<p>%1</p><p>The banner above gives the limit and %2.</p>")
                                .arg(QString::fromStdString(plan.message).toHtmlEscaped(),
                                     // The banner's button reads "No suggested shape" when the fix finder found none.
                                     plan.fixShape ? tr("the nearest shape that launches") : tr("what to change instead")));
        m_stack->setCurrentWidget(m_noLaunch);
        return;
    }
    m_stack->setCurrentIndex(0);
    scheduleRefresh();
}

void LaunchPage::refreshPlots() {
    const auto& rows = m_model->usage();
    m_plot->clearItems();
    // On the grid layer, under the bars.
    auto* limitLine = new QCPItemStraightLine(m_plot);
    limitLine->point1->setCoords(100.0, 0.0);
    limitLine->point2->setCoords(100.0, 1.0);
    limitLine->setPen(QPen(m_plot->textColour(), 1.5, Qt::DashLine));
    limitLine->setLayer(QStringLiteral("grid"));
    QVector<double> withinKeys, withinValues, overKeys, overValues;
    // Where each label starts (axis units) and how wide it is (pixels): the axis reaches far enough right
    // for the widest, so "— over by 12" is not cut off at the edge (issue 31, smaller items).
    std::vector<std::pair<double, int>> labelExtents;
    const QFontMetrics labelMetrics(m_plot->font());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QColor red = toQColor(verdictColour(Verdict::InvalidLaunch));
    const int n = static_cast<int>(rows.size());
    for (int i = 0; i < n; ++i) {
        const LaunchUsage& u = rows[static_cast<std::size_t>(i)];
        const double key = n - 1 - i;  // first row on top
        ticker->addTick(key, QString::fromStdString(u.label));
        QString label;
        double barEnd = 0.0;
        if (!u.value) {
            // The reason comes with the figure (core launchUsage): registers missing from this build's
            // ptxas table, or waves of a plan that never reaches occupancy.
            label = tr("unknown — %1").arg(QString::fromStdString(u.unknownWhy));
        } else if (auto f = u.fraction()) {
            barEnd = std::min(*f * 100.0, kBarDisplayCapPct);
            // A zero grid or block dimension fails as surely as an oversized one: a red stub, not an empty blue bar.
            if (u.under()) barEnd = kUnderStubPct;
            (u.fails() ? overKeys : withinKeys).append(key);
            (u.fails() ? overValues : withinValues).append(barEnd);
            // The limit's name is in the table below: on the chart it pushed "over by …" past the
            // right edge at 1,024 px (issue #15 item 12).
            label = QStringLiteral("%1 / %2 %3").arg(groupedNumber(*u.value), groupedNumber(*u.limit), QString::fromStdString(u.unit));
            if (u.over()) label += tr(" — over by %1").arg(groupedNumber(*u.value - *u.limit));
            if (u.under()) label += tr(" — under the minimum of %1").arg(groupedNumber(*u.minimum));
        } else {
            label = QStringLiteral("%1 %2 (no device limit)").arg(*u.value, 0, 'f', 2).arg(QString::fromStdString(u.unit));
        }
        QCPItemText* text = addPlotLabel(m_plot, label);
        text->setClipToAxisRect(true);
        // Labels start right of the 100 % line so it never crosses their text.
        text->position->setCoords(std::max(barEnd, 100.0) + 2.0, key);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        labelExtents.emplace_back(std::max(barEnd, 100.0) + 2.0, labelMetrics.horizontalAdvance(label) + 8);
        if (u.fails()) text->setColor(red);
    }
    m_within->setData(withinKeys, withinValues, true);
    m_over->setData(overKeys, overValues, true);
    const QColor accent = palette().color(QPalette::Highlight);
    m_within->setBrush(accent);
    m_within->setPen(QPen(accent.darker(130)));
    m_over->setBrush(red);
    m_over->setPen(QPen(red.darker(130)));
    // Above the chart, in a top margin kept for it: placed at a row position it reached into the chart
    // and, on a short chart (the Diagnose dock open at 1,024 x 700), out of the plot's top (issue 31 item 4).
    QCPItemText* limitText = addPlotLabel(m_plot, tr("device limit"));
    limitText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    limitText->position->setCoords(100.0, 0.0);
    limitText->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    const int captionHeight = QFontMetrics(limitText->font()).height() + limitText->padding().top() + limitText->padding().bottom();
    m_plot->axisRect()->setMinimumMargins(QMargins(0, captionHeight + 2, 0, 0));
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(-0.7, n - 0.2);
    // One text line per row at least: with the Diagnose dock open at 1,024 x 700 the splitter gave
    // the chart ~190 px for 13 rows and their labels ran into each other. The table below gives way
    // (it scrolls); the chart does not.
    const int lineHeight = QFontMetrics(m_plot->yAxis->tickLabelFont()).height();
    // What is not the chart (the caption's margin, the X axis and its title, the legend row), as laid
    // out, once the plot has a size; a fixed guess until then.
    const int around = m_plot->axisRect()->height() > 0 ? m_plot->height() - m_plot->axisRect()->height() : kAxisAndLegendHeight;
    m_plot->setMinimumHeight(static_cast<int>(std::ceil((n + 0.5) * (lineHeight + 1))) + std::max(around, kAxisAndLegendHeight));
    m_plot->yAxis->grid()->setVisible(false);
    // Room on the right for the labels of the longest bars: a label from s units, w px wide, ends inside
    // a range R drawn over W px when s + w R / W <= R, so R >= s / (1 - w / W).
    const double axisPixels = m_plot->axisRect()->width() > 0 ? m_plot->axisRect()->width() : std::max(1, m_plot->width() - 120);
    double right = kBarDisplayCapPct * 1.9;
    for (const auto& [start, pixels] : labelExtents)
        if (pixels < axisPixels * 0.9) right = std::max(right, start / (1.0 - pixels / axisPixels));
    m_plot->xAxis->setRange(0.0, std::min(right, kBarDisplayCapPct * 6.0));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LaunchPage::resizeEvent(QResizeEvent* event) {
    PlotPage::resizeEvent(event);
    // The axis' right end depends on the plot's width (the labels' room, above).
    if (!showsNoLaunch()) scheduleRefresh();
}

}  // namespace tilescope

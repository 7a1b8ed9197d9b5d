#include "ui/pages/performance_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "core/model/shape.h"
#include "core/series/explorer_axis.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/explorer_state.h"
#include "ui/window/calibration_store.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/window/trace_document.h"

namespace tilescope {

namespace {

// The first line takes the palette's highlight; the others colour-blind-safe hues (Okabe-Ito),
// the compare orange first as on the other pages.
const QColor kLineColours[] = {QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7), QColor(0x56, 0xB4, 0xE9),
                               QColor(0xD5, 0x5E, 0x00), QColor(0x99, 0x99, 0x33), QColor(0x88, 0x44, 0xAA)};
const QColor kCliffColour(0xC6, 0x28, 0x28);
// Cliff labels stack in this many rows at the top of the chart, above the data (the y range leaves the room).
constexpr int kLabelRows = 3;
constexpr double kLabelRowHeight = 0.075;                                            // of the axis rect
constexpr double kDataHeadroom = 1.0 / (1.0 - kLabelRows * kLabelRowHeight - 0.05);  // the data in the lower 72 %
// A cliff label names one plan change (core cliffHeadline) in this many characters at most; the list below the chart has them all.
constexpr int kLabelExplanationChars = 44;
constexpr int kTipRadiusPx = 12;

enum TableColumn {
    LineColumn,
    XColumn,
    TimeColumn,
    TflopsColumn,
    GbpsColumn,
    PctColumn,
    EstimateColumn,
    RatioColumn,
    PlanColumn,
    TableColumns
};

QString number(std::optional<double> value, int decimals) {
    return value ? QLocale(QLocale::English, QLocale::UnitedStates).toString(*value, 'f', decimals) : QStringLiteral("\u2014");
}

QString elided(const std::string& text) {
    const QString q = QString::fromStdString(text);
    return q.size() <= kLabelExplanationChars ? q : q.left(kLabelExplanationChars - 1) + QStringLiteral("\u2026");
}
}  // namespace

PerformancePage::PerformancePage(TraceDocument* document, CalibrationStore* calibrations, QWidget* parent)
    : PlotPage(parent),
      m_document(document),
      m_calibrations(calibrations),
      m_stack(new QStackedWidget),
      m_emptyPage(new QWidget),
      m_empty(new QLabel),
      m_command(new QLineEdit),
      m_sweep(new QComboBox),
      m_metric(new QComboBox),
      m_estimate(new QComboBox),
      m_roofline(new QLabel),
      m_plot(new PlotWidget),
      m_cliffs(new QLabel),
      m_notes(new QLabel),
      m_table(new QTableWidget) {
    setObjectName(QStringLiteral("performancePage"));
    m_plot->setObjectName(QStringLiteral("performance"));
    // The legend below the chart: inside it, two GPUs' four entries covered the cliff labels.
    m_plot->placeLegendBelow(2);
    m_plot->plotLayout()->setMargins(QMargins(0, 0, 2, 2));  // the legend's frame inside the widget
    m_plot->applyPalette();
    m_plot->setMouseTracking(true);
    m_empty->setObjectName(QStringLiteral("performanceEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    // The suggested command's -s NAME=V,... list is one word to the line breaker (attention's is 118
    // characters since issue 29's two parameters): it must not hold the window above 1,024 px.
    m_empty->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_empty->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The command in a line of its own that scrolls: in the word-wrapped label its axis values
    // ("--x head_dim=8,16,...") were one unbreakable word that widened the window to 1,028 px, and
    // the wrap could fall inside "--x" (issue #31).
    m_command->setObjectName(QStringLiteral("performanceCommand"));
    m_command->setReadOnly(true);
    m_command->setToolTip(tr("Select all and copy: the command runs the sweep on a machine with a GPU"));
    {
        auto* emptyLayout = new QVBoxLayout(m_emptyPage);
        emptyLayout->addStretch(1);
        emptyLayout->addWidget(m_empty);
        emptyLayout->addWidget(m_command);
        emptyLayout->addStretch(1);
    }
    setSweepSuggestion({});
    m_sweep->setObjectName(QStringLiteral("performanceSweep"));
    m_sweep->setToolTip(tr("The measured runs that differ along one parameter (or two), the others equal"));
    m_sweep->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sweep->setMinimumContentsLength(24);
    m_metric->setObjectName(QStringLiteral("performanceMetric"));
    for (PerformanceMetric metric :
         {PerformanceMetric::Time, PerformanceMetric::Tflops, PerformanceMetric::Gbps, PerformanceMetric::PctOfRoofline})
        m_metric->addItem(toQString(performanceMetricName(metric)), static_cast<int>(metric));
    m_estimate->setObjectName(QStringLiteral("performanceEstimate"));
    m_estimate->setToolTip(
        tr("Model-mode estimate (roofline bound x wave quantisation): on the GPU each line was measured on, "
           "or re-planned on a device you do not have"));
    m_estimate->addItem(tr("the measured GPU"), QString());
    for (const DeviceSpec& d : DeviceDatabase::embedded().devices())
        m_estimate->addItem(QString::fromStdString(d.id), QString::fromStdString(d.id));
    m_roofline->setObjectName(QStringLiteral("performanceRoofline"));
    m_roofline->setWordWrap(true);
    m_roofline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cliffs->setObjectName(QStringLiteral("performanceCliffs"));
    m_cliffs->setWordWrap(true);
    m_cliffs->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("performanceTable"));
    m_table->setColumnCount(TableColumns);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);

    // The sweep's name is long (kernel, axis, fixed parameters, GPUs): a row of its own, whole at 1,024 px.
    auto* sweepRow = new QHBoxLayout;
    sweepRow->addWidget(new QLabel(tr("Sweep")));
    sweepRow->addWidget(m_sweep, 1);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Show")));
    controls->addWidget(m_metric);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Estimate on")));
    controls->addWidget(m_estimate);
    controls->addStretch(1);
    auto* chart = new QWidget;
    auto* chartLayout = new QVBoxLayout(chart);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_plot, 1);
    chartLayout->addWidget(m_cliffs);
    chartLayout->addWidget(m_notes);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* content = new QWidget;
    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(sweepRow);
    contentLayout->addLayout(controls);
    contentLayout->addWidget(m_roofline);
    contentLayout->addWidget(split, 1);
    m_stack->addWidget(m_emptyPage);
    m_stack->addWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_stack);

    connect(m_sweep, &QComboBox::currentIndexChanged, this, &PerformancePage::scheduleRefresh);
    connect(m_estimate, &QComboBox::currentIndexChanged, this, &PerformancePage::scheduleRefresh);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &PerformancePage::redraw);
    connect(m_document, &TraceDocument::traceChanged, this, &PerformancePage::rebuildSweeps);
    connect(m_calibrations, &CalibrationStore::changed, this, &PerformancePage::scheduleRefresh);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PerformancePage::showPointTip);
    rebuildSweeps();
}

bool PerformancePage::isEmptyState() const { return m_stack->currentWidget() == m_emptyPage; }

void PerformancePage::setSweepSuggestion(const QString& command) {
    const QString run = command.isEmpty() ? tr("Run a sweep on a GPU with the command below\n"
                                               "(tilescope-cli kernels lists the families and their parameters)\n")
                                          : tr("Run a sweep of the kernel and shape in the Shape panel on a GPU with the command below\n");
    m_empty->setText(tr("No measured sweep in this trace.\n\n%1"
                        "and open runs.jsonl, or use GPU > Sweep the Boundary Map on the GPU;\n"
                        "or open a trace holding one (File > Open Trace: a *.tilescope.json with measured runs,\n"
                        "or a GPU worker's *.jsonl / *.jsonl.gz).")
                         .arg(run));
    m_command->setText(command.isEmpty()
                           ? QStringLiteral("tilescope-cli sweep --run -k FAMILY -s NAME=VALUE,... --x NAME=FROM:TO:+STEP > runs.jsonl")
                           : command);
    m_command->setCursorPosition(0);
}

void PerformancePage::followShapePanel(const ExplorerState* state) {
    // The command a newcomer can paste: the Shape panel's kernel, variant and shape, swept along the
    // parameter and range the variant's Boundaries map opens on (its map hint, else the first parameter).
    auto suggest = [this, state] {
        const KernelChoice kernel = state->kernel();
        if (!kernel.hasDeviceCode()) {
            setSweepSuggestion({});
            return;
        }
        const ParameterList& parameters = state->parameters();
        const VariantInfo& variant = kernel.family->variants()[static_cast<std::size_t>(kernel.variant)];
        int axisParameter = 0;
        for (std::size_t i = 0; i < parameters.size(); ++i)
            if (parameters[i].name == variant.mapX.parameter) axisParameter = static_cast<int>(i);
        const ParameterSpec& spec = parameters[static_cast<std::size_t>(axisParameter)];
        const bool hinted = variant.mapX.parameter == spec.name && (variant.mapX.from != 0 || variant.mapX.to != 0);
        const auto range = hinted ? std::pair{variant.mapX.from, variant.mapX.to} : defaultExplorerRange(spec);
        const int cells = hinted && variant.mapX.cells > 0 ? variant.mapX.cells : 16;
        const SweepAxis axis = makeExplorerAxis(spec, axisParameter, range.first, range.second, cells);
        QStringList values;
        for (std::int64_t v : axis.values) values << QString::number(v);
        setSweepSuggestion(QStringLiteral("tilescope-cli sweep --run -k %1 -v %2 -d %3 -s %4 --x %5=%6 > runs.jsonl")
                               .arg(toQString(kernel.family->name()), toQString(kernel.variantName()), toQString(state->device().id),
                                    toQString(formatShape(state->shape(), parameters)), toQString(spec.name),
                                    values.join(QLatin1Char(','))));
    };
    connect(state, &ExplorerState::changed, this, suggest);
    suggest();
}

void PerformancePage::setMetric(PerformanceMetric metric) { m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric))); }

void PerformancePage::rebuildSweeps() {
    // The same sweep stays chosen when runs are added to the trace (its label counts its cells, so match the axis).
    const QString previous = m_sweep->currentText();
    m_sweeps = findMeasuredSweeps(m_document->trace());
    {
        const QSignalBlocker block(m_sweep);
        m_sweep->clear();
        for (const MeasuredSweep& s : m_sweeps) m_sweep->addItem(QString::fromStdString(s.label));
        const int keep = previous.isEmpty() ? -1 : m_sweep->findText(previous.section(QStringLiteral(": "), 0, 0), Qt::MatchStartsWith);
        m_sweep->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    m_stack->setCurrentWidget(m_sweeps.empty() ? m_emptyPage : m_stack->widget(1));
    scheduleRefresh();
}

// Light/dark switch: the first line's colour comes from the palette; the series stays.
void PerformancePage::recolour() { redraw(); }

void PerformancePage::refreshPlots() {
    const int index = m_sweep->currentIndex();
    if (index < 0 || index >= static_cast<int>(m_sweeps.size())) {
        m_series = {};
        redraw();
        return;
    }
    PerformanceOptions options;
    options.calibrations = m_calibrations->calibrations();
    const QString estimateId = m_estimate->currentData().toString();
    if (!estimateId.isEmpty())
        if (const DeviceSpec* device = DeviceDatabase::embedded().find(estimateId.toStdString())) options.estimateDevice = *device;
    m_series = performanceSeries(m_document->trace(), m_sweeps[static_cast<std::size_t>(index)], builtinKernels(),
                                 DeviceDatabase::embedded(), options);

    QStringList roofline;
    QStringList seen;
    for (const PerformanceLine& line : m_series.lines) {
        if (seen.contains(QString::fromStdString(line.device))) continue;
        seen << QString::fromStdString(line.device);
        const Roofline& r = line.roofline.roofline;
        const QString figures = tr("%1 GB/s, %2 TFLOP/s fp16").arg(number(r.bandwidthGBps, 0), number(r.fp16Tflops, 0));
        roofline << tr("%1: %2 (%3)").arg(QString::fromStdString(line.device), QString::fromStdString(line.roofline.label), figures);
    }
    m_roofline->setText(tr("Roofline — %1. Estimate (dashed): %2.")
                            .arg(roofline.join(QStringLiteral("; ")), QString::fromStdString(m_series.estimateLabel)));
    QStringList tips;
    for (const PerformanceLine& line : m_series.lines)
        if (!line.roofline.roofline.provenance.empty() && !tips.contains(QString::fromStdString(line.roofline.roofline.provenance)))
            tips << QString::fromStdString(line.roofline.roofline.provenance);
    m_roofline->setToolTip(tips.join(QLatin1Char('\n')));
    QStringList notes;
    for (const auto& note : m_series.notes) notes << QString::fromStdString(note);
    m_notes->setText(notes.join(QStringLiteral("; ")));
    m_notes->setVisible(!notes.isEmpty());
    redraw();
}

void PerformancePage::redraw() {
    const auto metric = static_cast<PerformanceMetric>(m_metric->currentData().toInt());
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_lineGraphs.clear();
    const QString metricName = toQString(performanceMetricName(metric));
    m_plot->yAxis->setLabel(metricName);
    m_plot->xAxis->setLabel(QString::fromStdString(m_series.xLabel));
    if (m_series.logX) {
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(2);
        ticker->setSubTickCount(0);
        ticker->setTickCount(10);  // every doubling: 1, 2, 4 ... 512
        m_plot->xAxis->setTicker(ticker);
    } else {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }

    double maxY = 0;
    double minX = 0, maxX = 0;
    bool any = false;
    bool estimateInLegend = false;
    const bool manyLines = m_series.lines.size() > 3;
    QStringList cliffTexts;
    for (std::size_t l = 0; l < m_series.lines.size(); ++l) {
        const PerformanceLine& line = m_series.lines[l];
        const QColor colour = l == 0 ? palette().color(QPalette::Highlight) : kLineColours[(l - 1) % std::size(kLineColours)];
        QCPGraph* measured = m_plot->addGraph();
        measured->setName(QString::fromStdString(line.label));
        measured->setPen(QPen(colour, 2));
        measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, palette().color(QPalette::Base), 7));
        m_lineGraphs.push_back(measured);
        QCPGraph* estimate = m_plot->addGraph();
        QColor faded = colour;
        faded.setAlpha(190);
        estimate->setPen(QPen(faded, 1.5, Qt::DashLine));
        estimate->setName(manyLines ? tr("estimate (dashed)") : tr("estimate: %1").arg(QString::fromStdString(line.label)));
        bool hasEstimate = false;
        for (const PerformancePoint& p : line.points) {
            const double x = static_cast<double>(p.x);
            const auto value = metricValue(p, metric);
            measured->addData(x, value ? *value : qQNaN());
            const auto estimated = estimateMetricValue(p, metric);
            estimate->addData(x, estimated ? *estimated : qQNaN());
            hasEstimate = hasEstimate || estimated.has_value();
            if (value) maxY = std::max(maxY, *value);
            if (estimated) maxY = std::max(maxY, *estimated);
            minX = any ? std::min(minX, x) : x;
            maxX = any ? std::max(maxX, x) : x;
            any = true;
        }
        if (!hasEstimate || (manyLines && estimateInLegend)) estimate->removeFromLegend();
        estimateInLegend = estimateInLegend || hasEstimate;
        if (!hasEstimate) m_plot->removeGraph(estimate);
        for (const Cliff& c : line.cliffs)
            cliffTexts << tr("%1%2 %3 \u2192 %4: \u00d7%5, %6")
                              .arg(m_series.lines.size() > 1 ? QString::fromStdString(line.label) + QStringLiteral(": ") : QString(),
                                   QString::fromStdString(m_series.xLabel))
                              .arg(line.points[c.before].x)
                              .arg(line.points[c.after].x)
                              .arg(c.ratio, 0, 'f', 2)
                              .arg(c.explained ? QString::fromStdString(c.explanation) : tr("unexplained"));
    }
    // Axis ranges: a little room either side, and headroom above the data for the cliff labels.
    if (!any) {
        minX = 0;
        maxX = 1;
    }
    if (m_series.logX) m_plot->xAxis->setRange(minX / 1.25, maxX * 1.25);
    else {
        const double pad = std::max(1.0, (maxX - minX) * 0.03);
        m_plot->xAxis->setRange(minX - pad, maxX + pad);
    }
    m_plot->yAxis->setRange(0, maxY > 0 ? maxY * kDataHeadroom : 1.0);

    // Where x sits across the axis rect (0..1), for labels placed by ratio so they never leave it.
    const QCPRange range = m_plot->xAxis->range();
    auto ratioOf = [&](double x) {
        if (m_series.logX) return (std::log(x) - std::log(range.lower)) / (std::log(range.upper) - std::log(range.lower));
        return (x - range.lower) / (range.upper - range.lower);
    };
    auto between = [&](double a, double b) { return m_series.logX ? std::sqrt(a * b) : (a + b) / 2.0; };
    QColor changeColour = m_plot->textColour();
    changeColour.setAlpha(110);
    int labelRow = 0;
    QList<double> labelledAt;
    for (const PerformanceLine& line : m_series.lines) {
        for (const PlanChange& change : line.changes) {
            if (change.index == 0 || change.index >= line.points.size()) continue;
            const double x =
                between(static_cast<double>(line.points[change.index - 1].x), static_cast<double>(line.points[change.index].x));
            auto* marker = new QCPItemStraightLine(m_plot);
            marker->point1->setCoords(x, 0);
            marker->point2->setCoords(x, 1);
            marker->setPen(QPen(changeColour, 1, Qt::DotLine));
            marker->setSelectable(false);
        }
        for (const Cliff& c : line.cliffs) {
            const double x = between(static_cast<double>(line.points[c.before].x), static_cast<double>(line.points[c.after].x));
            // Another line's cliff at the same step has its marker and label already; the list below names both.
            if (labelledAt.contains(x)) continue;
            labelledAt << x;
            auto* marker = new QCPItemStraightLine(m_plot);
            marker->point1->setCoords(x, 0);
            marker->point2->setCoords(x, 1);
            marker->setPen(QPen(kCliffColour, 1.2, Qt::DashDotLine));
            const QString text = tr("\u00d7%1 %2").arg(c.ratio, 0, 'f', 2).arg(elided(cliffHeadline(c)));
            QCPItemText* label = addPlotLabel(m_plot, text);
            label->setObjectName(QStringLiteral("cliffLabel"));
            label->setColor(c.explained ? m_plot->textColour() : kCliffColour);
            label->setBrush(palette().brush(QPalette::Base));
            label->setPadding(QMargins(2, 1, 2, 1));
            const double ratio = std::clamp(ratioOf(x), 0.0, 1.0);
            label->position->setType(QCPItemPosition::ptAxisRectRatio);
            label->position->setCoords(ratio, 0.01 + kLabelRowHeight * (labelRow++ % kLabelRows));
            // Left of the marker in the chart's right half, right of it in the left half: inside the chart either way.
            label->setPositionAlignment((ratio > 0.5 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        }
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_cliffs->setText(cliffTexts.isEmpty()
                          ? tr("No cliffs: no step of more than 25 % between neighbouring cells.")
                          : tr("Cliffs (a step of more than 25 % between neighbours): %1").arg(cliffTexts.join(QStringLiteral("; "))));
    fillTable();
}

void PerformancePage::fillTable() {
    const bool twoLines = m_series.lines.size() > 1;
    m_table->clearContents();
    const QString x = QString::fromStdString(m_series.xLabel);
    m_table->setHorizontalHeaderLabels({twoLines ? tr("line") : tr("GPU"), x.isEmpty() ? tr("x") : x, tr("time (µs)"), tr("TFLOP/s"),
                                        tr("GB/s"), tr("% of roofline"), tr("estimate (µs)"), tr("meas. / est."), tr("plan")});
    int rows = 0;
    for (const PerformanceLine& line : m_series.lines) rows += static_cast<int>(line.points.size());
    m_table->setRowCount(rows);
    int row = 0;
    for (const PerformanceLine& line : m_series.lines) {
        for (const PerformancePoint& p : line.points) {
            const QStringList cells{QString::fromStdString(line.label),
                                    QString::number(p.x),
                                    number(p.timeUs, 3),
                                    number(p.achieved.tflops, 2),
                                    number(p.achieved.gbps, 0),
                                    p.achieved.pctOfRoofline ? number(p.achieved.pctOfRoofline, 1) + QStringLiteral(" (") +
                                                                   QString::fromStdString(line.roofline.label) + QLatin1Char(')')
                                                             : QStringLiteral("\u2014"),
                                    p.estimate ? number(p.estimate->estimateUs, 3) : QStringLiteral("\u2014"),
                                    number(p.measuredOverEstimate, 2),
                                    QString::fromStdString(p.plan)};
            for (int c = 0; c < TableColumns; ++c) {
                auto* item = new QTableWidgetItem(cells[c]);
                if (c != LineColumn && c != PlanColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_table->setItem(row, c, item);
            }
            ++row;
        }
    }
    m_table->resizeColumnsToContents();
}

void PerformancePage::showPointTip(QMouseEvent* event) {
    const auto metric = static_cast<PerformanceMetric>(m_metric->currentData().toInt());
    double best = kTipRadiusPx;
    const PerformancePoint* found = nullptr;
    const PerformanceLine* foundLine = nullptr;
    for (std::size_t l = 0; l < m_lineGraphs.size() && l < m_series.lines.size(); ++l) {
        for (const PerformancePoint& p : m_series.lines[l].points) {
            const auto value = metricValue(p, metric);
            if (!value) continue;
            const double dx = m_plot->xAxis->coordToPixel(static_cast<double>(p.x)) - event->position().x();
            const double dy = m_plot->yAxis->coordToPixel(*value) - event->position().y();
            const double distance = std::hypot(dx, dy);
            if (distance < best) {
                best = distance;
                found = &p;
                foundLine = &m_series.lines[l];
            }
        }
    }
    if (!found) {
        QToolTip::hideText();
        return;
    }
    QString text = tr("%1\n%2 = %3: %4 µs, %5 TFLOP/s, %6 GB/s, %7 % of roofline (%8)\nplan: %9")
                       .arg(QString::fromStdString(foundLine->label), QString::fromStdString(m_series.xLabel))
                       .arg(found->x)
                       .arg(number(found->timeUs, 3), number(found->achieved.tflops, 2), number(found->achieved.gbps, 0),
                            number(found->achieved.pctOfRoofline, 1), QString::fromStdString(foundLine->roofline.label),
                            QString::fromStdString(found->plan));
    if (found->estimate)
        text += tr("\nestimate %1 µs (bound %2 µs x waves %3); measured / estimate %4")
                    .arg(number(found->estimate->estimateUs, 3), number(found->estimate->boundUs, 3),
                         number(found->estimate->waveFactor, 2), number(found->measuredOverEstimate, 2));
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

}  // namespace tilescope

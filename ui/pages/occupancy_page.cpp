#include "ui/pages/occupancy_page.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>

#include "core/model/device_spec.h"
#include "core/series/occupancy_curves.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// A common register budget for the assumption's starting value; the user changes it.
constexpr int kDefaultAssumedRegisters = 32;

void addCurve(PlotWidget* plot, const OccupancyCurve& curve, const QColor& colour, const QString& name) {
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setPen(QPen(colour, 2));
    graph->setData(QVector<double>(curve.x.begin(), curve.x.end()), QVector<double>(curve.activeWarps.begin(), curve.activeWarps.end()),
                   true);
}

void markPoint(PlotWidget* plot, double x, double y, const QColor& colour, const QString& name) {
    QCPGraph* point = plot->addGraph();
    point->setName(name);
    point->setLineStyle(QCPGraph::lsNone);
    point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, colour, colour, 12));
    point->setData({x}, {y});
}

}  // namespace

OccupancyPage::OccupancyPage(ExplorerState* state, QWidget* parent)
    : PlotPage(parent), m_state(state), m_assumedRegisters(new QSpinBox), m_summary(new QLabel), m_key(new QLabel) {
    setObjectName(QStringLiteral("occupancyPage"));
    static const char* const kNames[] = {"occupancy-block-size", "occupancy-registers", "occupancy-shared-memory"};
    static const char* const kTitles[] = {QT_TR_NOOP("Threads per block"), QT_TR_NOOP("Registers per thread"),
                                          QT_TR_NOOP("Shared memory per block (bytes)")};
    auto* grid = new QGridLayout(this);
    for (int i = 0; i < 3; ++i) {
        m_plots[i] = new PlotWidget;
        m_plots[i]->setObjectName(QLatin1String(kNames[i]));
        m_plots[i]->xAxis->setLabel(tr(kTitles[i]));
        m_plots[i]->setAxisTitles(m_plots[i]->yAxis, {tr("Active warps per SM"), tr("Warps per SM"), tr("Warps/SM")});
        // No legend under each plot: the three held the same entries, and with the Diagnose dock open
        // at full HD they left each chart ~60 px tall. One key beside them (m_key) says it once.
        m_plots[i]->applyPalette();
    }
    m_assumedRegisters->setObjectName(QStringLiteral("assumedRegisters"));
    m_assumedRegisters->setRange(1, 255);
    m_assumedRegisters->setValue(kDefaultAssumedRegisters);
    m_summary->setObjectName(QStringLiteral("occupancySummary"));
    m_summary->setWordWrap(true);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* side = new QWidget;
    auto* form = new QFormLayout(side);
    m_key->setObjectName(QStringLiteral("occupancyKey"));
    m_key->setWordWrap(true);
    m_key->setTextFormat(Qt::RichText);
    form->addRow(m_key);
    form->addRow(tr("Assumed registers per thread"), m_assumedRegisters);
    form->addRow(m_summary);
    grid->addWidget(m_plots[0], 0, 0);
    grid->addWidget(m_plots[1], 0, 1);
    grid->addWidget(m_plots[2], 1, 0);
    grid->addWidget(side, 1, 1);
    connect(m_assumedRegisters, &QSpinBox::valueChanged, this, &OccupancyPage::refreshNow);
    connect(state, &ExplorerState::changed, this, &OccupancyPage::scheduleRefresh);
    refreshNow();
}

QString OccupancyPage::summary() const { return m_summary->text(); }

void OccupancyPage::refreshPlots() {
    const LaunchPlan& plan = m_state->plan();
    const bool registersKnown = plan.registers.has_value();
    m_assumedRegisters->setEnabled(!registersKnown);
    // The tooltip says where this count comes from, or why it is assumed: on awq_gemm it said "no entry"
    // while the page showed 215 registers from the ptxas table (issue 31 item 5).
    m_assumedRegisters->setToolTip(
        registersKnown ? tr("Not needed: this plan's registers per thread are known (%1), so no count is assumed.").arg(*plan.registers)
        : !plan.hasLaunch() ? tr("The planner refused this shape before it chose a kernel, so there are no registers to look up; the "
                                 "curves assume this count.")
                            : tr("Registers per thread come from the compiler's ptxas report; this build's table has no "
                                 "entry for this kernel on this device's architecture. The curves assume this count; the "
                                 "real point stays unknown."));
    const int registers = registersKnown ? *plan.registers : m_assumedRegisters->value();
    const OccupancyCurveInput input{static_cast<int>(plan.threadsPerBlock()), registers, plan.staticSmem, plan.dynamicSmem,
                                    plan.optsIntoLargeSmem};
    const QString assumption = registersKnown ? QString() : tr(" (assuming %1 registers)").arg(registers);
    const QColor primary = palette().color(QPalette::Highlight);

    struct Series {
        const DeviceSpec* device;
        OccupancyCurves curves;
        QColor colour;
        const LaunchPlan* plan;  // this device's plan: one that refuses the device has no current point
    };
    std::vector<Series> series{{&m_state->device(), occupancyCurves(m_state->device(), input), primary, &plan}};
    if (const DeviceSpec* compare = m_state->compareDevice())
        series.push_back({compare, occupancyCurves(*compare, input), kCompareDeviceColour, m_state->comparePlan()});
    // A device the kernel cannot run on at all (no code for its arch, or the stack refuses it) has no
    // current point: a P100 compared with an H100 showed "8 of 64 warps" beside a banner that says
    // "no kernel image is available".
    const auto refusesDevice = [](const Series& s) { return s.plan && s.plan->verdict == Verdict::UnsupportedDevice; };

    int maxWarps = 0;
    for (PlotWidget* plot : m_plots) {
        plot->clearGraphs();
        plot->clearItems();
    }
    // A shape the planner refuses before a launch exists has no current point (it drew 50 % for one the
    // banner refused, issue 31 item 5).
    const bool launchKnown = plan.hasLaunch() && input.threadsPerBlock > 0;
    for (const Series& s : series) {
        const QString device = QString::fromStdString(s.device->id);
        maxWarps = std::max(maxWarps, s.curves.maxWarpsPerSm);
        addCurve(m_plots[0], s.curves.blockSize, s.colour, device);
        addCurve(m_plots[1], s.curves.registers, s.colour, device);
        addCurve(m_plots[2], s.curves.sharedMemory, s.colour, device);
        if (!launchKnown || !s.curves.current || refusesDevice(s)) continue;
        const double warps = s.curves.current->activeWarpsPerSm;
        // The point's entry sits right of its device's curve and has its colour, so it need not repeat
        // the id: "p100-sxm2-16gb current" beside "p100-sxm2-16gb" took two rows a device at 1,024 px.
        const QString point = tr("current shape");
        markPoint(m_plots[0], input.threadsPerBlock, warps, s.colour, point);
        markPoint(m_plots[2], static_cast<double>(plan.totalSmem()), warps, s.colour, point);
        if (registersKnown) markPoint(m_plots[1], registers, warps, s.colour, point);
    }
    if (!registersKnown && launchKnown) {
        for (PlotWidget* plot : {m_plots[0], m_plots[2]}) {
            QCPItemText* assumed = addPlotLabel(plot, tr("assumption: %1 registers per thread").arg(registers));
            assumed->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
            assumed->position->setType(QCPItemPosition::ptAxisRectRatio);
            assumed->position->setCoords(0.98, 0.02);
        }
        QCPItemText* note = addPlotLabel(m_plots[1], tr("current point: unknown (no ptxas register count in this build)"));
        note->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.02, 0.02);
    }
    // The key: each device's curve, and its point where the shape has one; a saved plot carries it too.
    QStringList key;
    for (const Series& s : series) {
        QString line =
            QStringLiteral("<span style='color:%1'><b>━━</b></span> %2").arg(s.colour.name(), QString::fromStdString(s.device->id));
        if (launchKnown && s.curves.current && !refusesDevice(s))
            line += tr(" &nbsp; <span style='color:%1'>◆</span> its current shape").arg(s.colour.name());
        key << line;
    }
    m_key->setText(key.join(QStringLiteral("<br>")));
    for (PlotWidget* plot : m_plots) {
        plot->setExportKey(m_key->text());
        plot->rescaleAxes();
        plot->yAxis->setRange(0, maxWarps * 1.1 + 1);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }

    QString text;
    if (!launchKnown) {
        text = tr("<b>No launch to show.</b> The planner refuses this shape before it sets a launch (%1: %2), so there is no "
                  "current point; the curves show the device alone.")
                   .arg(toQString(verdictName(plan.verdict)), QString::fromStdString(plan.message).toHtmlEscaped());
    }
    for (const Series& s : series) {
        const QString device = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(s.device->id));
        if (!launchKnown) continue;
        if (refusesDevice(s)) {
            text += tr("%1: no current point; %2 (%3). The curve shows the device's limits alone.<br>")
                        .arg(device, toQString(verdictName(s.plan->verdict)), QString::fromStdString(s.plan->message).toHtmlEscaped());
            continue;
        }
        if (!s.curves.current) {
            text += tr("%1: this block cannot be resident on one SM%2.<br>").arg(device, assumption);
            continue;
        }
        const Occupancy& o = *s.curves.current;
        text += tr("%1: %2 of %3 warps per SM (%4 %), %5 blocks per SM; limited by %6%7.<br>")
                    .arg(device)
                    .arg(o.activeWarpsPerSm)
                    .arg(o.maxWarpsPerSm)
                    .arg(o.occupancyPct, 0, 'f', 0)
                    .arg(o.activeBlocksPerSm)
                    .arg(QString::fromStdString(limiterText(o)), assumption);
    }
    if (!registersKnown && launchKnown)
        text +=
            tr("<br>Registers per thread are <b>unknown</b>: this build's ptxas resource table has no entry for this "
               "kernel on this architecture (it compiles the kernels for TILESCOPE_CUDA_ARCHS only), so every figure above "
               "is an assumption, not a measurement.");
    m_summary->setText(text);
}

}  // namespace tilescope

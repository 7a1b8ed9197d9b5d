#include "ui/pages/shared_memory_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/model/device_spec.h"
#include "core/series/boundary_colours.h"
#include "core/series/launch_usage.h"
#include "ui/models/candidate_model.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"

namespace tilescope {

SharedMemoryPage::SharedMemoryPage(ExplorerState* state, QWidget* parent)
    : PlotPage(parent),
      m_state(state),
      m_model(new CandidateModel(this)),
      m_plot(new PlotWidget),
      m_table(new QTableView),
      m_note(new QLabel) {
    setObjectName(QStringLiteral("sharedMemoryPage"));
    m_plot->setObjectName(QStringLiteral("shared-memory"));
    m_plot->xAxis->setLabel(tr("Tile candidate, in the order the planner tries them"));
    m_plot->yAxis->setLabel(tr("Shared memory per block (bytes)"));
    m_plot->applyPalette();
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_note->setWordWrap(true);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_plot);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({600, 160});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_note);
    layout->addWidget(splitter, 1);
    connect(state, &ExplorerState::changed, this, &SharedMemoryPage::updateModel);
    updateModel();
}

void SharedMemoryPage::updateModel() {
    m_model->setPlan(m_state->plan());
    scheduleRefresh();
}

void SharedMemoryPage::refreshPlots() {
    const LaunchPlan& plan = m_state->plan();
    m_plot->clearPlottables();
    m_plot->clearItems();

    // A planner without a tile search still has one launch: show its bytes as the only bar.
    std::vector<TileCandidate> bars = m_model->candidates();
    int chosen = m_model->chosen();
    if (!plan.hasLaunch()) {
        // Refused before a launch exists: the figure the planner refused is the bar, not a launch of 0 B
        // ("static 0 B + dynamic 0 B" for 65,536 B of static shared memory, issue 31 item 4).
        const std::optional<LimitHit> refused = refusedSharedMemory(plan);
        if (refused) bars = {{refused->name, refused->actual, false}};
        else bars.clear();
        chosen = 0;
        m_note->setText(refused ? tr("No launch: the planner refuses %1 B of shared memory before it sets a launch (%2 is %3 B). %4")
                                      .arg(groupedNumber(static_cast<double>(refused->actual)), toQString(refused->name),
                                           groupedNumber(static_cast<double>(refused->limit)), QString::fromStdString(plan.message))
                                : tr("No launch: the planner refuses this shape before it sets shared memory. %1")
                                      .arg(QString::fromStdString(plan.message)));
    } else if (bars.empty()) {
        bars.push_back({plan.tile.empty() ? std::string_view("launch") : plan.tile, plan.totalSmem(), plan.ok()});
        chosen = 0;
        m_note->setText(tr("This planner tries no tile candidates; the bar is the launch's own shared memory "
                           "(static %1 B + dynamic %2 B).")
                            .arg(plan.staticSmem)
                            .arg(plan.dynamicSmem));
    } else {
        // Worded per count: with no translation loaded, tr's %n form printed "1 candidate(s) tried".
        const QString tried = bars.size() == 1 ? tr("1 candidate tried; it is the chosen one.")
                                               : tr("%1 candidates tried; the chosen one is highlighted.").arg(bars.size());
        m_note->setText(tried + tr(" Capacity = the device's opt-in limit per block (smem_per_block_optin); the default limit "
                                   "without opt-in is dashed."));
    }

    auto* others = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    auto* picked = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    others->setName(tr("candidate"));
    picked->setName(tr("chosen"));
    const QColor accent = palette().color(QPalette::Highlight);
    QColor faded = m_plot->textColour();
    faded.setAlpha(90);
    others->setBrush(faded);
    others->setPen(Qt::NoPen);
    const QColor pickedColour =
        plan.hasLaunch() ? accent : toQColor(verdictColour(plan.verdict));  // a refused figure is in the verdict's colour
    picked->setBrush(pickedColour);
    picked->setPen(QPen(pickedColour.darker(140), 2));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (int i = 0; i < static_cast<int>(bars.size()); ++i) {
        const TileCandidate& c = bars[static_cast<std::size_t>(i)];
        (i == chosen ? picked : others)->addData(i, static_cast<double>(c.smemBytes));
        // "M<=32: 16x128x128, 4 stages" one line per part: on one line neighbouring labels ran together.
        ticker->addTick(
            i, toQString(c.name).replace(QStringLiteral(": "), QStringLiteral("\n")).replace(QStringLiteral(", "), QStringLiteral("\n")));
        top = std::max(top, static_cast<double>(c.smemBytes));
        QCPItemText* label = addPlotLabel(m_plot, groupedNumber(static_cast<double>(c.smemBytes)));
        label->position->setCoords(i, static_cast<double>(c.smemBytes));
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setRange(-0.7, static_cast<double>(bars.size()) - 0.3);

    struct Line {
        const DeviceSpec* device;
        QColor colour;
    };
    std::vector<Line> lines{{&m_state->device(), m_plot->textColour()}};
    if (const DeviceSpec* compare = m_state->compareDevice()) lines.push_back({compare, kCompareDeviceColour});
    bool above = true;  // the first device's label sits above its line, the second's below
    for (const Line& line : lines) {
        const double capacity = static_cast<double>(line.device->smemPerBlockOptin);
        top = std::max(top, capacity);
        auto* capacityLine = new QCPItemStraightLine(m_plot);
        capacityLine->point1->setCoords(0, capacity);
        capacityLine->point2->setCoords(1, capacity);
        capacityLine->setPen(QPen(line.colour, 2));
        QCPItemText* label = addPlotLabel(m_plot, tr("%1 capacity %2 B (%3)")
                                                      .arg(QString::fromStdString(line.device->id), groupedNumber(capacity),
                                                           QString::fromStdString(line.device->archName())));
        label->setColor(line.colour == m_plot->textColour() ? line.colour : line.colour.darker(130));
        label->setBrush(palette().brush(QPalette::Base));
        label->setPadding(QMargins(3, 1, 3, 1));
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.995, capacity);
        label->setPositionAlignment(Qt::AlignRight | (above ? Qt::AlignBottom : Qt::AlignTop));
        above = !above;
        auto* defaultLine = new QCPItemStraightLine(m_plot);
        defaultLine->point1->setCoords(0, static_cast<double>(line.device->smemPerBlock));
        defaultLine->point2->setCoords(1, static_cast<double>(line.device->smemPerBlock));
        defaultLine->setPen(QPen(line.colour, 1, Qt::DashLine));
    }
    m_plot->yAxis->setRange(0, top * 1.15);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tilescope

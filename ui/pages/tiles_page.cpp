#include "ui/pages/tiles_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>

#include "core/series/explorer_axis.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/shape_spin_box.h"

namespace tilescope {

namespace {

// Points along the axis: Full plans are cheap enough for this many on every edit.
constexpr int kTilePoints = 512;
// A bucketed planner's largest cell is 512 rows, so a linear M axis to 640 shows its staircase best.
constexpr std::int64_t kDefaultTileAxisEnd = 640;

}  // namespace

TilesPage::TilesPage(ExplorerState* state, QWidget* parent)
    : PlotPage(parent),
      m_state(state),
      m_plot(new PlotWidget),
      m_parameter(new QComboBox),
      m_from(new ShapeSpinBox({})),
      m_to(new ShapeSpinBox({})),
      m_summary(new QLabel),
      m_figures(new QLabel) {
    setObjectName(QStringLiteral("tilesPage"));
    m_plot->setObjectName(QStringLiteral("tiles"));
    m_plot->yAxis->setLabel(tr("Tile / bucket chosen"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("Padding waste (%)"));
    m_plot->yAxis2->setRange(0, 100);
    // The legend in a row under the chart: inside the axis rect it covered the staircase's first steps
    // and the "current M" label, which sit at its top left (issue #31).
    m_plot->placeLegendBelow(3);
    m_plot->applyPalette();
    m_parameter->setObjectName(QStringLiteral("tileParameter"));
    m_parameter->setToolTip(tr("The parameter to vary; the others stay at the current shape"));
    m_summary->setWordWrap(true);
    m_figures->setObjectName(QStringLiteral("tileFigures"));
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Along")));
    controls->addWidget(m_parameter);
    controls->addWidget(m_from);
    controls->addWidget(new QLabel(QStringLiteral("…")));
    controls->addWidget(m_to);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_figures);
    layout->addWidget(m_summary);
    connect(m_parameter, &QComboBox::currentIndexChanged, this, &TilesPage::setParameter);
    connect(m_from, &QSpinBox::valueChanged, this, &TilesPage::refreshNow);
    connect(m_to, &QSpinBox::valueChanged, this, &TilesPage::refreshNow);
    connect(state, &ExplorerState::kernelChanged, this, &TilesPage::resetForFamily);
    connect(state, &ExplorerState::changed, this, &TilesPage::scheduleRefresh);
    resetForFamily();
}

QSpinBox* TilesPage::fromBox() const { return m_from; }
QSpinBox* TilesPage::toBox() const { return m_to; }
QString TilesPage::summaryText() const { return m_summary->text(); }

void TilesPage::resetForFamily() {
    // Another variant of the same family has the same parameters: keep the axis the user set.
    if (m_state->kernel().family == m_family && m_parameter->currentIndex() >= 0) {
        scheduleRefresh();
        return;
    }
    m_family = m_state->kernel().family;
    const QSignalBlocker block(m_parameter);
    m_parameter->clear();
    for (const ParameterSpec& p : m_state->parameters()) m_parameter->addItem(QString::fromStdString(p.name));
    const int headDim = parameterIndex(m_state->parameters(), "head_dim");
    setParameter(headDim >= 0 ? headDim : 0);
}

void TilesPage::setParameter(int parameter) {
    if (parameter < 0 || parameter >= static_cast<int>(m_state->parameters().size())) return;
    const ParameterSpec& spec = m_state->parameters()[static_cast<std::size_t>(parameter)];
    auto [from, to] = defaultExplorerRange(spec);
    if (spec.scale == AxisScale::Log2) to = std::min(to, kDefaultTileAxisEnd);
    const QSignalBlocker b1(m_parameter), b2(m_from), b3(m_to);
    m_parameter->setCurrentIndex(parameter);
    for (ShapeSpinBox* spin : {m_from, m_to}) spin->setParameter(spec);  // steps land on values the kernel accepts
    m_from->setValue(spinBoxValue(from));
    m_to->setValue(spinBoxValue(to));
    scheduleRefresh();
}

void TilesPage::refreshPlots() {
    const int parameter = m_parameter->currentIndex();
    if (parameter < 0) return;
    const ParameterSpec& spec = m_state->parameters()[static_cast<std::size_t>(parameter)];
    // A linear axis here even for doubling parameters: bucket edges sit between powers of two.
    ParameterSpec linear = spec;
    linear.scale = AxisScale::Linear;
    const SweepAxis axis = makeExplorerAxis(linear, parameter, m_from->value(), m_to->value(), kTilePoints);
    m_series = tileSeries(m_state->kernel(), m_state->device(), m_state->shape(), axis);

    m_plot->clearGraphs();
    m_plot->clearItems();
    QCPGraph* tiles = m_plot->addGraph();
    tiles->setName(tr("tile / bucket"));
    tiles->setLineStyle(QCPGraph::lsStepLeft);
    tiles->setPen(QPen(palette().color(QPalette::Highlight), 2.5));
    QCPGraph* waste = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    waste->setName(tr("padding waste %"));
    waste->setPen(QPen(QColor(0xE6, 0x9F, 0x00), 1.5));
    waste->setLineStyle(QCPGraph::lsStepLeft);
    QCPGraph* failing = m_plot->addGraph();
    failing->setName(tr("fails (shape check, tile or launch)"));
    failing->setLineStyle(QCPGraph::lsNone);
    const QColor red = toQColor(verdictColour(Verdict::InvalidLaunch));
    failing->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, red, 6));
    int failures = 0;
    // The staircase shows the tile chosen even where the launch then fails (e.g. a cell whose
    // shared memory exceeds the device): the crosses say which of those points fail.
    for (const TilePoint& p : m_series.points) {
        const double x = static_cast<double>(p.value);
        const double level = p.tileId >= 0 ? p.tileId : -0.5;
        tiles->addData(x, p.tileId >= 0 ? level : qQNaN());
        waste->addData(x, p.tileId >= 0 ? p.paddingWaste * 100.0 : qQNaN());
        if (p.verdict != Verdict::Ok) {
            failing->addData(x, level);
            ++failures;
        }
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < static_cast<int>(m_series.tileNames.size()); ++i)
        ticker->addTick(i, QString::fromStdString(m_series.tileNames[static_cast<std::size_t>(i)]));
    ticker->addTick(-0.5, tr("no tile"));
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(-1.0, std::max<double>(1.0, static_cast<double>(m_series.tileNames.size())) + 0.5);
    m_plot->xAxis->setLabel(QString::fromStdString(axisLabel(m_series.axis, m_state->parameters())));
    m_plot->xAxis->setRange(m_from->value(), std::max(m_to->value(), m_from->value() + 1));
    auto* current = new QCPItemStraightLine(m_plot);
    const double now = static_cast<double>(m_state->shape()[parameter]);
    current->point1->setCoords(now, 0);
    current->point2->setCoords(now, 1);
    current->setPen(QPen(m_plot->textColour(), 1, Qt::DashLine));
    QCPItemText* label = addPlotLabel(m_plot, tr("current %1 = %2").arg(QString::fromStdString(spec.name), groupedNumber(now)));
    label->setClipToAxisRect(true);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(now, 0.02);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_plot->replot(QCustomPlot::rpQueuedReplot);

    QStringList figures;
    for (const TileFigures& f : m_series.figures) figures << QString::fromStdString(f.text);
    m_figures->setText(figures.join(QLatin1Char('\n')));
    m_figures->setVisible(!figures.isEmpty());

    // The values counted are the ones sampled: multiples of the alignment, which the kernel can be asked for
    // (issue #15 item 1: 512 odd and even head_dims, all refused, read "512 failing values").
    const QString sampled = spec.alignment > 1 ? tr("%1 (multiples of %2)").arg(QString::fromStdString(spec.name)).arg(spec.alignment)
                                               : QString::fromStdString(spec.name);
    const auto& values = m_series.axis.values;
    m_summary->setText(
        tr("%1 values of %2 from %3 to %4 on %5: %6 distinct tiles or buckets, %7 failing values (the "
           "banner and the Boundaries page say why).")
            .arg(m_series.points.size())
            .arg(sampled, groupedNumber(static_cast<double>(values.empty() ? m_from->value() : values.front())),
                 groupedNumber(static_cast<double>(values.empty() ? m_to->value() : values.back())),
                 QString::fromStdString(m_state->device().id))
            .arg(m_series.tileNames.size())
            .arg(failures) +
        (m_series.axis.followers.empty()
             ? QString()
             : QLatin1Char(' ') + QString::fromStdString(followerNote(m_series.axis, m_state->parameters())) + QLatin1Char('.')));
}

}  // namespace tilescope

#include "ui/pages/boundary_page.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QSpacerItem>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <tuple>

#include "core/series/launch_usage.h"
#include "core/series/explorer_axis.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/plot_widget.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/shape_spin_box.h"

namespace tilescope {

namespace {

constexpr int kDefaultCells = 128;
constexpr int kMaxCells = 1024;
constexpr int kMaxTicks = 9;
const QColor kCompareColour(0x20, 0x20, 0x20);
// The compare outline is drawn this wide, but never wider than kOutlineCellFraction of a cell (nor
// under kThinnestOutline): at 1,024 cells a 2.5 px edge between every pair of cells was a black band.
constexpr double kWidestOutline = 2.5;
constexpr double kThinnestOutline = 1.0;
constexpr double kOutlineCellFraction = 0.35;
constexpr double kFaintestOutline = 0.45;  // alpha of the outline over sub-pixel cells
constexpr int kRightLabelRoom = 24;
constexpr int kTopLabelRoom = 12;  // and above it for the last Y label
const QColor kSplitColour(Qt::white);
const QColor kSplitLabelBackground(0x20, 0x20, 0x20, 150);
const QColor kDispatchColour(0xCC, 0x79, 0xA7);  // Okabe-Ito reddish purple: no verdict uses it
constexpr std::size_t kMaxSplitLabels = 24;
constexpr std::int64_t kCellsPerSplitLabel = 400;  // a region needs 1/400 of the map for a label

bool sameInputs(const BoundaryJob& a, const BoundaryJob& b) {
    auto masked = [](const BoundaryJob& job) {
        Shape s = job.base;
        for (const SweepAxis* axis : {&job.x, job.y ? &*job.y : nullptr}) {
            if (!axis) continue;
            s[axis->parameter] = 0;
            for (const int f : axis->followers) s[f] = 0;
        }
        return s;
    };
    auto sameAxis = [](const SweepAxis& p, const SweepAxis& q) {
        return p.parameter == q.parameter && p.values == q.values && p.followers == q.followers;
    };
    return a.kernel.family == b.kernel.family && a.kernel.variant == b.kernel.variant && a.device.id == b.device.id &&
           a.compare.has_value() == b.compare.has_value() && (!a.compare || a.compare->id == b.compare->id) && sameAxis(a.x, b.x) &&
           a.y.has_value() == b.y.has_value() && (!a.y || sameAxis(*a.y, *b.y)) && masked(a) == masked(b);
}

// Ticks and the title with the scale it names, both from core: a doubling axis that holds every value
// of its low octaves (more cells than values there) is log2 only above them, and says so.
void applyAxis(PlotWidget* plot, QCPAxis* axis, const SweepAxis& sweep, const ParameterList& parameters) {
    const ParameterSpec& parameter = parameters[static_cast<std::size_t>(sweep.parameter)];
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (const AxisTick& tick : axisTicks(sweep, kMaxTicks, everyValueUpTo(parameter, sweep)))
        ticker->addTick(tick.position, groupedNumber(static_cast<double>(tick.value)));
    axis->setTicker(ticker);
    QStringList titles;
    for (AxisTitleLength length : {AxisTitleLength::Full, AxisTitleLength::Compact, AxisTitleLength::LabelOnly})
        titles << QString::fromStdString(mapAxisTitle(sweep, parameters, length));
    plot->setAxisTitles(axis, titles);
}

std::string rangeKey(const ExplorerState& state, int parameter) {
    return std::string(state.kernel().family->name()) + '/' + state.parameters()[static_cast<std::size_t>(parameter)].name;
}

}  // namespace

std::shared_ptr<const BoundaryResult> computeBoundary(const BoundaryJob& job) {
    auto result = std::make_shared<BoundaryResult>();
    result->generation = job.generation;
    result->map = BoundaryMap(job.kernel, job.device, job.base, job.x, job.y);
    const SweepOptions options{0, nullptr, {}};
    evaluateBoundaryMap(result->map, options);
    const std::vector<std::uint32_t> pixels = verdictImage(result->map);
    const int w = result->map.width(), h = result->map.height();
    QImage image(w, h, QImage::Format_ARGB32);
    for (int row = 0; row < h; ++row)
        std::copy_n(pixels.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(w), w,
                    reinterpret_cast<std::uint32_t*>(image.scanLine(row)));
    result->image = std::move(image);
    result->splitOutline = splitBoundaryOutline(result->map);
    result->splitRange = splitCountRange(result->map);
    result->dispatchOutline = dispatchBoundaryOutline(result->map);
    if (!result->splitOutline.empty())
        result->splitLabels =
            splitRegionLabels(result->map, std::max<std::int64_t>(1, result->map.cellCount() / kCellsPerSplitLabel), kMaxSplitLabels);
    if (job.compare) {
        BoundaryMap compare(job.kernel, *job.compare, job.base, job.x, job.y);
        evaluateBoundaryMap(compare, options);
        result->compareOutline = okBoundaryOutline(compare);
        result->compareCounts = compare.verdictCounts();
    }
    return result;
}

BoundaryPage::BoundaryPage(ExplorerState* state, QWidget* parent)
    : QWidget(parent),
      m_state(state),
      m_plot(new PlotWidget),
      m_legend(new QLabel),
      m_xParameter(new QComboBox),
      m_yParameter(new QComboBox),
      m_xFrom(new ShapeSpinBox({})),
      m_xTo(new ShapeSpinBox({})),
      m_yFrom(new ShapeSpinBox({})),
      m_yTo(new ShapeSpinBox({})),
      m_cells(new QSpinBox),
      m_cellTotal(new QLabel),
      m_watcher(new QFutureWatcher<std::shared_ptr<const BoundaryResult>>(this)) {
    setObjectName(QStringLiteral("boundaryPage"));
    m_plot->setObjectName(QStringLiteral("boundaries"));
    m_plot->setMouseTracking(true);
    m_pixmap = new QCPItemPixmap(m_plot);
    m_pixmap->setScaled(true, Qt::IgnoreAspectRatio, Qt::FastTransformation);
    m_pixmap->setPen(Qt::NoPen);
    m_pixmap->setLayer(QStringLiteral("background"));
    m_outline = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_outline->setName(tr("compare-device ok boundary"));
    m_outline->setPen(QPen(kCompareColour, kWidestOutline));
    m_splitOutline = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_splitOutline->setName(tr("split count changes"));
    m_splitOutline->setPen(QPen(kSplitColour, 2.0, Qt::DotLine));
    m_splitOutline->setVisible(false);
    m_dispatchOutline = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_dispatchOutline->setName(tr("dispatch: dequantize + cuBLAS GEMM from here"));
    m_dispatchOutline->setPen(QPen(kDispatchColour, 3.0, Qt::DashLine));
    m_dispatchOutline->setVisible(false);
    m_crossX = new QCPItemStraightLine(m_plot);
    m_crossY = new QCPItemStraightLine(m_plot);
    for (auto* line : {m_crossX, m_crossY}) line->setPen(QPen(Qt::white, 1.5, Qt::DashLine));
    m_plot->axisRect()->setBackground(palette().brush(QPalette::Base));
    // Room right of the map for the last X label (1,024 sits on the last cell, half of it past the edge).
    m_plot->axisRect()->setMinimumMargins(QMargins(0, kTopLabelRoom, kRightLabelRoom, 0));
    m_legend->setObjectName(QStringLiteral("boundaryLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);

    m_xParameter->setObjectName(QStringLiteral("xParameter"));
    m_yParameter->setObjectName(QStringLiteral("yParameter"));
    m_cells->setObjectName(QStringLiteral("cells"));
    m_cells->setRange(2, kMaxCells);
    m_cells->setValue(kDefaultCells);
    m_cells->setToolTip(
        tr("Cells along each axis: fewer where the range holds fewer values the kernel can be asked "
           "for (multiples of the parameter's alignment, integers on a doubling axis)"));
    m_cellTotal->setObjectName(QStringLiteral("cellTotal"));
    // The total never widens the page past 1,024 px; the legend under the map repeats it.
    m_cellTotal->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_cellTotal->setMinimumWidth(0);
    // Wrapped, so why an axis holds fewer cells than asked is read whole, not cut at the page edge.
    m_cellTotal->setWordWrap(true);
    m_xParameter->setToolTip(tr("Horizontal axis parameter"));
    m_yParameter->setToolTip(tr("Vertical axis parameter, or none for the 1-D map"));
    // X and Y each on a row of their own: in one row the controls alone were about 800 px wide, which
    // kept the window from shrinking to 1,024 px (issue #15 item 12).
    auto* controls = new QGridLayout;
    controls->setHorizontalSpacing(6);
    controls->setVerticalSpacing(2);
    auto addAxisRow = [&](int row, const QString& name, QComboBox* parameter, QSpinBox* from, QSpinBox* to) {
        controls->addWidget(new QLabel(name), row, 0);
        controls->addWidget(parameter, row, 1);
        controls->addWidget(from, row, 2);
        controls->addWidget(new QLabel(QStringLiteral("…")), row, 3);
        controls->addWidget(to, row, 4);
    };
    addAxisRow(0, tr("X"), m_xParameter, m_xFrom, m_xTo);
    addAxisRow(1, tr("Y"), m_yParameter, m_yFrom, m_yTo);
    controls->addItem(new QSpacerItem(16, 0), 0, 5);
    controls->addWidget(new QLabel(tr("Cells per axis")), 0, 6);
    controls->addWidget(m_cells, 0, 7);
    // The total spans into the stretch column: in columns 6-7 alone it was cut after "(M ho" at 1,024 px.
    controls->addWidget(m_cellTotal, 1, 6, 1, 3);
    controls->setColumnStretch(8, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_legend);

    connect(m_xParameter, &QComboBox::currentIndexChanged, this, [this] { axisParameterChosen(false, m_xParameter->currentIndex()); });
    connect(m_yParameter, &QComboBox::currentIndexChanged, this, [this] {
        if (m_yParameter->currentIndex() == 0) clearYAxis();
        else axisParameterChosen(true, m_yParameter->currentIndex() - 1);
    });
    // An edited range is remembered for its parameter; a new cell count keeps the ranges as they are.
    for (QSpinBox* spin : {m_xFrom, m_xTo})
        connect(spin, &QSpinBox::valueChanged, this, [this] {
            axisControlsEdited();
            rememberRange(m_x);
        });
    for (QSpinBox* spin : {m_yFrom, m_yTo})
        connect(spin, &QSpinBox::valueChanged, this, [this] {
            axisControlsEdited();
            if (m_y) rememberRange(*m_y);
        });
    connect(m_cells, &QSpinBox::valueChanged, this, &BoundaryPage::axisControlsEdited);
    connect(m_plot, &QCustomPlot::beforeReplot, this, &BoundaryPage::fitOutlineToCells);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &BoundaryPage::jobFinished);
    connect(m_plot, &QCustomPlot::mouseMove, this, &BoundaryPage::hover);
    connect(m_plot, &QCustomPlot::mousePress, this, &BoundaryPage::click);
    connect(state, &ExplorerState::kernelChanged, this, &BoundaryPage::resetAxesForFamily);
    connect(state, &ExplorerState::changed, this, &BoundaryPage::requestMap);
    resetAxesForFamily();
}

BoundaryPage::~BoundaryPage() { m_watcher->waitForFinished(); }

void BoundaryPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitMinimumHeight();  // the legend wraps into more lines when narrower
}

void BoundaryPage::fitMinimumHeight() {
    // A word-wrapped label's minimum is one short line: under the Diagnose dock at 1,024 x 700 the
    // legend lost its last lines. It needs its wrapped height at the width it has.
    const int legend = m_legend->width() > 0 ? std::max(0, m_legend->heightForWidth(m_legend->width())) : 0;
    if (legend == m_legend->minimumHeight()) return;
    m_legend->setMinimumHeight(legend);
    emit minimumHeightChanged();
}

void BoundaryPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) m_plot->axisRect()->setBackground(palette().brush(QPalette::Base));
    QWidget::changeEvent(event);
}

void BoundaryPage::rebuildParameterBoxes() {
    const QSignalBlocker bx(m_xParameter), by(m_yParameter);
    m_xParameter->clear();
    m_yParameter->clear();
    m_yParameter->addItem(tr("none (1-D)"));
    for (const ParameterSpec& p : m_state->parameters()) {
        m_xParameter->addItem(QString::fromStdString(p.name));
        m_yParameter->addItem(QString::fromStdString(p.name));
    }
}

void BoundaryPage::resetAxesForFamily() {
    rebuildParameterBoxes();
    // Each variant names the plane its failures lie on (core VariantInfo::mapX/mapY, e.g. M x group_size
    // or head_dim x head_dim_v), so the map opens on both sides of a boundary.
    const ParameterList& parameters = m_state->parameters();
    const KernelChoice kernel = m_state->kernel();
    const VariantInfo& variant = kernel.family->variants()[static_cast<std::size_t>(kernel.variant)];
    const int hintedX = parameterIndex(parameters, variant.mapX.parameter);
    const int x = hintedX >= 0 ? hintedX : 0;
    const int y = variant.mapY.parameter.empty() ? -1 : parameterIndex(parameters, variant.mapY.parameter);
    setAxes(x, y, m_cells->value());
    // A hinted range replaces the parameter's explorer range (e.g. M 1..16 rather than 1..2^20).
    auto applyHint = [&](SweepAxis& axis, const MapAxisHint& hint) {
        if ((hint.from == 0 && hint.to == 0) || rememberedRange(axis.parameter)) return;  // the user's range wins
        const ParameterSpec& spec = parameters[static_cast<std::size_t>(axis.parameter)];
        axis = makeExplorerAxis(spec, axis.parameter, hint.from, hint.to, hint.cells > 0 ? hint.cells : m_cells->value());
    };
    if (hintedX >= 0) applyHint(m_x, variant.mapX);
    if (m_y && y >= 0) applyHint(*m_y, variant.mapY);
    syncAxisControls();
    requestMap();
}

void BoundaryPage::setAxes(int xParameter, int yParameter, int cells) {
    const ParameterList& parameters = m_state->parameters();
    const int count = static_cast<int>(parameters.size());
    if (xParameter < 0 || xParameter >= count) return;
    m_x = explorerAxis(xParameter, cells);
    if (yParameter >= 0 && yParameter < count && yParameter != xParameter) m_y = explorerAxis(yParameter, cells);
    else m_y.reset();
    {
        const QSignalBlocker block(m_cells);
        m_cells->setValue(cells);
    }
    syncAxisControls();
    requestMap();
}

SweepAxis BoundaryPage::explorerAxis(int parameter, int cells) const {
    const ParameterSpec& spec = m_state->parameters()[static_cast<std::size_t>(parameter)];
    const auto range = rememberedRange(parameter) ? *rememberedRange(parameter) : defaultExplorerRange(spec);
    return makeExplorerAxis(spec, parameter, range.first, range.second, cells);
}

const std::pair<std::int64_t, std::int64_t>* BoundaryPage::rememberedRange(int parameter) const {
    const auto found = m_ranges.find(rangeKey(*m_state, parameter));
    return found == m_ranges.end() ? nullptr : &found->second;
}

void BoundaryPage::rememberRange(const SweepAxis& axis) {
    if (axis.values.empty()) return;
    m_ranges[rangeKey(*m_state, axis.parameter)] = {axis.values.front(), axis.values.back()};
}

void BoundaryPage::axisParameterChosen(bool isY, int parameter) {
    const int count = static_cast<int>(m_state->parameters().size());
    if (parameter < 0 || parameter >= count) return;
    // Only the chosen axis is rebuilt: the other keeps its range (it reset to the default before).
    if (isY) {
        if (parameter == m_x.parameter) {
            clearYAxis();
            return;
        }
        m_y = explorerAxis(parameter, m_cells->value());
    } else {
        m_x = explorerAxis(parameter, m_cells->value());
        if (m_y && m_y->parameter == parameter) m_y.reset();
    }
    syncAxisControls();
    requestMap();
}

void BoundaryPage::setAxis(bool isY, const SweepAxis& axis) {
    if (axis.values.empty() || axis.parameter < 0 || axis.parameter >= static_cast<int>(m_state->parameters().size())) return;
    if (isY) m_y = axis;
    else m_x = axis;
    {
        const QSignalBlocker block(m_cells);
        m_cells->setValue(static_cast<int>(std::max(m_x.values.size(), m_y ? m_y->values.size() : std::size_t{0})));
    }
    syncAxisControls();
    requestMap();
}

void BoundaryPage::clearYAxis() {
    m_y.reset();
    syncAxisControls();
    requestMap();
}

void BoundaryPage::syncAxisControls() {
    const QSignalBlocker b1(m_xParameter), b2(m_yParameter), b3(m_xFrom), b4(m_xTo), b5(m_yFrom), b6(m_yTo);
    const ParameterList& parameters = m_state->parameters();
    auto sync = [&](const SweepAxis& axis, ShapeSpinBox* from, ShapeSpinBox* to) {
        const ParameterSpec& spec = parameters[static_cast<std::size_t>(axis.parameter)];
        // The boxes take what the axis can start and end at (a doubling axis from 1), so a value typed
        // outside is refused with that range rather than moved silently.
        ParameterSpec axisSpec = spec;
        std::tie(axisSpec.minimum, axisSpec.maximum) = explorerAxisLimits(spec);
        for (ShapeSpinBox* spin : {from, to}) {
            spin->setParameter(axisSpec);  // steps land on values the kernel accepts, as in the shape panel
            spin->setToolTip(QString::fromStdString(spec.help));
        }
        from->setValue(spinBoxValue(axis.values.front()));
        to->setValue(spinBoxValue(axis.values.back()));
    };
    m_xParameter->setCurrentIndex(m_x.parameter);
    sync(m_x, m_xFrom, m_xTo);
    m_yParameter->setCurrentIndex(m_y ? m_y->parameter + 1 : 0);
    m_yFrom->setEnabled(m_y.has_value());
    m_yTo->setEnabled(m_y.has_value());
    if (m_y) sync(*m_y, m_yFrom, m_yTo);
}

void BoundaryPage::axisControlsEdited() {
    const ParameterList& parameters = m_state->parameters();
    const int cells = m_cells->value();
    m_x = makeExplorerAxis(parameters[static_cast<std::size_t>(m_x.parameter)], m_x.parameter, m_xFrom->value(), m_xTo->value(), cells);
    if (m_y)
        m_y =
            makeExplorerAxis(parameters[static_cast<std::size_t>(m_y->parameter)], m_y->parameter, m_yFrom->value(), m_yTo->value(), cells);
    syncAxisControls();  // a typed end moves to the value the axis starts or ends on (head_dim 1 -> 8)
    requestMap();
}

QSpinBox* BoundaryPage::xFromBox() const { return m_xFrom; }
QSpinBox* BoundaryPage::xToBox() const { return m_xTo; }
QSpinBox* BoundaryPage::yFromBox() const { return m_yFrom; }
QSpinBox* BoundaryPage::yToBox() const { return m_yTo; }

QString BoundaryPage::cellTotalText() const { return m_cellTotal->text(); }

void BoundaryPage::updateCellTotal() {
    const ParameterList& parameters = m_state->parameters();
    const auto width = static_cast<std::int64_t>(m_x.values.size());
    const auto height = m_y ? static_cast<std::int64_t>(m_y->values.size()) : std::int64_t{1};
    QString text = m_y ? tr("= %1 × %2 = %3 cells")
                             .arg(groupedNumber(static_cast<double>(width)), groupedNumber(static_cast<double>(height)),
                                  groupedNumber(static_cast<double>(width * height)))
                       : tr("= %1 cells").arg(groupedNumber(static_cast<double>(width)));
    // Say why an axis holds fewer cells than asked for: its range holds no more values the kernel takes.
    QStringList fewer;
    for (const SweepAxis* axis : {&m_x, m_y ? &*m_y : nullptr}) {
        if (!axis || axis->values.empty() || static_cast<int>(axis->values.size()) >= m_cells->value()) continue;
        if (axis->parameter < 0 || axis->parameter >= static_cast<int>(parameters.size())) continue;
        const ParameterSpec& spec = parameters[static_cast<std::size_t>(axis->parameter)];
        fewer << (spec.alignment > 1 ? tr("%1 holds %2 multiples of %3 in range")
                                           .arg(QString::fromStdString(spec.name))
                                           .arg(axis->values.size())
                                           .arg(spec.alignment)
                                     : tr("%1 holds %2 values in range").arg(QString::fromStdString(spec.name)).arg(axis->values.size()));
    }
    m_fewerNote = fewer.join(QStringLiteral(", "));
    if (!fewer.isEmpty()) text += QStringLiteral(" (") + m_fewerNote + QLatin1Char(')');
    m_cellTotal->setText(text);
    m_cellTotal->setToolTip(text);
}

double BoundaryPage::compareOutlineWidth() const { return m_outline->pen().widthF(); }

void BoundaryPage::fitOutlineToCells() {
    if (!m_result) return;
    const QRect rect = m_plot->axisRect()->rect();
    const double cellWidth = rect.width() / std::max(1.0, static_cast<double>(m_result->map.width()));
    const double cellHeight =
        m_result->map.yAxis() ? rect.height() / std::max(1.0, static_cast<double>(m_result->map.height())) : cellWidth;
    const double width = std::clamp(kOutlineCellFraction * std::min(cellWidth, cellHeight), kThinnestOutline, kWidestOutline);
    // Cells under two pixels: edges between every pair of rows would merge into a band, so the
    // outline fades with the cell size and the map under it still shows.
    QColor colour = kCompareColour;
    colour.setAlphaF(static_cast<float>(std::clamp(std::min(cellWidth, cellHeight) / 2.0, kFaintestOutline, 1.0)));
    if (m_outline->pen().widthF() != width || m_outline->pen().color() != colour) m_outline->setPen(QPen(colour, width));
}

void BoundaryPage::requestMap() {
    if (m_x.parameter < 0 || m_x.parameter >= static_cast<int>(m_state->parameters().size())) return;
    updateCellTotal();
    BoundaryJob job{0, m_state->kernel(), m_state->device(), std::nullopt, m_state->shape(), m_x, m_y};
    // Tied here as well as in the map, so a shape edit that ties or unties head_dim_v redraws it.
    tieFollowers(job.x, job.base, m_state->parameters(), job.y ? &*job.y : nullptr);
    if (job.y) tieFollowers(*job.y, job.base, m_state->parameters(), &job.x);
    if (const DeviceSpec* compare = m_state->compareDevice()) job.compare = *compare;
    if (m_lastJob && sameInputs(*m_lastJob, job)) {
        m_lastJob->base = job.base;
        updateCrosshair();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    job.generation = ++m_generation;
    m_lastJob = std::move(job);
    if (m_watcher->isRunning()) m_pending = true;
    else startJob();
}

void BoundaryPage::startJob() {
    m_pending = false;
    const BoundaryJob job = *m_lastJob;
    m_watcher->setFuture(QtConcurrent::run([job] { return computeBoundary(job); }));
}

bool BoundaryPage::isBusy() const { return m_shownGeneration != m_generation; }

void BoundaryPage::jobFinished() {
    std::shared_ptr<const BoundaryResult> result = m_watcher->result();
    // Jobs run one at a time, so a finished one is never older than the map on screen; it is
    // shown even when a newer request waits, so a held spin box keeps the map moving.
    if (result && result->generation > m_shownGeneration) {
        m_result = std::move(result);
        showResult();
    }
    if (m_pending) startJob();
}

void BoundaryPage::showResult() {
    const BoundaryMap& map = m_result->map;
    const double w = map.width(), h = map.height();
    m_pixmap->setPixmap(QPixmap::fromImage(m_result->image));
    m_pixmap->topLeft->setCoords(-0.5, h - 0.5);
    m_pixmap->bottomRight->setCoords(w - 0.5, -0.5);
    const ParameterList& parameters = map.kernel().family->parameters();
    m_plot->xAxis->setRange(-0.5, w - 0.5);
    m_plot->yAxis->setRange(-0.5, h - 0.5);
    applyAxis(m_plot, m_plot->xAxis, map.xAxis(), parameters);
    if (map.yAxis()) {
        applyAxis(m_plot, m_plot->yAxis, *map.yAxis(), parameters);
    } else {
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
        m_plot->setAxisTitles(m_plot->yAxis, {tr("1-D: verdict along %1").arg(QString::fromStdString(axisLabel(map.xAxis(), parameters))),
                                              tr("1-D verdict")});
    }
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);

    QVector<double> ox, oy;
    for (const OutlineSegment& s : m_result->compareOutline) {
        ox << s.x1 << s.x2 << qQNaN();
        oy << s.y1 << s.y2 << qQNaN();
    }
    m_outline->setData(ox, oy);
    m_outline->setVisible(!ox.isEmpty());
    showSplitRegions();
    updateCrosshair();
    updateLegend();
    m_shownGeneration = m_result->generation;
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    emit mapShown(m_shownGeneration);
}

void BoundaryPage::showSplitRegions() {
    QVector<double> sx, sy;
    for (const OutlineSegment& s : m_result->splitOutline) {
        sx << s.x1 << s.x2 << qQNaN();
        sy << s.y1 << s.y2 << qQNaN();
    }
    m_splitOutline->setData(sx, sy);
    m_splitOutline->setVisible(!sx.isEmpty());
    QVector<double> dx, dy;
    for (const OutlineSegment& s : m_result->dispatchOutline) {
        dx << s.x1 << s.x2 << qQNaN();
        dy << s.y1 << s.y2 << qQNaN();
    }
    m_dispatchOutline->setData(dx, dy);
    m_dispatchOutline->setVisible(!dx.isEmpty());
    for (QCPItemText* label : m_splitLabels) m_plot->removeItem(label);
    m_splitLabels.clear();
    for (const SplitRegionLabel& region : m_result->splitLabels) {
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(region.ix, region.iy);
        label->setText(QString::number(region.splits));
        label->setColor(kSplitColour);
        label->setBrush(QBrush(kSplitLabelBackground));
        label->setPadding(QMargins(3, 1, 3, 1));
        QFont font = label->font();
        font.setBold(true);
        label->setFont(font);
        m_splitLabels.push_back(label);
    }
}

QStringList BoundaryPage::splitLabelTexts() const {
    QStringList texts;
    for (const QCPItemText* label : m_splitLabels) texts << label->text();
    return texts;
}

QString BoundaryPage::legendText() const { return m_legend->text(); }

void BoundaryPage::updateCrosshair() {
    if (!m_result) return;
    const BoundaryMap& map = m_result->map;
    const Shape& shape = m_state->shape();
    if (map.kernel().family != m_state->kernel().family) return;
    const double x = axisPosition(map.xAxis(), shape[map.xAxis().parameter]);
    m_crossX->point1->setCoords(x, 0);
    m_crossX->point2->setCoords(x, 1);
    m_crossY->setVisible(map.yAxis().has_value());
    if (map.yAxis()) {
        const double y = axisPosition(*map.yAxis(), shape[map.yAxis()->parameter]);
        m_crossY->point1->setCoords(0, y);
        m_crossY->point2->setCoords(1, y);
    }
}

void BoundaryPage::updateLegend() {
    const auto counts = m_result->map.verdictCounts();
    QString html;
    for (Verdict v : kAllVerdicts) {
        const auto count = counts[static_cast<std::size_t>(v)];
        if (count == 0 && v != Verdict::Ok) continue;
        html += QStringLiteral("<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2 %3 &nbsp;&nbsp; ")
                    .arg(toQColor(verdictColour(v)).name(), toQString(verdictName(v)), groupedNumber(static_cast<double>(count)));
    }
    html += tr("&nbsp; <b>%1</b> cells on %2")
                .arg(groupedNumber(static_cast<double>(m_result->map.cellCount())), QString::fromStdString(m_result->map.device().id));
    if (m_result->map.yAxis())
        html += tr(" (%1 × %2%3)")
                    .arg(m_result->map.width())
                    .arg(m_result->map.height())
                    .arg(m_fewerNote.isEmpty() ? QString() : QStringLiteral("; ") + m_fewerNote.toHtmlEscaped());
    else if (!m_fewerNote.isEmpty()) html += QStringLiteral(" (") + m_fewerNote.toHtmlEscaped() + QLatin1Char(')');
    if (m_result->compareCounts && m_lastJob && m_lastJob->compare) {
        const auto ok = (*m_result->compareCounts)[static_cast<std::size_t>(Verdict::Ok)];
        html += tr("<br><b>━━</b> outline: where %1 (compare-device) changes between ok and failing — %2 ok cells there")
                    .arg(QString::fromStdString(m_lastJob->compare->id), groupedNumber(static_cast<double>(ok)));
    }
    const auto [fewest, most] = m_result->splitRange;
    // The family's own word for it (split-K for AWQ GEMM, num_splits for split-KV attention), not both.
    const QString splitName = toQString(m_result->map.kernel().family->splitName());
    if (!m_result->splitOutline.empty())
        html += tr("<br><b>┈┈</b> dotted lines: where the planner's split count (%1) changes "
                   "between ok cells, %2 .. %3 here; the numbers are each region's splits")
                    .arg(splitName)
                    .arg(fewest)
                    .arg(most);
    else if (most > 1 && !m_result->dispatchOutline.empty())
        html += tr("<br>Every ok cell before the dispatch line splits its work %1 ways (split-K).")
                    .arg(fewest == most ? QString::number(most) : tr("%1 .. %2").arg(fewest).arg(most));
    else if (most > 1)
        html += tr("<br>Every ok cell splits its work %1 ways (%2).")
                    .arg(fewest == most ? QString::number(most) : tr("%1 .. %2").arg(fewest).arg(most), splitName);
    if (!m_result->dispatchOutline.empty())
        html += tr("<br><b><font color=\"%1\">╍╍</font></b> dashed line: the stack's dispatch — past it the call is a dequantize "
                   "kernel, then an fp16 GEMM by cuBLAS (%2); its split and launch are cuBLAS's own")
                    .arg(kDispatchColour.name(), toQString(m_result->map.kernel().variantName()));
    // An exported map (a PNG, the report's figure) keeps the key, less what only the window does.
    m_plot->setExportKey(html + tr("<br>Dashed crosshair: the current shape."));
    html += tr("<br>Dashed crosshair: the current shape. Hover a cell for its message; click to move the shape there.");
    m_legend->setText(html);
    fitMinimumHeight();
}

std::optional<std::pair<int, int>> BoundaryPage::cellAt(const QPoint& pixel) const {
    if (!m_result || !m_plot->axisRect()->rect().contains(pixel)) return std::nullopt;
    const int ix = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pixel.x())));
    const int iy = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pixel.y())));
    if (ix < 0 || ix >= m_result->map.width() || iy < 0 || iy >= m_result->map.height()) return std::nullopt;
    return std::make_pair(ix, iy);
}

QPoint BoundaryPage::cellCentre(int ix, int iy) const {
    return QPoint(static_cast<int>(std::lround(m_plot->xAxis->coordToPixel(ix))),
                  static_cast<int>(std::lround(m_plot->yAxis->coordToPixel(iy))));
}

QString BoundaryPage::cellDescription(int ix, int iy) const {
    if (!m_result) return {};
    const BoundaryMap& map = m_result->map;
    const LaunchPlan plan = map.planAt(ix, iy, &m_state->database());
    QString text = QString::fromStdString(formatShape(map.shapeAt(ix, iy), map.kernel().family->parameters())) + QStringLiteral("\n") +
                   toQString(verdictName(plan.verdict));
    if (!plan.ok()) text += QStringLiteral(": ") + QString::fromStdString(plan.message);
    if (plan.limit) text += tr("\nlimit: %1").arg(QString::fromStdString(describeLimit(*plan.limit)));
    if (!plan.fix.empty()) text += tr("\nfix: %1").arg(QString::fromStdString(plan.fix));
    if (plan.ok() && !plan.tile.empty()) text += tr("\ntile %1").arg(toQString(plan.tile));
    if (!plan.note.empty()) text += QStringLiteral("\n") + QString::fromStdString(plan.note);
    else if (plan.splitK > 1) text += tr("\nsplits %1").arg(plan.splitK);
    return text;
}

void BoundaryPage::hover(QMouseEvent* event) {
    const auto cell = cellAt(event->pos());
    if (!cell) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), cellDescription(cell->first, cell->second), m_plot);
}

void BoundaryPage::click(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const auto cell = cellAt(event->pos());
    if (!cell) return;
    const BoundaryMap& map = m_result->map;
    if (map.kernel().family != m_state->kernel().family) return;
    Shape shape = m_state->shape();
    setAxisValue(shape, map.xAxis(), static_cast<std::size_t>(cell->first));
    if (map.yAxis()) setAxisValue(shape, *map.yAxis(), static_cast<std::size_t>(cell->second));
    m_state->setShape(shape);
}

}  // namespace tilescope

#include "ui/models/run_model.h"

#include <QBrush>
#include <QColor>

#include "core/series/report_text.h"
#include "core/trace/trace_summary.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

QString dimText(const Dim3& d) { return QStringLiteral("(%1, %2, %3)").arg(d.x).arg(d.y).arg(d.z); }

QString gpuOutcome(const Run& run) {
    if (!run.gpu) return {};
    if (!run.gpu->launch.ok()) return QString::fromStdString(run.gpu->launch.errorName + ": " + run.gpu->launch.errorText);
    if (!run.gpu->synchronize.ok()) return QString::fromStdString(run.gpu->synchronize.errorName + ": " + run.gpu->synchronize.errorText);
    if (run.gpu->check && !run.gpu->check->passed) return QObject::tr("output check failed");
    return {};
}

std::optional<std::int64_t> smemOf(const KernelRecord& r) {
    if (r.sharedMemory) return r.sharedMemory;
    if (r.staticSmem || r.dynamicSmem) return r.staticSmem.value_or(0) + r.dynamicSmem.value_or(0);
    return std::nullopt;
}

// Displayed text and the value it sorts by.
QVariant pick(int role, const QString& text, const QVariant& sortValue) { return role == RunModel::SortRole ? sortValue : QVariant(text); }

// A launch figure of the main kernel and, after " + ", of each later one (split-KV's combine).
template <typename Figure>
QString withExtraLaunches(const LaunchPlan& p, const QString& main, Figure figure) {
    QString text = main;
    for (const ExtraLaunch& e : p.extraLaunches) text += QStringLiteral(" + ") + (e.chosenByLibrary() ? toQString(e.library) : figure(e));
    return text;
}

// The call's kernels, one line each, for the launch columns' tooltip.
QString launchesTooltip(const LaunchPlan& p) {
    QString text = QObject::tr("%1: grid %2, block %3, %4 B shared memory")
                       .arg(toQString(p.kernelSymbol), dimText(p.grid), dimText(p.block))
                       .arg(p.totalSmem());
    for (const ExtraLaunch& e : p.extraLaunches)
        if (e.chosenByLibrary())
            text += QObject::tr("\nthen %1 by %2 (launch chosen at run time)").arg(toQString(e.role), toQString(e.library));
        else
            text += QObject::tr("\nthen %1 %2: grid %3, block %4, %5 B shared memory")
                        .arg(toQString(e.role), toQString(e.kernelSymbol), dimText(e.grid), dimText(e.block))
                        .arg(e.totalSmem());
    return text;
}

}  // namespace

void RunModel::setTrace(const Trace* trace) {
    beginResetModel();
    m_trace = trace;
    m_flags = trace ? flagRecords(*trace, trace->records) : std::vector<RecordFlags>{};
    m_figures =
        trace ? runFigures(*trace, builtinKernels(), DeviceDatabase::embedded(), m_calibrations) : std::vector<std::optional<RunFigures>>{};
    endResetModel();
}

void RunModel::setCalibrations(std::vector<Calibration> calibrations) {
    m_calibrations = std::move(calibrations);
    if (!m_trace || m_trace->runs.empty()) return;
    m_figures = runFigures(*m_trace, builtinKernels(), DeviceDatabase::embedded(), m_calibrations);
    emit dataChanged(index(0, Gbps), index(static_cast<int>(m_trace->runs.size()) - 1, Roofline));
}

int RunModel::flaggedCount() const {
    int count = 0;
    for (const auto& f : m_flags) count += f.flagged();
    return count;
}

int RunModel::runAt(int row) const { return m_trace && row >= 0 && row < static_cast<int>(m_trace->runs.size()) ? row : -1; }

int RunModel::recordAt(int row) const {
    if (!m_trace || row < static_cast<int>(m_trace->runs.size()) || row >= rowCount()) return -1;
    return row - static_cast<int>(m_trace->runs.size());
}

int RunModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_trace ? 0 : static_cast<int>(m_trace->runs.size() + m_trace->records.size());
}

int RunModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {"kind", "kernel",  "variant",       "shape",     "device",      "verdict",
                                        "grid", "block",   "smem (B)",      "registers", "occupancy %", "duration (µs)",
                                        "GB/s", "TFLOP/s", "% of roofline", "roofline",  "problem"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant RunModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_trace) return {};
    const int run = runAt(index.row());
    if (role == RunIndexRole) return run;
    if (role == RecordIndexRole) return recordAt(index.row());
    if (run >= 0 && index.column() >= Gbps && index.column() <= Roofline)
        return figureData(static_cast<std::size_t>(run), index.column(), role);
    if (run >= 0) return runData(m_trace->runs[static_cast<std::size_t>(run)], index.column(), role);
    return recordData(static_cast<std::size_t>(recordAt(index.row())), index.column(), role);
}

QVariant RunModel::runData(const Run& run, int column, int role) const {
    const LaunchPlan& p = run.plan;
    const QString failure = gpuOutcome(run);
    const bool failed = !p.ok() || !failure.isEmpty();
    if (role == FlaggedRole) return failed;
    const bool launched = p.verdict >= tilescope::Verdict::InvalidLaunch;
    // A call of several kernels shows each one's figures, joined by " + " (sorting uses the main one's).
    const bool launchColumn = column == Grid || column == Block || column == Smem || column == Registers || column == Occupancy;
    if (role == Qt::ToolTipRole && launched && launchColumn && !p.extraLaunches.empty()) return launchesTooltip(p);
    if (role == Qt::ToolTipRole)
        return failed ? QString::fromStdString(p.message.empty() ? std::string() : p.message + "\n") + failure +
                            (p.fix.empty() ? QString() : QStringLiteral("\nfix: ") + QString::fromStdString(p.fix))
                      : QVariant();
    if (role == Qt::ForegroundRole && failed && (column == Verdict || column == Problem)) return QBrush(QColor(0xc6, 0x28, 0x28));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    if (role == Qt::DisplayRole && launched && launchColumn && !p.extraLaunches.empty()) {
        const QString unknown = tr("unknown");
        switch (column) {
            case Grid: return withExtraLaunches(p, dimText(p.grid), [](const ExtraLaunch& e) { return dimText(e.grid); });
            case Block: return withExtraLaunches(p, dimText(p.block), [](const ExtraLaunch& e) { return dimText(e.block); });
            case Smem:
                return withExtraLaunches(p, QString::number(p.totalSmem()),
                                         [](const ExtraLaunch& e) { return QString::number(e.totalSmem()); });
            case Registers:
                return withExtraLaunches(p, p.registers ? QString::number(*p.registers) : unknown,
                                         [&](const ExtraLaunch& e) { return e.registers ? QString::number(*e.registers) : unknown; });
            default:
                return withExtraLaunches(
                    p, p.occupancy ? QString::number(p.occupancy->occupancyPct, 'f', 1) : unknown,
                    [&](const ExtraLaunch& e) { return e.occupancy ? QString::number(e.occupancy->occupancyPct, 'f', 1) : unknown; });
        }
    }
    switch (column) {
        case Kind: return toQString(runKindName(run.kind));
        case Kernel: return toQString(p.family);
        case Variant: return toQString(p.variant);
        case Shape: return QString::fromStdString(formatShape(p.shape, run.parameters));
        case Device: return QString::fromStdString(p.deviceId);
        case Verdict: return toQString(verdictName(p.verdict));
        case Grid: return launched ? pick(role, dimText(p.grid), static_cast<qlonglong>(p.grid.volume())) : QVariant();
        case Block: return launched ? pick(role, dimText(p.block), static_cast<qlonglong>(p.block.volume())) : QVariant();
        case Smem: return launched ? QVariant(static_cast<qlonglong>(p.totalSmem())) : QVariant();
        case Registers: return p.registers ? QVariant(*p.registers) : pick(role, tr("unknown"), -1);
        case Occupancy:
            return p.occupancy ? pick(role, QString::number(p.occupancy->occupancyPct, 'f', 1), p.occupancy->occupancyPct) : QVariant();
        case Duration: {
            if (!run.gpu) return pick(role, tr("predicted"), -1.0);
            // A run whose launch failed has no duration: "—, failed", as in the report, not 0.000 (issue #15 item 14).
            const std::string text = runDurationText(run);
            if (text.rfind("\u2014", 0) == 0) return pick(role, QString::fromStdString(text), -1.0);
            double us = 0.0;
            if (run.gpu->timing && run.gpu->timing->repeats > 0) us = run.gpu->timing->medianUs;
            else
                for (const auto& r : run.gpu->records) us += static_cast<double>(r.durationNs()) / 1000.0;
            return pick(role, QString::number(us, 'f', 3), us);
        }
        case Problem: return failure.isEmpty() ? QString::fromStdString(p.message) : failure;
        default: return {};
    }
}

QVariant RunModel::figureData(std::size_t run, int column, int role) const {
    static const std::optional<RunFigures> none;
    const std::optional<RunFigures>& f = run < m_figures.size() ? m_figures[run] : none;
    const bool shown = role == Qt::DisplayRole || role == SortRole || (role == Qt::ToolTipRole && f);
    if (!shown) return runData(m_trace->runs[run], column, role);  // flags, colours, a failure's tooltip
    // Predicted and failed runs have no time, so no rate: a dash, sorted below every measured value.
    if (!f) return role == Qt::DisplayRole ? QVariant(QStringLiteral("\u2014")) : QVariant(-1.0);
    if (role == Qt::ToolTipRole)
        return tr("%1 µs; roofline bound %2 µs (%3 roofline)")
            .arg(f->achieved.timeUs, 0, 'f', 3)
            .arg(f->achieved.boundUs ? QString::number(*f->achieved.boundUs, 'f', 3) : tr("unknown"),
                 QString::fromStdString(f->rooflineLabel));
    auto figure = [&](const std::optional<double>& value, int decimals) {
        return value ? pick(role, QString::number(*value, 'f', decimals), *value) : pick(role, tr("unknown"), -1.0);
    };
    switch (column) {
        case Gbps: return figure(f->achieved.gbps, 0);
        case Tflops: return figure(f->achieved.tflops, 2);
        case PctOfRoofline: return figure(f->achieved.pctOfRoofline, 1);
        default: return QString::fromStdString(f->rooflineLabel);
    }
}

QVariant RunModel::recordData(std::size_t i, int column, int role) const {
    const KernelRecord& r = m_trace->records[i];
    const RecordFlags& f = m_flags[i];
    auto problem = [&] {
        QString text = QString::fromStdString(f.violation);
        if (f.occupancyCorrected)
            text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + tr("profiler occupancy %1 %, cuda_occupancy.h %2 %")
                                                                              .arg(*r.kinetoOccupancyPct, 0, 'f', 1)
                                                                              .arg(*f.estAchievedOccupancyPct, 0, 'f', 1);
        return text;
    };
    if (role == FlaggedRole) return f.flagged();
    if (role == Qt::ToolTipRole) return f.flagged() ? QVariant(problem()) : QVariant(QString::fromStdString(r.name));
    if (role == Qt::BackgroundRole && f.flagged()) return QBrush(QColor(0xff, 0xcd, 0xd2, 110));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    const DeviceSpec* device = m_trace->deviceForRecord(r.device);
    switch (column) {
        case Kind: return tr("recorded");
        case Kernel: return QString::fromStdString(r.name);
        case Device: return device ? QString::fromStdString(device->id) : tr("GPU %1").arg(r.device);
        case Verdict:
            return !f.violation.empty()   ? tr("breaks a limit")
                   : f.occupancyCorrected ? tr("occupancy misreported")
                   : f.checked            ? tr("ok")
                                          : tr("unchecked");
        case Grid: return pick(role, dimText(r.grid), static_cast<qlonglong>(r.grid.volume()));
        case Block: return pick(role, dimText(r.block), static_cast<qlonglong>(r.block.volume()));
        case Smem: return smemOf(r) ? QVariant(static_cast<qlonglong>(*smemOf(r))) : pick(role, tr("unknown"), -1);
        case Registers: return r.registersPerThread ? QVariant(*r.registersPerThread) : pick(role, tr("unknown"), -1);
        case Occupancy:
            return f.occupancyPct ? pick(role, QString::number(*f.occupancyPct, 'f', 1), *f.occupancyPct) : pick(role, tr("unknown"), -1.0);
        case Duration:
            return pick(role, QString::number(static_cast<double>(r.durationNs()) / 1000.0, 'f', 3),
                        static_cast<qlonglong>(r.durationNs()));
        case Problem: return problem();
        default: return {};
    }
}

}  // namespace tilescope

#include "ui/models/launch_model.h"

#include <QBrush>
#include <algorithm>

#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

QString figure(double v) { return v == static_cast<double>(static_cast<long long>(v)) ? groupedNumber(v) : QString::number(v, 'f', 2); }

}  // namespace

std::vector<LaunchUsage> callLaunchUsage(const LaunchPlan& plan, const DeviceSpec& device) {
    std::vector<LaunchUsage> rows = launchUsage(plan, device);
    for (const ExtraLaunch& extra : plan.extraLaunches)
        if (!extra.chosenByLibrary())  // a library's launch has no figures of ours to set against limits
            for (LaunchUsage row : launchUsage(extraLaunchPlan(plan, extra), device)) {
                row.label = std::string(extra.role) + ": " + row.label;
                rows.push_back(std::move(row));
            }
    // The limit the banner names gets a row when no launch figure carries it (device memory, a
    // divisibility rule): the page showed every bar within limits for a shape the banner refused.
    const LimitHit* hit = plan.ok() || !plan.limit ? nullptr : &*plan.limit;
    const bool shown = hit && std::any_of(rows.begin(), rows.end(), [&](const LaunchUsage& u) { return u.limitName == hit->name; });
    if (hit && !shown && plan.hasLaunch() && hit->actual > hit->limit) {
        LaunchUsage row;
        row.label = hit->name == "memory_bytes" ? "device memory" : std::string(hit->name);
        row.limitName = std::string(hit->name);
        row.value = static_cast<double>(hit->actual);
        row.limit = static_cast<double>(hit->limit);
        row.unit = hit->name.find("mem") != std::string_view::npos ? "bytes" : "";
        rows.push_back(std::move(row));
    }
    return rows;
}

void LaunchModel::setUsage(std::vector<LaunchUsage> usage) {
    const bool sameRows = usage.size() == m_usage.size();
    if (!sameRows) beginResetModel();
    m_usage = std::move(usage);
    if (!sameRows) endResetModel();
    else if (!m_usage.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int LaunchModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_usage.size()); }
int LaunchModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LaunchModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LaunchUsage& u = m_usage[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Quantity: return QString::fromStdString(u.label);
            case Value: {
                if (!u.value) return tr("unknown");
                QString unit = QString::fromStdString(u.unit);
                if (*u.value == 1.0 && unit.endsWith(QLatin1Char('s'))) unit.chop(1);  // "1 block", not "1 blocks"
                return figure(*u.value) + QLatin1Char(' ') + unit;
            }
            case Limit: return u.limit ? figure(*u.limit) : tr("none");
            case LimitName: return u.limitName.empty() ? tr("—") : QString::fromStdString(u.limitName);
            case Use:
                if (u.fraction()) return QString::fromStdString(u.percentText());
                return tr("—");
        }
    }
    if (role == Qt::ForegroundRole && u.fails()) return QBrush(toQColor(verdictColour(Verdict::InvalidLaunch)));
    if (role == Qt::ToolTipRole && !u.value && !u.unknownWhy.empty()) return tr("Unknown: %1").arg(QString::fromStdString(u.unknownWhy));
    if (role == Qt::TextAlignmentRole && index.column() != Quantity && index.column() != LimitName)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant LaunchModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount) return {};
    static const char* const kHeaders[] = {QT_TR_NOOP("Quantity"), QT_TR_NOOP("Value"), QT_TR_NOOP("Limit"), QT_TR_NOOP("Limit name"),
                                           QT_TR_NOOP("Use of limit")};
    return tr(kHeaders[section]);
}

}  // namespace tilescope

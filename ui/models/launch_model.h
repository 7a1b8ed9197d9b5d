// LaunchModel: a table over core launchUsage() — quantity, value, limit, limit name, use of
// the limit — for the Launch page's table and bars.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "core/series/launch_usage.h"

namespace tilescope {

// Every launch of the call: the main launch's rows, then each extra launch's (split-KV's combine)
// with its role before the label ("combine: grid.x").
std::vector<LaunchUsage> callLaunchUsage(const LaunchPlan& plan, const DeviceSpec& device);

class LaunchModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Quantity, Value, Limit, LimitName, Use, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setUsage(std::vector<LaunchUsage> usage);
    const std::vector<LaunchUsage>& usage() const { return m_usage; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<LaunchUsage> m_usage;
};

}  // namespace tilescope

#include "ui/models/run_filter_model.h"

#include "ui/models/run_model.h"

namespace tilescope {

RunFilterModel::RunFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
}

void RunFilterModel::setFlaggedOnly(bool on) {
    if (on == m_flaggedOnly) return;
    m_flaggedOnly = on;
    invalidateRowsFilter();
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (m_flaggedOnly && !sourceModel()->index(sourceRow, 0, sourceParent).data(RunModel::FlaggedRole).toBool()) return false;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

}  // namespace tilescope

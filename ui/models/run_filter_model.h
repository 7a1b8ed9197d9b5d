// RunFilterModel: the Runs table's sort and filter (any column containing the text; optionally
// only flagged rows), sorting by RunModel::SortRole so figures sort as numbers.
#pragma once

#include <QSortFilterProxyModel>

namespace tilescope {

class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunFilterModel(QObject* parent = nullptr);
    void setFlaggedOnly(bool on);
    bool flaggedOnly() const { return m_flaggedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_flaggedOnly = false;
};

}  // namespace tilescope

// CandidateModel: every tile candidate the planner tried (LaunchPlan::candidates): name, shared
// memory bytes, whether it fits, and which one was chosen.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "core/model/launch_plan.h"

namespace tilescope {

class CandidateModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Bytes, Fits, Chosen, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // Copies the candidates (their names point into the planner's static tables).
    void setPlan(const LaunchPlan& plan);
    const std::vector<TileCandidate>& candidates() const { return m_candidates; }
    int chosen() const { return m_chosen; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<TileCandidate> m_candidates;
    int m_chosen = -1;
};

}  // namespace tilescope

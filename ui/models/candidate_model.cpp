#include "ui/models/candidate_model.h"

#include <QFont>

#include "ui/window/qt_text.h"

namespace tilescope {

void CandidateModel::setPlan(const LaunchPlan& plan) {
    beginResetModel();
    m_candidates = plan.candidates;
    m_chosen = plan.tileIndex;
    endResetModel();
}

int CandidateModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_candidates.size()); }
int CandidateModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CandidateModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const TileCandidate& c = m_candidates[static_cast<std::size_t>(index.row())];
    const bool chosen = index.row() == m_chosen;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Name: return toQString(c.name);
            case Bytes: return groupedNumber(static_cast<double>(c.smemBytes));
            case Fits: return c.fits ? tr("fits") : tr("too large");
            case Chosen: return chosen ? tr("chosen") : QString();
        }
    }
    if (role == Qt::UserRole && index.column() == Bytes) return static_cast<qlonglong>(c.smemBytes);
    if (role == Qt::FontRole && chosen) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole && index.column() == Bytes) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount) return {};
    static const char* const kHeaders[] = {QT_TR_NOOP("Candidate"), QT_TR_NOOP("Shared memory (B)"), QT_TR_NOOP("Fits"),
                                           QT_TR_NOOP("Chosen")};
    return tr(kHeaders[section]);
}

}  // namespace tilescope

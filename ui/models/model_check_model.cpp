#include "ui/models/model_check_model.h"

#include <QBrush>
#include <algorithm>

#include "ui/window/qt_text.h"

namespace tilescope {

void ModelCheckModel::setCheck(std::optional<ModelCheck> check) {
    beginResetModel();
    m_check = std::move(check);
    endResetModel();
}

bool ModelCheckModel::oneSeq() const { return m_check && m_check->options.seqs.size() == 1 && m_check->options.seqs.front() == 1; }

const ModelLayerCheck* ModelCheckModel::layer(int row) const {
    if (!m_check || row < 0 || row >= static_cast<int>(m_check->layers.size())) return nullptr;
    return &m_check->layers[static_cast<std::size_t>(row)];
}

const ModelCheckResult* ModelCheckModel::result(const QModelIndex& index) const {
    const ModelLayerCheck* l = index.isValid() ? layer(index.row()) : nullptr;
    const int i = index.column() - FirstResult;
    if (!l || i < 0 || i >= static_cast<int>(l->results.size())) return nullptr;
    return &l->results[static_cast<std::size_t>(i)];
}

int ModelCheckModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_check ? 0 : static_cast<int>(m_check->layers.size());
}

int ModelCheckModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    if (!m_check) return FirstResult;
    return FirstResult + static_cast<int>(m_check->options.batches.size() * m_check->options.seqs.size());
}

QVariant ModelCheckModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const ModelLayerCheck& l = *layer(index.row());
    if (const ModelCheckResult* r = result(index)) {
        const LaunchPlan& plan = r->plan;
        switch (role) {
            case Qt::DisplayRole: return plan.ok() ? QStringLiteral("ok") : toQString(verdictName(plan.verdict));
            case Qt::ToolTipRole: {
                QString tip = tr("%1 at batch %2, seq %3: %4")
                                  .arg(toQString(l.layer.name))
                                  .arg(r->batch)
                                  .arg(r->seq)
                                  .arg(toQString(verdictName(plan.verdict)));
                if (!plan.message.empty()) tip += QStringLiteral("\n") + toQString(plan.message);
                if (!plan.fix.empty()) tip += tr("\nfix: %1").arg(toQString(plan.fix));
                if (!plan.ok()) tip += tr("\nDouble-click to open this shape in the Shape panel.");
                return tip;
            }
            case Qt::BackgroundRole:
                // The boundary map's colours, so a cell reads the same on both.
                return plan.ok() ? QVariant() : QVariant(QBrush(toQColor(verdictColour(plan.verdict)).lighter(150)));
            case Qt::ForegroundRole: return plan.ok() ? QVariant() : QVariant(QBrush(Qt::black));
            case Qt::TextAlignmentRole: return QVariant(Qt::AlignCenter);
            default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Layer: return toQString(l.layer.name) + (l.layer.note.empty() || l.layer.attention ? QString() : QStringLiteral(" *"));
            case Kernel: return toQString(l.layer.family) + QLatin1Char('/') + toQString(l.layer.variant);
            case Fixed: {
                QStringList parts;
                for (const auto& [name, value] : l.layer.fixed) parts << toQString(name) + QLatin1Char('=') + QString::number(value);
                return parts.join(QLatin1Char(' '));
            }
            default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Layer && !l.layer.note.empty()) return toQString(l.layer.note);
    return {};
}

QVariant ModelCheckModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    switch (section) {
        case Layer: return tr("layer");
        case Kernel: return tr("kernel");
        case Fixed: return tr("shape");
        default: break;
    }
    if (!m_check || section < FirstResult || section >= columnCount()) return {};
    const auto& seqs = m_check->options.seqs;
    const auto i = static_cast<std::size_t>(section - FirstResult);
    const std::int64_t batch = m_check->options.batches[i / seqs.size()];
    const std::int64_t seq = seqs[i % seqs.size()];
    return oneSeq() ? QStringLiteral("b%1").arg(batch) : QStringLiteral("b%1/s%2").arg(batch).arg(seq);
}

QStringList modelCheckConclusion(const ModelCheck& check) {
    QStringList lines;
    const QString verdict = check.allPass() ? QStringLiteral("PASS: ") : QStringLiteral("FAIL: ");
    for (const auto& line : check.summary) lines << verdict + toQString(line);
    // Layers that first fail at the same point with the same message share one line (as the CLI prints them).
    std::vector<std::pair<QStringList, const ModelCheckResult*>> groups;
    for (const auto& l : check.layers) {
        if (!l.firstFailure) continue;
        const ModelCheckResult& r = l.results[*l.firstFailure];
        auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
            return g.second->batch == r.batch && g.second->seq == r.seq && g.second->plan.verdict == r.plan.verdict &&
                   g.second->plan.message == r.plan.message;
        });
        if (same == groups.end()) groups.push_back({{toQString(l.layer.name)}, &r});
        else same->first << toQString(l.layer.name);
    }
    for (const auto& [names, r] : groups) {
        lines << QObject::tr("%1: first fails at batch %2, seq %3: %4: %5")
                     .arg(names.join(QStringLiteral(", ")))
                     .arg(r->batch)
                     .arg(r->seq)
                     .arg(toQString(verdictName(r->plan.verdict)), toQString(r->plan.message));
        if (!r->plan.fix.empty()) lines << QObject::tr("    fix: %1").arg(toQString(r->plan.fix));
    }
    return lines;
}

}  // namespace tilescope

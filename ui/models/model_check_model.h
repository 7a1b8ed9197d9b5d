// ModelCheckModel: the layer x (batch, seq) verdict table of a core ModelCheck — layer,
// kernel, fixed shape, then one verdict column per batch (and seq) — for the Model tab of
// the Diagnose dock.
#pragma once

#include <QAbstractTableModel>
#include <optional>

#include "core/diagnosis/model_check.h"

namespace tilescope {

class ModelCheckModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Layer, Kernel, Fixed, FirstResult };

    using QAbstractTableModel::QAbstractTableModel;

    void setCheck(std::optional<ModelCheck> check);
    const std::optional<ModelCheck>& check() const { return m_check; }
    // The plan behind a verdict cell; null for the layer, kernel and shape columns.
    const ModelCheckResult* result(const QModelIndex& index) const;
    const ModelLayerCheck* layer(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool oneSeq() const;  // only seq 1 (decode): columns say "b8", not "b8/s1"
    std::optional<ModelCheck> m_check;
};

// Every line of a check's conclusion: the summary ("FAIL: ...") and, per group of layers that
// first fail at the same point with the same message, that failure and its fix.
QStringList modelCheckConclusion(const ModelCheck& check);

}  // namespace tilescope

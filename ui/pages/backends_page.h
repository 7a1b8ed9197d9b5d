// BackendsPage: which attention backends and quantized GEMMs take the loaded model (File > Open
// Model Config, or this page's own Open…) or, without one, the Shape panel's attention shape, on
// the devices chosen: core/series backendMatrix() drawn as a table, one row per backend, one column
// per device. A cell's tooltip is the rule that decides it (the stack's own text), its first failing
// batch x seq and the plan command; double-clicking a cell opens that backend, device and shape in
// the explorer. The page computes nothing itself.
#pragma once

#include <QWidget>
#include <optional>

#include "core/series/backend_matrix.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace tilescope {

class ExplorerState;

class BackendsPage : public QWidget {
    Q_OBJECT
public:
    explicit BackendsPage(ExplorerState* state, QWidget* parent = nullptr);

    // Reads a config.json or checkpoint folder and checks it; false (reason shown) when it cannot be read.
    bool openModel(const QString& path);
    // Plans the matrix again for the open model (or the Shape panel's shape) and the fields' devices,
    // batches, seqs and training flag; false (reason shown) on bad input.
    bool check();
    // Moves the explorer to the cell's backend, device and planned shape.
    bool openCell(int row, int column);

    const std::optional<BackendMatrix>& matrix() const { return m_matrix; }
    QTableWidget* table() const { return m_table; }
    QLineEdit* devicesEdit() const { return m_devices; }
    QLineEdit* batchesEdit() const { return m_batches; }
    QCheckBox* trainBox() const { return m_train; }
    QLabel* summaryLabel() const { return m_summary; }

signals:
    void backendOpened();

private:
    void draw();
    bool fail(const QString& message);  // clears the matrix and shows the error; false

    ExplorerState* m_state;
    QString m_path;
    QLabel* m_source;
    QLineEdit* m_devices;
    QLineEdit* m_batches;
    QLineEdit* m_seqs;
    QCheckBox* m_train;
    QTableWidget* m_table;
    QLabel* m_summary;
    std::optional<BackendMatrix> m_matrix;
};

}  // namespace tilescope

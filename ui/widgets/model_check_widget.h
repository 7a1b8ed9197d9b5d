// ModelCheckWidget: File > Open Model Config lands here. A config.json or checkpoint folder is
// checked with core checkModel() on the window's current device for the batches and seqs in
// two small editable fields (default 1,8,64 and 1); the verdict table, the summary and the
// fixes follow. Double-clicking a verdict cell opens that layer's shape in the Shape panel.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tilescope {

class ExplorerState;
class ModelCheckModel;

class ModelCheckWidget : public QWidget {
    Q_OBJECT
public:
    explicit ModelCheckWidget(ExplorerState* state, QWidget* parent = nullptr);

    // Loads and checks; false (reason shown in the widget) on an unreadable or invalid config.
    bool open(const QString& path);
    // Checks the open config again (new batches, seqs or device); false when nothing is open or on an error.
    bool recheck();
    // Moves the window to the layer's kernel, variant, the check's device and the cell's shape.
    bool openCell(const QModelIndex& index);

    ModelCheckModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLineEdit* batchesEdit() const { return m_batches; }
    QLineEdit* seqsEdit() const { return m_seqs; }
    QLabel* summaryLabel() const { return m_summary; }
    QString path() const { return m_path; }

signals:
    void shapeOpened();

private:
    void showError(const QString& message);

    ExplorerState* m_state;
    QString m_path;
    QLabel* m_source;
    QLineEdit* m_batches;
    QLineEdit* m_seqs;
    QPushButton* m_check;
    QTableView* m_view;
    ModelCheckModel* m_model;
    QLabel* m_summary;
};

}  // namespace tilescope

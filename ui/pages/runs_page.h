// RunsPage: the open trace's runs and kernel records in a sortable, filterable table. Selecting
// a run moves the shape panel (and so every page) to its kernel, device and shape.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tilescope {

class ExplorerState;
class RunModel;
class RunFilterModel;
class TraceDocument;

class RunsPage : public QWidget {
    Q_OBJECT
public:
    RunsPage(ExplorerState* state, TraceDocument* document, QWidget* parent = nullptr);

    RunModel* model() const { return m_model; }
    RunFilterModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    void setFilterText(const QString& text);
    void setFlaggedOnly(bool on);
    // Selects the proxy row (a click); false when out of range. Selecting changes nothing else.
    bool selectRow(int proxyRow);
    // Moves the Shape panel to the selected run's kernel, variant, device and shape, as double-click,
    // Enter and the "Use this run's shape" button do (one Edit > Undo step); false when no run is selected.
    bool applySelectedRun();

private:
    void refresh();
    bool applyRow(int sourceRow);

    ExplorerState* m_state;
    TraceDocument* m_document;
    RunModel* m_model;
    RunFilterModel* m_proxy;
    QLineEdit* m_filter;
    QCheckBox* m_flaggedOnly;
    QLabel* m_summary;
    QTableView* m_table;
    QPushButton* m_useRun;
};

}  // namespace tilescope

// RunsPage: the open trace's runs and kernel records in a sortable, filterable table. Selecting
// a run moves the shape panel (and so every page) to its kernel, device and shape.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
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
    // Selects the proxy row and applies it as a click would; false when out of range.
    bool selectRow(int proxyRow);

private:
    void refresh();
    void applyRow(int sourceRow);

    ExplorerState* m_state;
    TraceDocument* m_document;
    RunModel* m_model;
    RunFilterModel* m_proxy;
    QLineEdit* m_filter;
    QCheckBox* m_flaggedOnly;
    QLabel* m_summary;
    QTableView* m_table;
};

}  // namespace tilescope

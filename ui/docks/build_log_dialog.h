// BuildLogDialog (File > Open Build Log…): the kernels of a ptxas report, an Nsight Compute CSV or a
// profiler trace, one row each; the chosen one opens in the explorer as a launch of the family that
// takes a launch's own figures (KernelRegistry::launchFiguresFamily).
#pragma once

#include <QDialog>
#include <QString>

#include "core/diagnosis/launch_report.h"

class QLabel;
class QTableWidget;

namespace tilescope {

class BuildLogDialog : public QDialog {
    Q_OBJECT
public:
    BuildLogDialog(const QString& path, QWidget* parent = nullptr);

    bool loaded() const { return m_error.isEmpty(); }
    const QString& error() const { return m_error; }  // why the file could not be read
    int rowCount() const;
    void selectRow(int row);
    // The chosen kernel as that family's parameters ("grid_x=64,...,smem_optin=1"); empty when none is chosen
    // or its registers are unknown.
    QString chosenShapeText() const;
    QString chosenName() const;
    QTableWidget* table() const { return m_table; }

private:
    LaunchReport m_report;
    QString m_error;
    QTableWidget* m_table = nullptr;
    QLabel* m_summary = nullptr;
};

}  // namespace tilescope

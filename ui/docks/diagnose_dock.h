// DiagnoseDock: from the error to the boundary. A pasted (or opened) log goes through core
// diagnoseText(); each finding is a row — kind, kernel, the matched message, line, shape,
// device, fix — with a button that moves the window to the finding's kernel, variant, device
// and shape and shows its sweep on the Boundaries page. A second tab holds the model check
// (File > Open Model Config).
#pragma once

#include <QAbstractTableModel>
#include <QDockWidget>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "core/diagnosis/diagnosis.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QTimer;

namespace tilescope {

class BoundaryPage;
class ExplorerState;
class ModelCheckWidget;

// The findings of one Diagnosis as a table; a row's "consequence of" names the causing row.
class DiagnosisModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The map button comes early so that a wide message never pushes it out of sight.
    enum Column { Number, Map, Kind, Kernel, Message, Line, ShapeColumn, Device, Fix, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setDiagnosis(Diagnosis diagnosis);
    const Diagnosis& diagnosis() const { return m_diagnosis; }
    const DiagnosisFinding* finding(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString shapeText(const std::vector<DiagnosisValue>& values);  // "M=32768 N=5376": a finding's or a layer's
    static QString deviceText(const DiagnosisFinding& finding);           // "rtx-4090 (NVIDIA GeForce RTX 4090)", or why unknown
    static bool hasBoundaryMap(const DiagnosisFinding& finding) { return !finding.family.empty() && !finding.sweepAxis.empty(); }

private:
    Diagnosis m_diagnosis;
};

class DiagnoseDock : public QDockWidget {
    Q_OBJECT
public:
    DiagnoseDock(ExplorerState* state, BoundaryPage* boundary, QWidget* parent = nullptr);
    ~DiagnoseDock() override;

    // A text up to this size is diagnosed at once (milliseconds); a longer one on a worker thread,
    // with progress and a Cancel button, while the window stays responsive.
    static constexpr qsizetype kBackgroundBytes = 1 << 20;
    // A log pasted or opened over this size is kept whole by the dock and diagnosed whole; the text
    // box shows its first kPreviewBytes (a text box holding 50 MB takes seconds per edit and paint).
    static constexpr qsizetype kPreviewBytes = 1 << 19;

    QPlainTextEdit* input() const { return m_input; }
    DiagnosisModel* model() const { return m_model; }
    QTableView* findingsView() const { return m_view; }
    QLabel* statusLabel() const { return m_status; }
    ModelCheckWidget* modelCheck() const { return m_modelCheck; }
    QTabWidget* tabs() const { return m_tabs; }

    // Runs the diagnosis on the text box now (the debounce timer calls this too); a run still in
    // the background is cancelled first, so only the newest text's findings are shown.
    void diagnose();
    // Whether a diagnosis runs in the background; cancel() stops it (the findings on screen stay).
    bool busy() const { return m_run != nullptr; }
    void cancel();
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* cancelButton() const { return m_cancel; }
    // Reads a log file into the text box and diagnoses it; false (message in the dock) on a read error.
    bool openLog(const QString& fileName);
    // Moves the window to finding `row`'s kernel, variant, device and shape, sets the Boundaries
    // page's axis to the finding's sweep and asks for that page. False, with the reason in the
    // dock, when the finding names no kernel or its sweep does not parse.
    bool openBoundaryMap(int row);
    // Checks a config.json or checkpoint folder on the current device (the Model tab).
    bool openModelConfig(const QString& path);

signals:
    void pageRequested(const QString& name);  // "boundaries"
    void diagnosisFinished();                 // a diagnosis' findings (or its error) are on screen

private:
    // One background diagnosis: what the worker thread and the window share.
    struct Run {
        std::atomic<bool> cancel{false};
        std::atomic<int> permille{0};  // lines read, in thousandths
    };

    void chooseLog();
    void diagnoseText(const QString& text);
    void diagnoseBytes(const QByteArray& utf8);
    void showLargeLog(const QByteArray& utf8);  // keeps it in m_largeLog, shows its head, diagnoses it
    void showResult(Result<Diagnosis> diagnosis);
    void finishRun();
    void showDetails();
    void addMapButtons();

    ExplorerState* m_state;
    int m_detailsRuntime = 0;  // the panel's CUDA runtime when the details were last written
    BoundaryPage* m_boundary;
    QTabWidget* m_tabs;
    QPlainTextEdit* m_input;
    QLabel* m_status;
    QTableView* m_view;
    QTextBrowser* m_details;
    DiagnosisModel* m_model;
    QTimer* m_debounce;
    ModelCheckWidget* m_modelCheck;
    QString m_lastText;             // the text of the diagnosis on screen, so an unchanged paste is not rerun
    QByteArray m_largeLog;          // a log over kPreviewBytes, UTF-8; empty when the box holds the whole text
    bool m_showingPreview = false;  // the box is being filled with m_largeLog's head: not an edit
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QTimer* m_progressTimer;  // reads the running diagnosis' progress into the bar
    std::shared_ptr<Run> m_run;
    QFutureWatcher<Result<Diagnosis>>* m_watcher = nullptr;  // the background run's; null when none
};

}  // namespace tilescope

#include "ui/docks/diagnose_dock.h"

#include <functional>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "core/diagnosis/diagnosis_text.h"
#include "core/series/launch_usage.h"
#include "core/model/sweep.h"
#include "core/model/text_format.h"
#include "ui/pages/boundary_page.h"
#include "ui/window/explorer_state.h"
#include "ui/widgets/model_check_widget.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// Long enough that typing a line does not rerun the diagnosis per key, short enough to feel live.
constexpr int kDebounceMs = 350;
constexpr int kProgressMs = 100;  // how often the bar shows a background run's progress

// The log box: a paste over DiagnoseDock::kPreviewBytes goes to the dock whole instead of into
// the box (QPlainTextEdit lays out and repaints all of it on every edit).
class LogInput : public QPlainTextEdit {
public:
    std::function<void(const QByteArray&)> largePaste;

protected:
    void insertFromMimeData(const QMimeData* source) override {
        if (largePaste && source->hasText()) {
            const QString text = source->text();
            if (text.size() > DiagnoseDock::kPreviewBytes) {
                largePaste(text.toUtf8());
                return;
            }
        }
        QPlainTextEdit::insertFromMimeData(source);
    }
};

QString kernelText(const DiagnosisFinding& f) {
    if (f.family.empty()) return QObject::tr("unknown");
    return toQString(f.family) + QLatin1Char('/') + (f.variant.empty() ? QObject::tr("variant unknown") : toQString(f.variant));
}

}  // namespace

// ---- DiagnosisModel ----------------------------------------------------------------------

void DiagnosisModel::setDiagnosis(Diagnosis diagnosis) {
    beginResetModel();
    m_diagnosis = std::move(diagnosis);
    endResetModel();
}

const DiagnosisFinding* DiagnosisModel::finding(int row) const {
    if (row < 0 || row >= static_cast<int>(m_diagnosis.findings.size())) return nullptr;
    return &m_diagnosis.findings[static_cast<std::size_t>(row)];
}

int DiagnosisModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_diagnosis.findings.size());
}

int DiagnosisModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString DiagnosisModel::shapeText(const std::vector<DiagnosisValue>& values) {
    QStringList parts;
    for (const auto& v : values) parts << toQString(v.name) + QLatin1Char('=') + QString::number(v.value);
    return parts.join(QLatin1Char(' '));
}

QString DiagnosisModel::deviceText(const DiagnosisFinding& f) {
    if (!f.deviceId.empty())
        return QString::fromStdString(f.deviceId) + QStringLiteral(" (") + toQString(f.deviceText.empty() ? f.arch : f.deviceText) +
               QLatin1Char(')');
    // Several GPUs fit the name the log gives ("Pascal class", "RTX 3090, RTX 4090"): as the CLI shows it.
    if (!f.deviceText.empty()) return toQString(f.deviceText) + tr(" (more than one GPU in the database)");
    // A limit or arch the log prints can name the GPUs without the log naming one (the CLI's "implies").
    if (!f.impliedDevices.empty()) return tr("implies %1").arg(QString::fromStdString(joinList(f.impliedDevices)));
    if (!f.arch.empty()) return toQString(f.arch) + tr(" (more than one GPU in the database)");
    return tr("not named in the log");
}

QVariant DiagnosisModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const DiagnosisFinding& f = *finding(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Number:
                return f.consequenceOf ? tr("%1 ← %2").arg(index.row() + 1).arg(*f.consequenceOf + 1) : QString::number(index.row() + 1);
            case Kind: return toQString(verdictName(f.kind));
            case Kernel: return kernelText(f);
            case Message: return toQString(f.message);
            case Line: return f.line;
            case ShapeColumn: return shapeText(f.shape);
            case Device: return deviceText(f);
            case Fix: return f.consequenceOf ? tr("consequence of finding %1: fix that one").arg(*f.consequenceOf + 1) : toQString(f.fix);
            case Map: return hasBoundaryMap(f) ? QString() : tr("no kernel named");
            default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case Number:
                return f.consequenceOf ? tr("A consequence of finding %1 (%2)")
                                             .arg(*f.consequenceOf + 1)
                                             .arg(toQString(m_diagnosis.findings[static_cast<std::size_t>(*f.consequenceOf)].title))
                                       : toQString(f.title);
            case Message: return toQString(f.message);
            case Device: return f.impliedDevices.empty() ? QVariant() : QVariant(toQString(f.impliedBy));
            case Fix: return toQString(f.fix);
            case Map:
                return hasBoundaryMap(f) ? tr("Open the boundary map along %1").arg(toQString(f.sweepAxis))
                                         : tr("The log names no bundled kernel, so there is no map to open");
            default: return {};
        }
    }
    if (role == Qt::BackgroundRole && index.column() == Kind) return QBrush(toQColor(verdictColour(f.kind)).lighter(150));
    if (role == Qt::ForegroundRole && index.column() == Kind) return QBrush(Qt::black);
    if (role == Qt::ForegroundRole && f.consequenceOf && index.column() != Kind) return QBrush(Qt::gray);
    return {};
}

QVariant DiagnosisModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    switch (section) {
        case Number: return tr("#");
        case Kind: return tr("kind");
        case Kernel: return tr("kernel");
        case Message: return tr("message");
        case Line: return tr("line");
        case ShapeColumn: return tr("shape");
        case Device: return tr("device");
        case Fix: return tr("fix");
        case Map: return tr("boundary map");
        default: return {};
    }
}

// ---- DiagnoseDock ------------------------------------------------------------------------

DiagnoseDock::DiagnoseDock(ExplorerState* state, BoundaryPage* boundary, QWidget* parent)
    : QDockWidget(tr("Diagnose"), parent),
      m_state(state),
      m_boundary(boundary),
      m_tabs(new QTabWidget),
      m_input(new LogInput),
      m_status(new QLabel),
      m_view(new QTableView),
      m_details(new QTextBrowser),
      m_model(new DiagnosisModel(this)),
      m_debounce(new QTimer(this)),
      m_modelCheck(new ModelCheckWidget(state)),
      m_progress(new QProgressBar),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_progressTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("diagnoseDock"));
    m_input->setObjectName(QStringLiteral("diagnoseInput"));
    m_input->setPlaceholderText(
        tr("Paste a log or traceback here (or Open Log…): known kernel-failure signatures are found as you paste."));
    m_input->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_status->setObjectName(QStringLiteral("diagnoseStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view->setObjectName(QStringLiteral("diagnoseFindings"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->setVisible(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_details->setObjectName(QStringLiteral("diagnoseDetails"));
    m_details->setOpenLinks(false);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);

    auto* openLogButton = new QPushButton(tr("Open &Log…"));
    openLogButton->setObjectName(QStringLiteral("diagnoseOpenLog"));
    auto* diagnoseButton = new QPushButton(tr("&Diagnose"));
    diagnoseButton->setObjectName(QStringLiteral("diagnoseButton"));
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(diagnoseButton);
    buttons->addWidget(openLogButton);
    buttons->addStretch(1);
    auto* inputRow = new QHBoxLayout;
    inputRow->addWidget(m_input, 1);
    inputRow->addLayout(buttons);
    auto* inputPane = new QWidget;
    auto* inputLayout = new QVBoxLayout(inputPane);
    inputLayout->setContentsMargins(0, 0, 0, 0);
    inputLayout->addLayout(inputRow, 1);
    inputLayout->addWidget(m_status);
    // A long log is read in the background: its progress and a way to stop it.
    m_progress->setObjectName(QStringLiteral("diagnoseProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setFormat(tr("Diagnosing… %p%"));
    m_cancel->setObjectName(QStringLiteral("diagnoseCancel"));
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_cancel);
    inputLayout->addLayout(progressRow);
    m_progress->hide();
    m_cancel->hide();
    m_progressTimer->setInterval(kProgressMs);

    auto* results = new QSplitter(Qt::Vertical);
    results->addWidget(m_view);
    results->addWidget(m_details);
    // As much room for the selected finding's details (why, limit, fix, the runtime line) as for the
    // table: at three to one a full HD window showed three lines of details under a mostly empty table.
    results->setStretchFactor(0, 1);
    results->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(inputPane);
    split->addWidget(results);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 5);

    m_tabs->setObjectName(QStringLiteral("diagnoseTabs"));
    m_tabs->addTab(split, tr("Log"));
    m_tabs->addTab(m_modelCheck, tr("Model"));
    setWidget(m_tabs);

    connect(diagnoseButton, &QPushButton::clicked, this, &DiagnoseDock::diagnose);
    connect(openLogButton, &QPushButton::clicked, this, &DiagnoseDock::chooseLog);
    static_cast<LogInput*>(m_input)->largePaste = [this](const QByteArray& utf8) { showLargeLog(utf8); };
    connect(m_input, &QPlainTextEdit::textChanged, this, [this] {
        if (m_showingPreview) return;
        m_largeLog.clear();  // an edit: the box's text is the log now
        m_debounce->start();
    });
    connect(m_debounce, &QTimer::timeout, this, [this] {
        // One copy of the text per pause in typing: a 50 MB paste is not copied again to compare.
        const QString text = m_input->toPlainText();
        if (text == m_lastText) return;
        if (text.trimmed().isEmpty()) {
            cancel();
            m_lastText.clear();
            m_model->setDiagnosis({});
            m_status->clear();
            m_details->clear();
            return;
        }
        diagnoseText(text);
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        cancel();
        m_status->setText(tr("Diagnosis cancelled; the findings shown are of the previous text."));
        m_lastText.clear();  // the text is not diagnosed: the next edit or Diagnose click runs it
    });
    connect(m_progressTimer, &QTimer::timeout, this, [this] {
        if (m_run) m_progress->setValue(m_run->permille.load(std::memory_order_relaxed));
    });
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { openBoundaryMap(index.row()); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DiagnoseDock::showDetails);
    connect(m_model, &QAbstractItemModel::modelReset, this, &DiagnoseDock::addMapButtons);
    // The details' runtime line compares the log's runtime with the panel's: a new runtime rewrites it.
    connect(m_state, &ExplorerState::changed, this, [this] {
        if (m_state->cudaRuntime() == m_detailsRuntime) return;
        m_detailsRuntime = m_state->cudaRuntime();
        showDetails();
    });
    connect(m_modelCheck, &ModelCheckWidget::shapeOpened, this, [this] { emit pageRequested(QStringLiteral("launch")); });
}

DiagnoseDock::~DiagnoseDock() {
    // The worker reads the registry and the database: stop it before they may go.
    if (m_run) m_run->cancel = true;
    if (m_watcher) m_watcher->waitForFinished();
}

void DiagnoseDock::diagnose() {
    if (!m_largeLog.isEmpty()) diagnoseBytes(m_largeLog);
    else diagnoseText(m_input->toPlainText());
}

void DiagnoseDock::showLargeLog(const QByteArray& utf8) {
    m_largeLog = utf8;
    m_lastText.clear();
    qsizetype head = utf8.lastIndexOf('\n', kPreviewBytes);
    if (head <= 0) head = kPreviewBytes;
    m_showingPreview = true;
    m_input->setPlainText(QString::fromUtf8(utf8.left(head)) +
                          tr("\n[… the box shows the first %1 MB of this %2 MB log; the whole log is diagnosed. An edit here diagnoses "
                             "the box's text instead.]")
                              .arg(static_cast<double>(head) / 1e6, 0, 'f', 1)
                              .arg(static_cast<double>(utf8.size()) / 1e6, 0, 'f', 1));
    m_showingPreview = false;
    diagnoseBytes(m_largeLog);
}

void DiagnoseDock::cancel() {
    if (!m_run) return;
    m_run->cancel = true;
    finishRun();
}

void DiagnoseDock::finishRun() {
    // The worker stops at its next look at the flag (every few thousand lines); its result is dropped.
    if (m_watcher) {
        m_watcher->disconnect(this);
        connect(m_watcher, &QFutureWatcherBase::finished, m_watcher, &QObject::deleteLater);
        if (m_watcher->isFinished()) m_watcher->deleteLater();
        m_watcher = nullptr;
    }
    m_run.reset();
    m_progressTimer->stop();
    m_progress->hide();
    m_cancel->hide();
}

void DiagnoseDock::diagnoseText(const QString& text) {
    m_lastText = text;
    diagnoseBytes(text.toUtf8());
}

void DiagnoseDock::diagnoseBytes(const QByteArray& utf8) {
    m_debounce->stop();
    cancel();  // a new paste replaces the run of the old one
    const KernelRegistry& registry = m_state->registry();
    const DeviceDatabase& database = m_state->database();
    if (utf8.size() <= kBackgroundBytes) {
        showResult(tilescope::diagnoseText(std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())), registry, database));
        return;
    }
    auto run = std::make_shared<Run>();
    m_run = run;
    m_watcher = new QFutureWatcher<Result<Diagnosis>>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, [this, watcher = m_watcher] {
        if (watcher != m_watcher) return;
        Result<Diagnosis> result = watcher->future().takeResult();
        finishRun();
        showResult(std::move(result));
    });
    m_watcher->setFuture(QtConcurrent::run([run, utf8, &registry, &database]() -> Result<Diagnosis> {
        DiagnosisOptions options;
        options.cancel = &run->cancel;
        options.progress = [run](double share) { run->permille.store(static_cast<int>(share * 1000), std::memory_order_relaxed); };
        return tilescope::diagnoseText(std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())), registry, database,
                                       options);
    }));
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_progressTimer->start();
    m_status->setText(tr("Diagnosing %1 MB in the background…").arg(static_cast<double>(utf8.size()) / 1e6, 0, 'f', 1));
}

void DiagnoseDock::showResult(Result<Diagnosis> diagnosis) {
    if (!diagnosis) {
        m_model->setDiagnosis({});
        m_details->clear();
        m_status->setText(tr("<b>Error:</b> %1").arg(toQString(diagnosis.error()).toHtmlEscaped()));
        emit diagnosisFinished();
        return;
    }
    const int lines = diagnosis->lineCount;
    const auto count = diagnosis->findings.size();
    m_model->setDiagnosis(std::move(*diagnosis));
    if (count == 0) {
        m_details->clear();
        m_status->setText(tr("No known signature in %1 %2. Known: %3.")
                              .arg(lines)
                              .arg(lines == 1 ? tr("line") : tr("lines"), toQString(knownSignaturesText(m_state->registry()))));
        emit diagnosisFinished();
        return;
    }
    const QString where = lines == 1 ? tr("1 line") : tr("%1 lines").arg(lines);
    m_status->setText((count == 1 ? tr("1 finding in %1") : tr("%1 findings in %2").arg(count)).arg(where) +
                      (count > 1 ? tr("; the first is the cause, CUDA errors after it are its consequences.") : QStringLiteral(".")) +
                      tr(" Double-click a finding (or its button) to open its boundary map."));
    m_view->selectRow(0);
    emit diagnosisFinished();
}

bool DiagnoseDock::openLog(const QString& fileName) {
    QFile file(fileName);
    m_tabs->setCurrentIndex(0);
    show();
    raise();
    if (!file.open(QIODevice::ReadOnly)) {
        m_status->setText(tr("<b>Error:</b> %1: %2").arg(fileName.toHtmlEscaped(), file.errorString().toHtmlEscaped()));
        return false;
    }
    const QByteArray bytes = file.readAll();
    // Checked as bytes first: a binary file would not survive the trip through the text box. One
    // pass over the bytes; the diagnosis itself runs after (in the background when long).
    auto check = LogText::check(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (!check) {
        m_model->setDiagnosis({});
        m_details->clear();
        m_status->setText(
            tr("<b>Error:</b> %1: %2").arg(QFileInfo(fileName).fileName().toHtmlEscaped(), toQString(check.error()).toHtmlEscaped()));
        return false;
    }
    setWindowTitle(tr("Diagnose — %1").arg(QFileInfo(fileName).fileName()));
    if (bytes.size() > kPreviewBytes) {
        showLargeLog(bytes);
        return true;
    }
    m_input->setPlainText(QString::fromUtf8(bytes));
    diagnose();
    return true;
}

void DiagnoseDock::chooseLog() {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open log"), {}, tr("Logs (*.log *.txt *.out *.err);;All files (*)"));
    if (!file.isEmpty()) openLog(file);
}

bool DiagnoseDock::openModelConfig(const QString& path) {
    m_tabs->setCurrentWidget(m_modelCheck);
    show();
    raise();
    return m_modelCheck->open(path);
}

void DiagnoseDock::addMapButtons() {
    // The view only schedules the old rows' buttons for deletion on a reset: delete them now so
    // that each row's name belongs to one live button.
    for (QPushButton* old : m_view->findChildren<QPushButton*>())
        if (old->objectName().startsWith(QLatin1String("openBoundaryMap_"))) delete old;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const DiagnosisFinding* f = m_model->finding(row);
        if (!DiagnosisModel::hasBoundaryMap(*f)) continue;
        auto* button = new QPushButton(tr("Boundary map"));
        button->setObjectName(QStringLiteral("openBoundaryMap_%1").arg(row));
        button->setToolTip(m_model->data(m_model->index(row, DiagnosisModel::Map), Qt::ToolTipRole).toString());
        connect(button, &QPushButton::clicked, this, [this, row] { openBoundaryMap(row); });
        m_view->setIndexWidget(m_model->index(row, DiagnosisModel::Map), button);
    }
    m_view->resizeColumnsToContents();
    // The message and fix can be a paragraph: keep them readable without pushing the button off-screen.
    constexpr int kTextColumnWidth = 360;
    for (int column : {DiagnosisModel::Message, DiagnosisModel::Fix})
        m_view->setColumnWidth(column, std::min(m_view->columnWidth(column), kTextColumnWidth));
}

void DiagnoseDock::showDetails() {
    m_detailsRuntime = m_state->cudaRuntime();
    const DiagnosisFinding* f = m_model->finding(m_view->currentIndex().row());
    if (!f) {
        m_details->clear();
        return;
    }
    QString html = QStringLiteral("<b>%1</b>").arg(toQString(f->title).toHtmlEscaped());
    auto row = [&html](const QString& name, const std::string& value) {
        if (!value.empty()) html += QStringLiteral("<br><b>%1:</b> %2").arg(name, toQString(value).toHtmlEscaped());
    };
    if (f->consequenceOf) html += tr(" — a consequence of finding %1").arg(*f->consequenceOf + 1);
    if (!f->failingKernel.empty())
        row(tr("named in log"), f->failingKernel + " (" + f->failingKernelHow + ", line " + std::to_string(f->failingKernelLine) + ")");
    // The banner plans the Shape panel's runtime; a log from the other one words the same rejection
    // differently ("invalid configuration argument" beside the banner's "invalid argument"): said here,
    // where the two meet, instead of leaving the reader to wonder which is right (issue 31 item 3).
    if (const int logRuntime = cudaRuntimeOfLaunchError(f->message); logRuntime > 0 && logRuntime != m_state->cudaRuntime())
        html += tr("<br><b>runtime:</b> CUDA %1, by the log's wording; the Shape panel plans CUDA %2, whose text the banner "
                   "quotes for the same limit. Boundary map sets the panel to CUDA %1.")
                    .arg(logRuntime)
                    .arg(m_state->cudaRuntime());
    if (f->lines.size() > 1) {
        html += tr("<br><b>seen on lines:</b> %1").arg(toQString(occurrencesText(f->lines)));
    }
    // Where each value came from: a line of the log, or the model's config.
    for (const auto& v : f->shape)
        html += QStringLiteral("<br>&nbsp;&nbsp;<b>%1=%2</b> %3")
                    .arg(toQString(v.name), QString::number(v.value),
                         (v.line > 0 ? tr("line %1: ").arg(v.line) : QString()) + toQString(v.source).toHtmlEscaped());
    if (!f->candidates.empty()) {
        html += tr("<br><b>readings:</b>");
        for (const auto& c : f->candidates)
            html +=
                QStringLiteral("<br>&nbsp;&nbsp;%1 %2=%3 — line %4: %5 (%6)")
                    .arg(c.chosen ? QStringLiteral("&#9654;") : QStringLiteral("&nbsp;&nbsp;"), toQString(c.name), QString::number(c.value),
                         QString::number(c.line), toQString(c.source).toHtmlEscaped(), toQString(c.reading).toHtmlEscaped());
    }
    row(tr("missing"), f->unknown);
    if (!f->model.empty()) row(tr("model"), f->model + " (" + f->modelSource + ")");
    if (!f->impliedDevices.empty()) row(tr("implies"), joinList(f->impliedDevices) + " (" + f->impliedBy + ")");
    for (const auto& l : f->layers)
        html += QStringLiteral("<br>&nbsp;&nbsp;%1: %2 — %3")
                    .arg(toQString(l.name).toHtmlEscaped(), DiagnosisModel::shapeText(l.shape), toQString(verdictName(l.verdict)));
    if (!f->familyRanking.empty()) {
        html += tr("<br><b>could be, likeliest first:</b>");
        for (const auto& r : f->familyRanking) html += QStringLiteral("<br>&nbsp;&nbsp;") + toQString(r).toHtmlEscaped();
    }
    if (f->boundary)
        html += tr("<br><b>boundary:</b> %1 = %2 (the map crosses it)")
                    .arg(toQString(f->sweepAxis.substr(0, f->sweepAxis.find('='))), groupedNumber(static_cast<double>(*f->boundary)));
    row(tr("why"), f->explanation);
    if (f->limit) html += tr("<br><b>limit:</b> %1").arg(QString::fromStdString(describeLimit(*f->limit)).toHtmlEscaped());
    if (f->plan) row(tr("planner"), std::string(verdictName(f->plan->verdict)) + (f->plan->message.empty() ? "" : ": " + f->plan->message));
    row(tr("planned"), f->planNote);
    row(tr("fix"), f->fix);
    row(tr("run"), f->command);
    if (f->sweepCommand != f->command) row(tr("sweep"), f->sweepCommand);
    m_details->setHtml(html);
}

bool DiagnoseDock::openBoundaryMap(int row) {
    const DiagnosisFinding* f = m_model->finding(row);
    if (!f) return false;
    if (!DiagnosisModel::hasBoundaryMap(*f)) {
        m_status->setText(tr("Finding %1 names no bundled kernel, so there is no boundary map to open.").arg(row + 1));
        return false;
    }
    // Copies: moving the window re-plans, and a caller may replace the diagnosis meanwhile.
    const DiagnosisFinding finding = *f;
    if (!m_state->setKernel(toQString(finding.family), toQString(finding.variant))) {
        m_status->setText(tr("Unknown kernel %1 / %2.").arg(toQString(finding.family), toQString(finding.variant)));
        return false;
    }
    // A log that names no device leaves the window's device as it is.
    if (!finding.sweepDevice.empty() && !m_state->setDevice(QString::fromStdString(finding.sweepDevice))) {
        m_status->setText(tr("Unknown device %1.").arg(QString::fromStdString(finding.sweepDevice)));
        return false;
    }
    // The log's own launch error names its CUDA runtime ("invalid configuration argument" is 12's, "invalid
    // argument" 13's): the banner then says what the log says (issue 31 item 3).
    if (const int runtime = cudaRuntimeOfLaunchError(finding.message); runtime > 0) m_state->setCudaRuntime(runtime);
    auto shape = parseShape(finding.sweepShape, m_state->parameters());  // "" gives the family's defaults
    auto axis = parseSweepAxis(finding.sweepAxis, m_state->parameters());
    if (!shape || !axis || !m_state->setShape(*shape)) {
        m_status->setText(tr("The finding's sweep does not fit the planner: %1")
                              .arg(toQString(!shape  ? shape.error()
                                             : !axis ? axis.error()
                                                     : std::string("shape out of range"))));
        return false;
    }
    // The finding's sweep is one axis (as `tilescope-cli sweep` runs it): a 1-D map along it.
    m_boundary->setAxis(false, *axis);
    m_boundary->clearYAxis();
    emit pageRequested(QStringLiteral("boundaries"));
    return true;
}

}  // namespace tilescope

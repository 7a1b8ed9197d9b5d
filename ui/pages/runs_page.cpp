#include "ui/pages/runs_page.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/window/explorer_state.h"
#include "ui/window/qt_text.h"
#include "ui/models/run_filter_model.h"
#include "ui/models/run_model.h"
#include "ui/window/trace_document.h"

namespace tilescope {

namespace {
constexpr int kKernelColumnChars = 42;
constexpr int kProblemColumnChars = 24;
}  // namespace

RunsPage::RunsPage(ExplorerState* state, TraceDocument* document, QWidget* parent)
    : QWidget(parent),
      m_state(state),
      m_document(document),
      m_model(new RunModel(this)),
      m_proxy(new RunFilterModel(this)),
      m_filter(new QLineEdit),
      m_flaggedOnly(new QCheckBox(tr("Only &flagged rows"))),
      m_summary(new QLabel),
      m_table(new QTableView),
      m_useRun(new QPushButton(tr("&Use this run's shape"))) {
    setObjectName(QStringLiteral("runsPage"));
    m_proxy->setSourceModel(m_model);
    m_filter->setPlaceholderText(tr("Filter: kernel, shape, device, verdict…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName(QStringLiteral("runsFilter"));
    m_flaggedOnly->setToolTip(tr("Runs that fail, and recorded launches that break a limit or whose profiler occupancy is wrong"));
    m_table->setObjectName(QStringLiteral("runsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // file order until the user sorts
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Why a row is flagged matters more than its figures: the problem column follows the verdict.
    QHeaderView* header = m_table->horizontalHeader();
    header->moveSection(header->visualIndex(RunModel::Problem), header->visualIndex(RunModel::Verdict) + 1);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_flaggedOnly);
    bar->addWidget(m_useRun);
    m_useRun->setObjectName(QStringLiteral("useRunButton"));
    m_useRun->setToolTip(
        tr("Set the Shape panel to the selected run's kernel, device and shape (also: double-click or Enter; "
           "Edit > Undo goes back)"));
    m_useRun->setEnabled(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    // Wraps rather than widening the window: a long trace name pushed it past 1,024 px (issue #15 item 12).
    m_summary->setWordWrap(true);
    m_summary->setMinimumWidth(0);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_flaggedOnly, &QCheckBox::toggled, m_proxy, &RunFilterModel::setFlaggedOnly);
    // A click only selects: replacing the user's shape takes a deliberate act (issue #15 item 10).
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        m_useRun->setEnabled(current.isValid() && m_model->runAt(m_proxy->mapToSource(current).row()) >= 0);
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        if (index.isValid()) applyRow(m_proxy->mapToSource(index).row());
    });
    connect(m_useRun, &QPushButton::clicked, this, &RunsPage::applySelectedRun);
    connect(m_document, &TraceDocument::traceChanged, this, &RunsPage::refresh);
    // A newly opened trace starts at its first row and column, not where the last one was left.
    connect(m_document, &TraceDocument::opened, this, [this] {
        // ... unfiltered too: "Only flagged rows" kept from the last trace opened the MI250 sample empty (issue 31 item 13).
        m_flaggedOnly->setChecked(false);
        m_table->horizontalScrollBar()->setValue(0);
        m_table->scrollToTop();
    });
    refresh();
}

void RunsPage::setFilterText(const QString& text) { m_filter->setText(text); }
void RunsPage::setFlaggedOnly(bool on) { m_flaggedOnly->setChecked(on); }

bool RunsPage::selectRow(int proxyRow) {
    if (proxyRow < 0 || proxyRow >= m_proxy->rowCount()) return false;
    m_table->selectionModel()->setCurrentIndex(m_proxy->index(proxyRow, 0),
                                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    return true;
}

void RunsPage::refresh() {
    const Trace& trace = m_document->trace();
    m_model->setTrace(&trace);
    m_table->resizeColumnsToContents();
    // A kernel name can be hundreds of characters long; the tooltip has it whole.
    const int widest = fontMetrics().horizontalAdvance(QLatin1Char('x')) * kKernelColumnChars;
    if (m_table->columnWidth(RunModel::Kernel) > widest) m_table->setColumnWidth(RunModel::Kernel, widest);
    // So is a problem's sentence: whole, it pushed grid, block, shared memory and the rest off-screen at
    // 1,024 px (issue 31 item 13); the row's tooltip and the summary say it whole.
    const int problemWidest = fontMetrics().horizontalAdvance(QLatin1Char('x')) * kProblemColumnChars;
    if (m_table->columnWidth(RunModel::Problem) > problemWidest) m_table->setColumnWidth(RunModel::Problem, problemWidest);
    // A profiler trace has records only: no variant or shape to show, and the problem column needs the room.
    m_table->setColumnHidden(RunModel::Variant, trace.runs.empty());
    m_table->setColumnHidden(RunModel::Shape, trace.runs.empty());
    m_summary->setText(m_document->isEmpty() ? tr("No trace open: File > Open Trace, Open Example, or Import PyTorch Profiler Trace.")
                                             : tr("%1: %2 runs, %3 kernel records, %4 flagged (tinted rows; hover for why)")
                                                   .arg(QString::fromStdString(trace.source.empty() ? std::string("trace") : trace.source))
                                                   .arg(trace.runs.size())
                                                   .arg(trace.records.size())
                                                   .arg(m_model->flaggedCount()));
}

bool RunsPage::applySelectedRun() {
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() && applyRow(m_proxy->mapToSource(current).row());
}

bool RunsPage::applyRow(int sourceRow) {
    const int index = m_model->runAt(sourceRow);
    if (index < 0) return false;  // a profiler record has no Tilescope kernel or shape
    const Run& run = m_document->trace().runs[static_cast<std::size_t>(index)];
    return m_state->applyRun(toQString(run.plan.family), toQString(run.plan.variant), QString::fromStdString(run.plan.deviceId),
                             run.plan.shape);
}

}  // namespace tilescope

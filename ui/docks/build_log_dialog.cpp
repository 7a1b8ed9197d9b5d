#include "ui/docks/build_log_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/model/text_format.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

QString dimText(const std::optional<Dim3>& d) {
    return d ? QStringLiteral("(%1, %2, %3)").arg(d->x).arg(d->y).arg(d->z) : QObject::tr("not given");
}

QString bytesText(const std::optional<std::int64_t>& bytes) {
    return bytes ? QString::fromStdString(withThousands(*bytes)) : QObject::tr("unknown");
}

// The family a chosen kernel opens as: the one that takes a launch's own figures.
QString launchFamilyName() {
    const KernelFamily* family = builtinKernels().launchFiguresFamily();
    return family ? toQString(family->name()) : QString();
}

}  // namespace

BuildLogDialog::BuildLogDialog(const QString& path, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open Build Log — %1").arg(path));
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_table = new QTableWidget(0, 7, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Kernel"), tr("Registers"), tr("Static smem"), tr("Dynamic smem"), tr("Block"), tr("Grid"), tr("From")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (!chosenShapeText().isEmpty()) accept();
    });
    QPushButton* open = buttons->button(QDialogButtonBox::Open);
    open->setEnabled(false);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this, open] { open->setEnabled(!chosenShapeText().isEmpty()); });

    auto report = readLaunchReportFile(path.toStdString());
    if (!report) {
        m_error = QString::fromStdString(report.error());
        m_summary->setText(m_error);
        return;
    }
    m_report = std::move(*report);
    QString summary = tr("%n kernel(s) from a %1 report. Choose one to open it as a %2 launch; figures the report "
                         "does not give keep the %2 defaults (a ptxas report has no grid or block).",
                         "", static_cast<int>(m_report.launches.size()))
                          .arg(toQString(launchReportKindName(m_report.kind)), launchFamilyName());
    for (const std::string& note : m_report.notes) summary += QLatin1Char('\n') + QString::fromStdString(note);
    m_summary->setText(summary);
    m_table->setRowCount(static_cast<int>(m_report.launches.size()));
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const ReportedLaunch& l = m_report.launches[static_cast<std::size_t>(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(l.displayName));
        name->setToolTip(QString::fromStdString(l.name + (l.toolError.empty() ? std::string() : "\n" + l.toolError)));
        m_table->setItem(row, 0, name);
        m_table->setItem(row, 1, new QTableWidgetItem(l.registers ? QString::number(*l.registers) : tr("unknown")));
        m_table->setItem(row, 2, new QTableWidgetItem(bytesText(l.staticSmem)));
        m_table->setItem(
            row, 3,
            new QTableWidgetItem(l.sharedMemoryTotal ? tr("%1 (total)").arg(bytesText(l.sharedMemoryTotal)) : bytesText(l.dynamicSmem)));
        m_table->setItem(row, 4, new QTableWidgetItem(dimText(l.block)));
        m_table->setItem(row, 5, new QTableWidgetItem(dimText(l.grid)));
        QString from = l.line > 0 ? tr("line %1").arg(l.line) : QString();
        if (!l.arch.empty()) from += (from.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(l.arch);
        if (l.count > 1) from += (from.isEmpty() ? QString() : QStringLiteral(", ")) + tr("%1 launches").arg(l.count);
        m_table->setItem(row, 6, new QTableWidgetItem(from));
    }
    resize(900, 420);
}

int BuildLogDialog::rowCount() const { return m_table->rowCount(); }

void BuildLogDialog::selectRow(int row) { m_table->selectRow(row); }

QString BuildLogDialog::chosenShapeText() const {
    const int row = m_table->currentRow();
    if (row < 0 || row >= static_cast<int>(m_report.launches.size()) || m_table->selectedItems().isEmpty()) return {};
    const KernelFamily* family = builtinKernels().launchFiguresFamily();
    if (!family) return {};
    return QString::fromStdString(launchShapeText(m_report.launches[static_cast<std::size_t>(row)], *family));
}

QString BuildLogDialog::chosenName() const {
    const int row = m_table->currentRow();
    if (row < 0 || row >= static_cast<int>(m_report.launches.size())) return {};
    return QString::fromStdString(m_report.launches[static_cast<std::size_t>(row)].displayName);
}

}  // namespace tilescope

#include "ui/pages/backends_page.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/diagnosis/model_check.h"
#include "core/model/text_format.h"
#include "core/series/boundary_colours.h"
#include "ui/window/explorer_state.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

constexpr int kFirstDeviceColumn = 1;  // column 0 is the backend's role

std::optional<std::vector<std::int64_t>> numbers(const QString& text) {
    std::vector<std::int64_t> out;
    for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong v = item.trimmed().toLongLong(&ok);
        if (!ok || v < 1) return std::nullopt;
        out.push_back(v);
    }
    if (out.empty()) return std::nullopt;
    return out;
}

}  // namespace

BackendsPage::BackendsPage(ExplorerState* state, QWidget* parent)
    : QWidget(parent),
      m_state(state),
      m_source(new QLabel),
      m_devices(new QLineEdit(toQString(kDefaultBackendDevices))),
      m_batches(new QLineEdit(QStringLiteral("1,8,64"))),
      m_seqs(new QLineEdit(QStringLiteral("2048"))),
      m_train(new QCheckBox(tr("&Training (backward rows)"))),
      m_table(new QTableWidget),
      m_summary(new QLabel) {
    setObjectName(QStringLiteral("backendsPage"));
    m_source->setWordWrap(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_devices->setToolTip(tr("Device ids, comma-separated (tilescope-cli devices lists them)"));
    m_devices->setCursorPosition(0);
    m_batches->setToolTip(tr("Batch sizes, comma-separated"));
    m_seqs->setToolTip(tr("Sequence lengths: prefill rows plan seqlen_q = seqlen_k = seq, decode rows one token against seq cached ones"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The matrix scrolls: its columns must not widen the window past the 1,024 px every page fits.
    m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_table->setMinimumWidth(200);

    auto* open = new QPushButton(tr("&Open config…"));
    auto* shape = new QPushButton(tr("Use the &shape"));
    shape->setToolTip(tr("Check the Shape panel's attention shape (heads, head_dim) instead of a model config"));
    auto* run = new QPushButton(tr("&Check"));
    // Two rows, so that the page fits the 1,024-pixel window every page is laid out for.
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(shape);
    buttons->addWidget(m_train);
    buttons->addStretch(1);
    buttons->addWidget(run);
    auto* fields = new QHBoxLayout;
    fields->addWidget(new QLabel(tr("Devices:")));
    fields->addWidget(m_devices, 3);
    fields->addWidget(new QLabel(tr("Batches:")));
    fields->addWidget(m_batches, 1);
    fields->addWidget(new QLabel(tr("Seqs:")));
    fields->addWidget(m_seqs, 1);
    for (QLineEdit* edit : {m_devices, m_batches, m_seqs}) edit->setMinimumWidth(60);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_source);
    layout->addLayout(buttons);
    layout->addLayout(fields);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_summary);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open model config"), {}, tr("Model config (*.json)"));
        if (!path.isEmpty()) openModel(path);
    });
    connect(shape, &QPushButton::clicked, this, [this] {
        m_path.clear();
        check();
    });
    connect(run, &QPushButton::clicked, this, &BackendsPage::check);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &BackendsPage::openCell);
    // Without a model the page follows the Shape panel's shape.
    connect(m_state, &ExplorerState::changed, this, [this] {
        if (m_path.isEmpty()) check();
    });
    check();
}

bool BackendsPage::openModel(const QString& path) {
    m_path = path;
    return check();
}

bool BackendsPage::check() {
    BackendModel model;
    if (!m_path.isEmpty()) {
        auto config = loadModelConfig(m_path.toStdString());
        if (!config) {
            m_source->setText(m_path);
            return fail(toQString(config.error()));
        }
        model = backendModel(*config, m_state->registry());
        m_source->setText(tr("<b>%1</b> — heads %2 (kv %3), head_dim %4; AWQ group_size %5, %6 linear layers; attention planned "
                             "causal, without dropout (a config names neither)")
                              .arg(toQString(config->name).toHtmlEscaped())
                              .arg(config->heads)
                              .arg(config->kvHeads)
                              .arg(config->headDim)
                              .arg(config->groupSize)
                              .arg(model.linears.size()));
    } else if (auto fromShape = backendModelFromShape(*m_state->kernel().family, m_state->shape())) {
        model = *fromShape;
        // The mask and dropout are the panel's, as every row plans them (the matrix planned causal=1
        // whatever the panel said, and a double-click then set it; issue 31).
        m_source->setText(tr("The Shape panel's attention shape: heads %1 (kv %2), head_dim %3 (head_dim_v %4), causal %5, dropout %6; "
                             "%7 rows also take its other values. Batches and seqs below replace its batch and sequence lengths. "
                             "File > Open Model Config or Open config… checks a checkpoint, its quantized GEMMs included.")
                              .arg(model.heads)
                              .arg(model.kvHeads)
                              .arg(model.headDim)
                              .arg(model.headDimV)
                              .arg(model.causal)
                              .arg(model.dropout)
                              .arg(toQString(model.shapeFamily)));
    } else {
        m_source->setText(
            tr("No model open and the Shape panel's kernel has no heads / head_dim: open a model config, or pick an "
               "attention kernel."));
        m_matrix.reset();
        m_summary->clear();
        draw();
        return false;
    }
    BackendMatrixOptions options;
    const auto batches = numbers(m_batches->text());
    const auto seqs = numbers(m_seqs->text());
    if (!batches || !seqs) return fail(tr("batches and seqs are comma-separated numbers of at least 1"));
    options.batches = *batches;
    options.seqs = *seqs;
    options.train = m_train->isChecked();
    std::vector<DeviceSpec> devices;
    for (const QString& id : m_devices->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const DeviceSpec* d = m_state->database().find(id.trimmed().toStdString());
        if (!d) return fail(tr("unknown device '%1' (tilescope-cli devices lists the ids)").arg(id.trimmed()));
        devices.push_back(*d);
    }
    auto matrix = backendMatrix(model, devices, options, m_state->registry());
    if (!matrix) return fail(toQString(matrix.error()));
    m_matrix = std::move(*matrix);
    draw();
    return true;
}

bool BackendsPage::fail(const QString& message) {
    // The matrix of the last good input goes: under an error it read as the answer to the input shown.
    m_matrix.reset();
    draw();
    m_summary->setText(tr("<b>Error:</b> %1").arg(message.toHtmlEscaped()));
    return false;
}

void BackendsPage::draw() {
    m_table->clear();
    if (!m_matrix) {
        m_table->setRowCount(0);
        m_table->setColumnCount(0);
        return;
    }
    const BackendMatrix& m = *m_matrix;
    m_table->setRowCount(static_cast<int>(m.rows.size()));
    m_table->setColumnCount(kFirstDeviceColumn + static_cast<int>(m.devices.size()));
    QStringList columns{tr("role")};
    for (const auto& d : m.devices) columns << toQString(d);
    m_table->setHorizontalHeaderLabels(columns);
    QStringList rows;
    for (int r = 0; r < static_cast<int>(m.rows.size()); ++r) {
        const BackendRow& row = m.rows[static_cast<std::size_t>(r)];
        rows << toQString(row.family + "/" + row.variant);
        auto* role = new QTableWidgetItem(toQString(std::string(backendRoleName(row.role))));
        role->setToolTip(toQString(row.title));
        m_table->setItem(r, 0, role);
        for (int c = 0; c < static_cast<int>(row.cells.size()); ++c) {
            const BackendCell& cell = row.cells[static_cast<std::size_t>(c)];
            // "unsupported_device" -> "device": narrow columns; the tooltip has the verdict and the rule.
            QString verdict = toQString(std::string(verdictName(cell.verdict)));
            verdict.remove(QStringLiteral("unsupported_"));
            auto* item = new QTableWidgetItem(cell.ok() ? tr("ok") : verdict);
            const QColor colour = toQColor(verdictColour(cell.verdict));
            item->setBackground(colour);
            item->setForeground(colour.lightness() < 128 ? Qt::white : Qt::black);
            item->setTextAlignment(Qt::AlignCenter);
            QString tip = QStringLiteral("<b>%1/%2 on %3</b>: %4")
                              .arg(toQString(row.family), toQString(row.variant), toQString(cell.deviceId),
                                   toQString(std::string(verdictName(cell.verdict))));
            if (!cell.rule.empty())
                tip += QStringLiteral("<br>") + toQString(cell.rule).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
            if (cell.failBatch)
                tip += tr("<br>first fails at batch %1, seq %2%3")
                           .arg(*cell.failBatch)
                           .arg(*cell.failSeq)
                           .arg(cell.layer.empty() ? QString() : tr(", layer %1").arg(toQString(cell.layer)));
            if (!cell.limit.empty()) tip += tr("<br>limit: %1").arg(toQString(cell.limit));
            tip += tr("<br><i>double-click to open it in the explorer</i>");
            item->setToolTip(tip);
            m_table->setItem(r, kFirstDeviceColumn + c, item);
        }
    }
    m_table->setVerticalHeaderLabels(rows);
    QStringList lines;
    for (std::size_t d = 0; d < m.devices.size(); ++d)
        if (!m.missing[d].empty())
            lines << tr("<b>%1</b>: no %2 backend runs every shape").arg(toQString(m.devices[d]), toQString(joinList(m.missing[d])));
    m_summary->setText(lines.isEmpty() ? tr("Every device has a backend of each kind that runs every shape (hover a cell for its rule).")
                                       : lines.join(QStringLiteral("<br>")));
}

bool BackendsPage::openCell(int row, int column) {
    if (!m_matrix || row < 0 || column < kFirstDeviceColumn || row >= static_cast<int>(m_matrix->rows.size())) return false;
    const BackendRow& r = m_matrix->rows[static_cast<std::size_t>(row)];
    const std::size_t c = static_cast<std::size_t>(column - kFirstDeviceColumn);
    if (c >= r.cells.size()) return false;
    // Copies: moving the state may re-check the page.
    const QString family = toQString(r.family), variant = toQString(r.variant), device = toQString(r.cells[c].deviceId);
    const QString shape = toQString(r.cells[c].shape);
    if (!m_state->setKernel(family, variant) || !m_state->setDevice(device) || !m_state->setShapeText(shape)) return false;
    emit backendOpened();
    return true;
}

}  // namespace tilescope

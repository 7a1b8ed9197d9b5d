#include "ui/widgets/model_check_widget.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "core/diagnosis/model_check.h"
#include "ui/window/explorer_state.h"
#include "ui/models/model_check_model.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// "1,8,64" -> {1, 8, 64}; nullopt with `error` set for an empty list or a value below 1.
std::optional<std::vector<std::int64_t>> parseCounts(const QString& text, const QString& what, QString& error) {
    std::vector<std::int64_t> values;
    for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong value = item.trimmed().toLongLong(&ok);
        if (!ok || value < 1) {
            error = QObject::tr("%1: '%2' is not a whole number of at least 1").arg(what, item.trimmed());
            return std::nullopt;
        }
        values.push_back(value);
    }
    if (values.empty()) {
        error = QObject::tr("%1: give a comma-separated list such as 1,8,64").arg(what);
        return std::nullopt;
    }
    return values;
}

}  // namespace

ModelCheckWidget::ModelCheckWidget(ExplorerState* state, QWidget* parent)
    : QWidget(parent),
      m_state(state),
      m_source(new QLabel(tr("No model open. File > Open Model Config… reads a Hugging Face config.json or a checkpoint folder."))),
      m_batches(new QLineEdit(QStringLiteral("1,8,64"))),
      m_seqs(new QLineEdit(QStringLiteral("1"))),
      m_check(new QPushButton(tr("Check"))),
      m_view(new QTableView),
      m_model(new ModelCheckModel(this)),
      m_summary(new QLabel) {
    m_source->setObjectName(QStringLiteral("modelSource"));
    m_source->setWordWrap(true);
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_batches->setObjectName(QStringLiteral("modelBatches"));
    m_batches->setToolTip(tr("Batch sizes, comma-separated; linear layers plan M = batch x seq"));
    m_seqs->setObjectName(QStringLiteral("modelSeqs"));
    m_seqs->setToolTip(tr("Sequence lengths, comma-separated (1 = decode)"));
    m_check->setObjectName(QStringLiteral("modelCheckButton"));
    m_check->setEnabled(false);
    m_view->setObjectName(QStringLiteral("modelCheckTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);  // a layer per text line
    m_summary->setObjectName(QStringLiteral("modelSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Batches:")));
    controls->addWidget(m_batches);
    controls->addWidget(new QLabel(tr("Seq:")));
    controls->addWidget(m_seqs);
    controls->addWidget(m_check);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_source);
    layout->addLayout(controls);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_summary);

    connect(m_check, &QPushButton::clicked, this, &ModelCheckWidget::recheck);
    connect(m_batches, &QLineEdit::returnPressed, this, &ModelCheckWidget::recheck);
    connect(m_seqs, &QLineEdit::returnPressed, this, &ModelCheckWidget::recheck);
    connect(m_view, &QTableView::doubleClicked, this, &ModelCheckWidget::openCell);
    // The check is for the window's current device: follow it when it changes.
    connect(m_state, &ExplorerState::changed, this, [this] {
        const auto& check = m_model->check();
        if (check && check->device.id != m_state->device().id) recheck();
    });
}

void ModelCheckWidget::showError(const QString& message) {
    m_model->setCheck(std::nullopt);
    m_summary->setText(tr("<b>Error:</b> %1").arg(message.toHtmlEscaped()));
}

bool ModelCheckWidget::open(const QString& path) {
    m_path = path;
    m_check->setEnabled(!path.isEmpty());
    return recheck();
}

bool ModelCheckWidget::recheck() {
    if (m_path.isEmpty()) return false;
    auto model = loadModelConfig(m_path.toStdString());
    if (!model) {
        m_source->setText(m_path);
        showError(toQString(model.error()));
        return false;
    }
    const ModelConfig& m = *model;
    const std::string_view linearFamily = packingFamily(m.packing, m_state->registry());
    m_source->setText(tr("<b>%1</b> (%2) — AWQ %3-bit \"%4\" → %5/%6, group_size %7; hidden %8, intermediate %9, heads %10 (kv %11), "
                         "head_dim %12 — on <b>%13</b> (%14)")
                          .arg(toQString(m.name).toHtmlEscaped(), toQString(m.architecture).toHtmlEscaped())
                          .arg(m.bits)
                          .arg(toQString(m.version).toHtmlEscaped(), toQString(linearFamily),
                               // a GEMM-packed checkpoint runs as its stack dispatches it (the checkpoint's, else AutoAWQ)
                               toQString(m.packing == AwqPacking::Gemm ? awqStackVariant("", m).value_or("autoawq")
                                                                       : std::string(packingVariant(m.packing))))
                          .arg(m.groupSize)
                          .arg(m.hiddenSize)
                          .arg(m.intermediateSize)
                          .arg(m.heads)
                          .arg(m.kvHeads)
                          .arg(m.headDim)
                          .arg(QString::fromStdString(m_state->device().id), toQString(m_state->device().name).toHtmlEscaped()));
    m_source->setToolTip(m_path);
    QString error;
    ModelCheckOptions options;
    const auto batches = parseCounts(m_batches->text(), tr("Batches"), error);
    const auto seqs = batches ? parseCounts(m_seqs->text(), tr("Seq"), error) : std::nullopt;
    if (!batches || !seqs) {
        showError(error);
        return false;
    }
    options.batches = *batches;
    options.seqs = *seqs;
    auto check = checkModel(m, m_state->device(), options, m_state->registry(), &m_state->database());
    if (!check) {
        showError(toQString(check.error()));
        return false;
    }
    const QStringList conclusion = modelCheckConclusion(*check);
    m_model->setCheck(std::move(*check));
    QStringList html;
    for (const QString& line : conclusion) html << line.toHtmlEscaped();
    m_summary->setText(html.join(QStringLiteral("<br>")) +
                       tr("<br><i>* fused by vLLM and SGLang. Double-click a verdict to open that shape.</i>"));
    return true;
}

bool ModelCheckWidget::openCell(const QModelIndex& index) {
    const ModelCheckResult* r = m_model->result(index);
    const ModelLayerCheck* l = m_model->layer(index.row());
    if (!r || !l) return false;
    // Copies: changing the state may recheck and replace the model's rows.
    const QString family = toQString(l->layer.family);
    const QString variant = toQString(l->layer.variant);
    const QString deviceId = QString::fromStdString(m_model->check()->device.id);
    const Shape shape = r->plan.shape;
    if (!m_state->setKernel(family, variant)) return false;
    if (!m_state->setDevice(deviceId)) return false;
    if (!m_state->setShape(shape)) return false;
    emit shapeOpened();
    return true;
}

}  // namespace tilescope

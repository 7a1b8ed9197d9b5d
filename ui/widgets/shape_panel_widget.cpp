#include "ui/widgets/shape_panel_widget.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "core/model/launch_checks.h"
#include "core/series/boundary_colours.h"
#include "ui/window/explorer_state.h"
#include "ui/window/qt_text.h"
#include "ui/widgets/shape_spin_box.h"

namespace tilescope {

namespace {

QString deviceLabel(const DeviceSpec& device) {
    return QStringLiteral("%1 (%2)").arg(QString::fromStdString(device.id), QString::fromStdString(device.archName()));
}

}  // namespace

ShapePanelWidget::ShapePanelWidget(ExplorerState* state, QWidget* parent)
    : QWidget(parent),
      m_state(state),
      m_device(new QComboBox),
      m_compare(new QComboBox),
      m_family(new QComboBox),
      m_variant(new QComboBox),
      m_cudaRuntime(new QComboBox),
      m_parameterForm(new QFormLayout),
      m_refusal(new QLabel) {
    m_device->setObjectName(QStringLiteral("deviceBox"));
    m_compare->setObjectName(QStringLiteral("compareBox"));
    m_family->setObjectName(QStringLiteral("familyBox"));
    m_variant->setObjectName(QStringLiteral("variantBox"));
    m_cudaRuntime->setObjectName(QStringLiteral("cudaRuntimeBox"));
    for (const int major : kCudaRuntimeChoices) {
        const LaunchRejection rejection = launchConfigurationRejection(major);
        m_cudaRuntime->addItem(tr("CUDA %1").arg(major), major);
        m_cudaRuntime->setItemData(
            m_cudaRuntime->count() - 1,
            tr("A grid or block over its limit raises %1 (\"%2\")").arg(toQString(rejection.error.name), toQString(rejection.message)),
            Qt::ToolTipRole);
    }
    m_compare->addItem(tr("none"), QString());
    for (const DeviceSpec& device : state->database().devices()) {
        const QString id = QString::fromStdString(device.id);
        const QString tip = QStringLiteral("%1\n%2").arg(QString::fromStdString(device.name), QString::fromStdString(device.source));
        m_device->addItem(deviceLabel(device), id);
        m_device->setItemData(m_device->count() - 1, tip, Qt::ToolTipRole);
        m_compare->addItem(deviceLabel(device), id);
        m_compare->setItemData(m_compare->count() - 1, tip, Qt::ToolTipRole);
    }
    for (const auto& family : state->registry().families())
        m_family->addItem(
            QStringLiteral("%1 — %2").arg(QString::fromUtf8(family->name().data(), static_cast<int>(family->name().size())),
                                          QString::fromUtf8(family->title().data(), static_cast<int>(family->title().size()))),
            QString::fromUtf8(family->name().data(), static_cast<int>(family->name().size())));
    m_device->setToolTip(tr("The device the shape is planned for (its limits come from the device database)"));
    m_compare->setToolTip(tr("A second device drawn alongside: occupancy series, capacity line, boundary outline"));
    m_family->setToolTip(tr("Kernel family"));
    m_variant->setToolTip(tr("Variant: which upstream launch design is followed"));
    m_cudaRuntime->setToolTip(
        tr("The CUDA runtime whose launch errors are predicted: a grid or block over its limit is "
           "cudaErrorInvalidConfiguration on CUDA 12, cudaErrorInvalidValue on CUDA 13"));

    // Sized to what a label needs, not to the longest entry, so the Shape dock stays narrow at 1,024 px;
    // a longer entry is elided and its full text is in the list and the tooltip.
    for (QComboBox* box : {m_device, m_compare, m_family, m_variant, m_cudaRuntime}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(16);
    }
    // The list itself shows whole entries ("<name> — <title>", the widest family's too).
    m_family->view()->setMinimumWidth(m_family->view()->sizeHintForColumn(0) + 24);
    for (int i = 0; i < m_family->count(); ++i) m_family->setItemData(i, m_family->itemText(i), Qt::ToolTipRole);
    auto* kernelBox = new QGroupBox(tr("Kernel and device"));
    auto* form = new QFormLayout(kernelBox);
    form->addRow(tr("&Device"), m_device);
    form->addRow(tr("C&ompare with"), m_compare);
    form->addRow(tr("&Kernel"), m_family);
    form->addRow(tr("&Variant"), m_variant);
    form->addRow(tr("CUDA &runtime"), m_cudaRuntime);
    auto* shapeBox = new QGroupBox(tr("Shape"));
    auto* shapeLayout = new QVBoxLayout(shapeBox);
    shapeLayout->addLayout(m_parameterForm);
    m_refusal->setObjectName(QStringLiteral("refusalLabel"));
    m_refusal->setWordWrap(true);
    m_refusal->hide();
    shapeLayout->addWidget(m_refusal);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(kernelBox);
    layout->addWidget(shapeBox);
    layout->addStretch(1);

    connect(m_device, &QComboBox::currentIndexChanged, this, [this] { m_state->setDevice(m_device->currentData().toString()); });
    connect(m_compare, &QComboBox::currentIndexChanged, this, [this] { m_state->setCompareDevice(m_compare->currentData().toString()); });
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] { m_state->setKernel(m_family->currentData().toString()); });
    connect(m_variant, &QComboBox::currentIndexChanged, this, [this] { m_state->setVariant(m_variant->currentIndex()); });
    connect(m_cudaRuntime, &QComboBox::currentIndexChanged, this,
            [this] { m_state->setCudaRuntime(m_cudaRuntime->currentData().toInt()); });
    connect(state, &ExplorerState::kernelChanged, this, &ShapePanelWidget::rebuildParameters);
    connect(state, &ExplorerState::changed, this, &ShapePanelWidget::syncFromState);
    rebuildParameters();
    syncFromState();
}

QSpinBox* ShapePanelWidget::parameterSpinBox(int index) const {
    return index >= 0 && index < static_cast<int>(m_spinBoxes.size()) ? m_spinBoxes[static_cast<std::size_t>(index)] : nullptr;
}

QString ShapePanelWidget::refusalText() const { return m_refusal->isHidden() ? QString() : m_refusal->text(); }

void ShapePanelWidget::rebuildParameters() {
    m_refusal->hide();
    while (m_parameterForm->rowCount() > 0) m_parameterForm->removeRow(0);
    m_spinBoxes.clear();
    const ParameterList& parameters = m_state->parameters();
    for (int i = 0; i < static_cast<int>(parameters.size()); ++i) {
        const ParameterSpec& p = parameters[static_cast<std::size_t>(i)];
        // Steps land on values the kernels accept (powers of two, multiples of the alignment).
        auto* spin = new ShapeSpinBox(p);
        const QString name = QString::fromStdString(p.name);
        spin->setObjectName(QStringLiteral("parameter_") + name);
        spin->setRange(spinBoxValue(p.minimum), spinBoxValue(p.maximum));
        spin->setValue(spinBoxValue(m_state->shape()[i]));
        const QString steps = p.isFlag                     ? tr(" (0 or 1)")
                              : p.scale == AxisScale::Log2 ? tr("\narrows: powers of two · PageUp/PageDown: double/halve")
                              : p.alignment > 1 ? tr("\narrows: multiples of %1 · PageUp/PageDown: double/halve").arg(p.alignment)
                                                : tr("\nPageUp/PageDown: double/halve");
        spin->setToolTip(tr("%1\nrange %2 … %3, default %4%5")
                             .arg(QString::fromStdString(p.help))
                             .arg(p.minimum)
                             .arg(p.maximum)
                             .arg(p.defaultValue)
                             .arg(steps));
        connect(spin, &QSpinBox::valueChanged, this, [this, i](int value) { m_state->setParameter(i, value); });
        connect(spin, &ShapeSpinBox::refused, this, [this](const QString& message) {
            QPalette red = m_refusal->palette();
            red.setColor(QPalette::WindowText, toQColor(verdictColour(Verdict::InvalidLaunch)));
            m_refusal->setPalette(red);
            m_refusal->setText(message);
            m_refusal->show();
        });
        connect(spin, &ShapeSpinBox::refusalCleared, m_refusal, &QLabel::hide);
        // Alt+first letter reaches the box (issue #15 item 15); the label names the parameter as the CLI does.
        auto* label = new QLabel(QLatin1Char('&') + name);
        label->setBuddy(spin);
        label->setToolTip(spin->toolTip());
        m_parameterForm->addRow(label, spin);
        m_spinBoxes.push_back(spin);
    }
    // Tab runs from the kernel and device boxes straight through the parameters, in their order.
    QWidget* previous = m_cudaRuntime;
    for (QSpinBox* spin : m_spinBoxes) {
        setTabOrder(previous, spin);
        previous = spin;
    }
}

void ShapePanelWidget::syncFromState() {
    m_refusal->hide();  // the state moved on (an accepted edit, undo, another kernel): the refusal is history
    const QSignalBlocker b1(m_device), b2(m_compare), b3(m_family), b4(m_variant), b5(m_cudaRuntime);
    m_cudaRuntime->setCurrentIndex(m_cudaRuntime->findData(m_state->cudaRuntime()));
    m_device->setCurrentIndex(m_device->findData(QString::fromStdString(m_state->device().id)));
    const DeviceSpec* compare = m_state->compareDevice();
    m_compare->setCurrentIndex(m_compare->findData(compare ? QString::fromStdString(compare->id) : QString()));
    // The device itself is no comparison: its entry is greyed in the Compare list.
    if (auto* items = qobject_cast<QStandardItemModel*>(m_compare->model()))
        for (int i = 1; i < items->rowCount(); ++i)
            items->item(i)->setEnabled(m_compare->itemData(i).toString() != QString::fromStdString(m_state->device().id));
    const auto family = m_state->kernel().family->name();
    m_family->setCurrentIndex(m_family->findData(QString::fromUtf8(family.data(), static_cast<int>(family.size()))));
    // The variant list changes with the family only; rebuilding it on every edit costs a held spin box.
    const auto& variants = m_state->kernel().family->variants();
    const bool sameList = m_variant->count() == static_cast<int>(variants.size()) &&
                          (variants.empty() || m_variant->itemText(0) == QString::fromStdString(variants.front().name));
    if (!sameList) {
        m_variant->clear();
        for (const VariantInfo& v : variants) {
            m_variant->addItem(QString::fromStdString(v.name));
            m_variant->setItemData(
                m_variant->count() - 1,
                QStringLiteral("%1\nupstream: %2").arg(QString::fromStdString(v.description), QString::fromStdString(v.upstream)),
                Qt::ToolTipRole);
        }
    }
    m_variant->setCurrentIndex(m_state->kernel().variant);
    for (int i = 0; i < static_cast<int>(m_spinBoxes.size()); ++i) {
        QSpinBox* spin = m_spinBoxes[static_cast<std::size_t>(i)];
        if (spin->value() != m_state->shape()[i]) {
            const QSignalBlocker block(spin);
            spin->setValue(spinBoxValue(m_state->shape()[i]));
        }
    }
}

}  // namespace tilescope

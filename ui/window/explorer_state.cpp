#include "ui/window/explorer_state.h"

#include <algorithm>
#include <iterator>

#include "core/model/fix_finder.h"
#include "core/model/launch_checks.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/qt_text.h"

namespace tilescope {

ExplorerState::ExplorerState(QObject* parent) : QObject(parent) {
    m_kernel = KernelChoice{registry().families().front().get(), 0};
    m_device = database().defaultDevice();
    m_shape = Shape::defaults(parameters());
    replan();
}

const KernelRegistry& ExplorerState::registry() const { return builtinKernels(); }
const DeviceDatabase& ExplorerState::database() const { return DeviceDatabase::embedded(); }

bool ExplorerState::setKernel(const QString& family, const QString& variant) {
    auto choice = resolveKernel(registry(), family.toStdString(), variant.toStdString());
    if (!choice) return false;
    const bool sameFamily = choice->family == m_kernel.family;
    m_kernel = *choice;
    if (!sameFamily) m_shape = Shape::defaults(parameters());
    replan();
    emit kernelChanged();
    emit changed();
    return true;
}

bool ExplorerState::setVariant(int variant) {
    if (variant < 0 || variant >= static_cast<int>(m_kernel.family->variants().size())) return false;
    if (variant == m_kernel.variant) return true;
    m_kernel.variant = variant;
    replan();
    emit kernelChanged();
    emit changed();
    return true;
}

bool ExplorerState::setDevice(const QString& id) {
    const DeviceSpec* found = database().find(id.toStdString());
    if (!found) return false;
    if (found->id == m_device.id) return true;
    const int runtime = m_device.cudaRuntime;
    m_device = *found;
    m_device.cudaRuntime = runtime;
    // A device compared with itself says nothing twice (issue 31): the comparison ends.
    if (m_compare && m_compare->id == m_device.id) m_compare.reset();
    replan();
    emit changed();
    return true;
}

bool ExplorerState::setCompareDevice(const QString& id) {
    if (id.isEmpty()) {
        if (!m_compare) return true;
        m_compare.reset();
    } else {
        const DeviceSpec* found = database().find(id.toStdString());
        if (!found || found->id == m_device.id) return false;  // not the device itself
        if (m_compare && m_compare->id == found->id) return true;
        m_compare = *found;
        m_compare->cudaRuntime = m_device.cudaRuntime;
    }
    replan();
    emit changed();
    return true;
}

bool ExplorerState::setShape(const Shape& shape) {
    if (shape.size() != static_cast<int>(parameters().size())) return false;
    for (int i = 0; i < shape.size(); ++i)
        if (!checkParameterValue(parameters()[static_cast<std::size_t>(i)], shape[i])) return false;
    if (shape == m_shape) return true;
    m_shape = shape;
    replan();
    emit changed();
    return true;
}

bool ExplorerState::setCudaRuntime(int major) {
    if (std::find(std::begin(kCudaRuntimeChoices), std::end(kCudaRuntimeChoices), major) == std::end(kCudaRuntimeChoices)) return false;
    if (major == m_device.cudaRuntime) return true;
    m_device.cudaRuntime = major;
    if (m_compare) m_compare->cudaRuntime = major;
    replan();
    emit changed();
    return true;
}

bool ExplorerState::setParameter(int index, std::int64_t value) {
    if (index < 0 || index >= m_shape.size()) return false;
    Shape shape = m_shape;
    shape[index] = value;
    return setShape(shape);
}

bool ExplorerState::setShapeText(const QString& text) {
    auto parsed = parseShape(text.toStdString(), parameters());
    return parsed && setShape(*parsed);
}

bool ExplorerState::applyFix() { return m_plan.fixShape && setShape(*m_plan.fixShape); }

bool ExplorerState::applyRun(const QString& family, const QString& variant, const QString& device, const Shape& shape) {
    ++m_grouped;
    bool applied = setKernel(family, variant);
    if (applied) {
        setDevice(device);  // a run on the live GPU ("local:0") keeps the database device the panel has
        applied = setShape(shape);
    }
    --m_grouped;
    recordHistory();
    return applied;
}

bool ExplorerState::undo() {
    if (m_undo.empty()) return false;
    const Snapshot target = m_undo.back();
    m_undo.pop_back();
    ++m_grouped;
    setKernel(target.family, target.variant);
    setDevice(target.device);
    setCompareDevice(target.compare);
    setCudaRuntime(target.cudaRuntime);
    setShape(target.shape);
    --m_grouped;
    m_last = snapshot();  // the restored state, not a new step
    emit undoAvailable(canUndo());
    return true;
}

ExplorerState::Snapshot ExplorerState::snapshot() const {
    return {toQString(m_kernel.family->name()),
            toQString(m_kernel.variantName()),
            QString::fromStdString(m_device.id),
            m_compare ? QString::fromStdString(m_compare->id) : QString(),
            m_device.cudaRuntime,
            m_shape};
}

void ExplorerState::recordHistory() {
    if (m_grouped > 0) return;
    Snapshot now = snapshot();
    if (m_last && !(*m_last == now)) {
        m_undo.push_back(*m_last);
        if (m_undo.size() > kMaxUndo) m_undo.erase(m_undo.begin());
        emit undoAvailable(true);
    }
    m_last = std::move(now);
}

void ExplorerState::replan() {
    m_plan = planWithFix(m_kernel, m_shape, m_device, &database());
    if (m_compare) m_comparePlan = planWithFix(m_kernel, m_shape, *m_compare, &database());
    else m_comparePlan.reset();
    recordHistory();
}

}  // namespace tilescope

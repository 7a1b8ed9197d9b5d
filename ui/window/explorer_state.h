// ExplorerState: the one state object every view of the main window shares (kcachegrind's
// pattern): kernel, variant, device, compare-device and shape, and the plans for them.
#pragma once

#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/kernel_family.h"
#include "core/model/launch_plan.h"

namespace tilescope {

class ExplorerState : public QObject {
    Q_OBJECT
public:
    explicit ExplorerState(QObject* parent = nullptr);

    const KernelRegistry& registry() const;
    const DeviceDatabase& database() const;

    KernelChoice kernel() const { return m_kernel; }
    const ParameterList& parameters() const { return m_kernel.family->parameters(); }
    const DeviceSpec& device() const { return m_device; }
    const DeviceSpec* compareDevice() const { return m_compare ? &*m_compare : nullptr; }
    const Shape& shape() const { return m_shape; }
    // The CUDA runtime major version whose launch errors the plans predict (both devices share it).
    int cudaRuntime() const { return m_device.cudaRuntime; }
    const LaunchPlan& plan() const { return m_plan; }
    const LaunchPlan* comparePlan() const { return m_comparePlan ? &*m_comparePlan : nullptr; }
    // "model": this build plans without a GPU runtime; live GPU runs go through the CLI worker.
    QString modeText() const { return QStringLiteral("model"); }

    // Each setter returns false (and changes nothing) for an unknown name or a bad value.
    bool setKernel(const QString& family, const QString& variant = {});  // shape resets to defaults
    bool setVariant(int variant);
    bool setDevice(const QString& id);
    bool setCompareDevice(const QString& id);  // empty: no comparison
    bool setShape(const Shape& shape);
    bool setCudaRuntime(int major);  // one of kCudaRuntimeChoices (core/model/launch_checks.h)
    bool setParameter(int index, std::int64_t value);
    bool setShapeText(const QString& text);  // "M=32768,N=5376"
    // Applies plan().fixShape; false when the plan has none.
    bool applyFix();
    // Moves to another run's kernel, variant, device and shape as one undoable step (the Runs page).
    bool applyRun(const QString& family, const QString& variant, const QString& device, const Shape& shape);

    // Edit > Undo: every change of kernel, variant, device, compare device, CUDA runtime or shape is
    // one step (a run applied from the Runs page is one step too), at most kMaxUndo kept.
    bool canUndo() const { return !m_undo.empty(); }
    bool undo();
    static constexpr std::size_t kMaxUndo = 100;

signals:
    void kernelChanged();  // family or variant: the parameter list may differ
    void changed();        // anything: plans are recomputed before this is emitted
    void undoAvailable(bool available);

private:
    struct Snapshot {
        QString family, variant, device, compare;
        int cudaRuntime = 0;
        Shape shape;
        friend bool operator==(const Snapshot&, const Snapshot&) = default;
    };
    Snapshot snapshot() const;
    void replan();
    void recordHistory();  // after each change: the state before it goes on the undo stack

    KernelChoice m_kernel;
    DeviceSpec m_device;
    std::optional<DeviceSpec> m_compare;
    Shape m_shape;
    LaunchPlan m_plan;
    std::optional<LaunchPlan> m_comparePlan;
    std::vector<Snapshot> m_undo;
    std::optional<Snapshot> m_last;  // the state after the last recorded change
    int m_grouped = 0;               // > 0 while one step makes several changes (applyRun, undo)
};

}  // namespace tilescope

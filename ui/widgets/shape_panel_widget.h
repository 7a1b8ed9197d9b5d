// ShapePanelWidget: device, compare-device, kernel family, variant, CUDA runtime, and one spin box
// per shape parameter built from the family's parameter list. Every committed edit goes to the state;
// a refused one is said under the parameters.
#pragma once

#include <QWidget>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace tilescope {

class ExplorerState;

class ShapePanelWidget : public QWidget {
    Q_OBJECT
public:
    explicit ShapePanelWidget(ExplorerState* state, QWidget* parent = nullptr);

    QSpinBox* parameterSpinBox(int index) const;  // nullptr when out of range
    QComboBox* deviceBox() const { return m_device; }
    QComboBox* compareBox() const { return m_compare; }
    QComboBox* familyBox() const { return m_family; }
    QComboBox* variantBox() const { return m_variant; }
    QComboBox* cudaRuntimeBox() const { return m_cudaRuntime; }
    // Why the last typed value was refused (out of range, not a number); empty after an accepted edit.
    QString refusalText() const;

private:
    void rebuildParameters();
    void syncFromState();

    ExplorerState* m_state;
    QComboBox* m_device;
    QComboBox* m_compare;
    QComboBox* m_family;
    QComboBox* m_variant;
    QComboBox* m_cudaRuntime;
    QFormLayout* m_parameterForm;
    QLabel* m_refusal;  // under the parameters, red: a typed value that was not planned
    std::vector<QSpinBox*> m_spinBoxes;
};

}  // namespace tilescope

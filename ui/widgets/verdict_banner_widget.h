// VerdictBannerWidget: green "ok", or the failure's kind, exact message, limit hit and fix,
// with a button that moves the shape to the suggested passing one.
#pragma once

#include <QFrame>

#include "core/model/verdict.h"

class QLabel;
class QPushButton;

namespace tilescope {

class ExplorerState;

class VerdictBannerWidget : public QFrame {
    Q_OBJECT
public:
    explicit VerdictBannerWidget(ExplorerState* state, QWidget* parent = nullptr);

    QString text() const;  // the banner's plain text (tests, accessibility)
    QPushButton* fixButton() const { return m_fixButton; }
    // The verdict the banner's colour shows: the worse of the device's and the compare device's.
    Verdict shownVerdict() const { return m_shownVerdict; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void fitMinimumHeight();

    ExplorerState* m_state;
    QLabel* m_label;
    QPushButton* m_fixButton;
    Verdict m_shownVerdict = Verdict::Ok;
};

}  // namespace tilescope

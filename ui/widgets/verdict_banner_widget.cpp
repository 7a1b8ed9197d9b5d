#include "ui/widgets/verdict_banner_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextDocument>

#include "core/series/launch_usage.h"
#include "core/model/device_spec.h"
#include "ui/window/explorer_state.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// A zero-width space after each comma that has none: a fix's shape list
// ("batch=4,seqlen_q=4096,...") is one word to the line breaker, and at 1,024 px it widened the
// window past the screen (issue #15 item 12). text() strips them again.
constexpr QChar kBreakOpportunity(0x200B);

QString breakable(QString escaped) {
    for (qsizetype i = escaped.size() - 2; i >= 0; --i)
        if (escaped[i] == QLatin1Char(',') && !escaped[i + 1].isSpace()) escaped.insert(i + 1, kBreakOpportunity);
    return escaped;
}

QString describe(const LaunchPlan& plan) {
    if (plan.ok()) {
        QString text = QStringLiteral("<b>ok</b> — launches");
        if (!plan.tile.empty()) text += QStringLiteral(", tile %1").arg(toQString(plan.tile).toHtmlEscaped());
        if (plan.bucketCell) text += QStringLiteral(", cell %1").arg(*plan.bucketCell);
        if (plan.paddingWaste > 0) text += QStringLiteral(", padding waste %1 %").arg(plan.paddingWaste * 100.0, 0, 'f', 1);
        text += plan.occupancy ? QStringLiteral(", occupancy %1 %").arg(plan.occupancy->occupancyPct, 0, 'f', 0)
                               : QStringLiteral(", occupancy unknown (registers unknown)");
        if (!plan.note.empty()) text += QStringLiteral("<br>%1").arg(breakable(QString::fromStdString(plan.note).toHtmlEscaped()));
        return text;
    }
    QString text = QStringLiteral("<b>%1</b>: %2")
                       .arg(toQString(verdictName(plan.verdict)), breakable(QString::fromStdString(plan.message).toHtmlEscaped()));
    if (plan.limit) text += QStringLiteral("<br>limit: %1").arg(QString::fromStdString(describeLimit(*plan.limit)).toHtmlEscaped());
    if (plan.cudaError) text += QStringLiteral(" (%1, %2)").arg(toQString(plan.cudaError->name)).arg(plan.cudaError->code);
    if (!plan.fix.empty()) text += QStringLiteral("<br>fix: %1").arg(breakable(QString::fromStdString(plan.fix).toHtmlEscaped()));
    return text;
}

}  // namespace

VerdictBannerWidget::VerdictBannerWidget(ExplorerState* state, QWidget* parent)
    : QFrame(parent), m_state(state), m_label(new QLabel), m_fixButton(new QPushButton(tr("Move to the &suggested shape"))) {
    setObjectName(QStringLiteral("verdictBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_label->setObjectName(QStringLiteral("verdictText"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fixButton->setObjectName(QStringLiteral("fixButton"));
    m_fixButton->setToolTip(tr("Set the shape to the nearest passing one the fix finder found"));
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_fixButton, 0, Qt::AlignVCenter);
    connect(m_fixButton, &QPushButton::clicked, state, &ExplorerState::applyFix);
    connect(state, &ExplorerState::changed, this, &VerdictBannerWidget::refresh);
    refresh();
}

void VerdictBannerWidget::resizeEvent(QResizeEvent* event) {
    QFrame::resizeEvent(event);
    fitMinimumHeight();  // narrower, the text wraps into more lines
}

void VerdictBannerWidget::fitMinimumHeight() {
    // QMainWindow gives its central widget no more than its minimum when the Diagnose dock is open, and
    // a word-wrapped label's minimum is its height at its widest: at 1,024 x 700 the banner took ~30 px
    // more than that and pushed the page's foot (the Boundaries legend's last line) out of the window.
    // Its minimum is the height it needs at the width it has.
    if (width() <= 0) return;
    if (const int needed = heightForWidth(width()); needed > 0 && needed != minimumHeight()) setMinimumHeight(needed);
}

QString VerdictBannerWidget::text() const {
    QTextDocument document;
    document.setHtml(m_label->text());
    return document.toPlainText().remove(kBreakOpportunity);
}

void VerdictBannerWidget::refresh() {
    const LaunchPlan& plan = m_state->plan();
    QString html = QStringLiteral("%1: %2").arg(QString::fromStdString(m_state->device().id), describe(plan));
    if (const LaunchPlan* compare = m_state->comparePlan()) {
        // A failing compare device gets its limit and fix too, and colours the banner (issue #15 item 2).
        html += QStringLiteral("<br>%1: %2")
                    .arg(QString::fromStdString(m_state->compareDevice()->id),
                         compare->ok() ? QStringLiteral("<b>ok</b>") : describe(*compare));
    }
    m_label->setText(html);
    // Verdicts are ordered by precedence: the lower one is the worse.
    const LaunchPlan* compare = m_state->comparePlan();
    m_shownVerdict = compare && compare->verdict < plan.verdict ? compare->verdict : plan.verdict;
    // The verdict colour blended towards white, so black text stays readable in any theme.
    const QColor base = toQColor(verdictColour(m_shownVerdict));
    constexpr double kTint = 0.4;
    auto blend = [&](int c) { return static_cast<int>(c * kTint + 255 * (1.0 - kTint)); };
    QPalette p = palette();
    p.setColor(QPalette::Window, QColor(blend(base.red()), blend(base.green()), blend(base.blue())));
    p.setColor(QPalette::WindowText, Qt::black);
    setPalette(p);
    m_label->setPalette(p);
    m_fixButton->setVisible(!plan.ok());
    m_fixButton->setEnabled(plan.fixShape.has_value());
    // A greyed button says why, on its face and in its tooltip, instead of promising a fix (issue 31 item 10).
    if (plan.fixShape) {
        m_fixButton->setText(tr("Move to the &suggested shape"));
        m_fixButton->setToolTip(tr("Set the shape to the nearest passing one the fix finder found: %1")
                                    .arg(QString::fromStdString(formatShape(*plan.fixShape, m_state->parameters()))));
    } else {
        m_fixButton->setText(tr("No suggested shape"));
        m_fixButton->setToolTip(
            tr("No value of %1 launches with the other parameters as they are, so there is no shape to move to; "
               "the fix line says what to change instead.")
                .arg(plan.failingParameter >= 0 && plan.failingParameter < static_cast<int>(m_state->parameters().size())
                         ? QString::fromStdString(m_state->parameters()[static_cast<std::size_t>(plan.failingParameter)].name)
                         : tr("the failing parameter")));
    }
    fitMinimumHeight();  // new text, maybe more lines
}

}  // namespace tilescope

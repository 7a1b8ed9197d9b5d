// TimelinePage: the open trace's kernel records on one lane per device and stream, failed
// launches as red markers; zoom buttons above the TimelineView.
#pragma once

#include <QWidget>

class QLabel;

namespace tilescope {

class TimelineView;
class TraceDocument;

class TimelinePage : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePage(TraceDocument* document, QWidget* parent = nullptr);
    TimelineView* view() const { return m_view; }

private:
    void refresh();
    void refreshSummary();

    TraceDocument* m_document;
    TimelineView* m_view;
    QLabel* m_summary;
};

}  // namespace tilescope

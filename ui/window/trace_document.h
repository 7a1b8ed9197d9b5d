// TraceDocument: the trace open in the window (a native trace or an imported profiler trace),
// its file, and whether it has unsaved changes. Opening replaces it only when the new file was
// read without error, so a bad file never costs the user what they had open.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "core/model/result.h"
#include "core/trace/trace.h"

namespace tilescope {

class TraceDocument : public QObject {
    Q_OBJECT
public:
    explicit TraceDocument(QObject* parent = nullptr);

    const Trace& trace() const { return *m_trace; }
    bool isEmpty() const { return m_trace->runs.empty() && m_trace->records.empty() && m_trace->sweeps.empty(); }
    QString path() const { return m_path; }  // empty: never saved (or imported)
    // Changed since opened or saved. An import as read is not: its source file still holds all of it.
    bool isModified() const { return m_modified; }
    bool isImported() const { return m_path.isEmpty() && !m_origin.isEmpty(); }
    // Runs added (GPU measurements, predictions) since the trace was opened or saved: what closing
    // without saving would lose; an unsaved import can always be imported again.
    int unsavedRuns() const { return m_unsavedRuns; }
    QString displayName() const;  // file name (an import's: its source file), or "untitled"

    // Reads a native trace or a profiler trace. On error the open trace is kept and the reader's
    // message returned.
    Result<void> open(const QString& path);
    // Takes a trace read elsewhere (the import worker); `path` is where it came from.
    void setTrace(Trace trace, const QString& path, bool native);
    // Atomic save through core's writer; the path becomes the document's.
    Result<void> saveAs(const QString& path);
    // Runs from the GPU worker; marks the document modified.
    void addRuns(std::vector<Run> runs, const std::vector<DeviceSpec>& devices);

signals:
    void traceChanged();  // a new trace, or runs added
    void pathChanged();
    void opened();  // a different trace replaced the open one (views reset their scroll and zoom)

private:
    std::unique_ptr<Trace> m_trace;
    QString m_path;
    QString m_origin;  // the file it was read from, native or not
    bool m_modified = false;
    int m_unsavedRuns = 0;
};

}  // namespace tilescope

#include "ui/window/trace_document.h"

#include <QFileInfo>

#include "core/trace/kineto_import.h"
#include "core/trace/trace_io.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {

TraceDocument::TraceDocument(QObject* parent) : QObject(parent), m_trace(std::make_unique<Trace>()) {}

QString TraceDocument::displayName() const {
    const QString file = m_path.isEmpty() ? m_origin : m_path;
    return file.isEmpty() ? tr("untitled") : QFileInfo(file).fileName();
}

Result<void> TraceDocument::open(const QString& path) {
    auto read = openTraceFile(path.toStdString(), builtinKernels());
    if (!read) return Error{read.error()};
    setTrace(std::move(*read), path, looksLikeNativeTrace(path.toStdString()));
    return {};
}

void TraceDocument::setTrace(Trace trace, const QString& path, bool native) {
    m_trace = std::make_unique<Trace>(std::move(trace));
    // An imported profiler trace is saved as a new native file, never over the original.
    m_path = native ? path : QString();
    m_origin = path;
    m_modified = false;  // an import is marked "imported", not "*": quitting loses nothing of it
    m_unsavedRuns = 0;
    emit pathChanged();
    emit traceChanged();
    emit opened();
}

Result<void> TraceDocument::saveAs(const QString& path) {
    auto written = writeTraceFile(*m_trace, path.toStdString());
    if (!written) return written;
    m_path = path;
    m_modified = false;
    m_unsavedRuns = 0;
    emit pathChanged();
    return {};
}

void TraceDocument::addRuns(std::vector<Run> runs, const std::vector<DeviceSpec>& devices) {
    for (const auto& d : devices) m_trace->addDevice(d);
    m_unsavedRuns += static_cast<int>(runs.size());
    for (auto& r : runs) m_trace->runs.push_back(std::move(r));
    m_modified = true;
    emit traceChanged();
}

}  // namespace tilescope

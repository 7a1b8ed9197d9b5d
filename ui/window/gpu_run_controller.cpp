#include "ui/window/gpu_run_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "core/model/fix_finder.h"
#include "core/trace/worker_output.h"
#include "kernels/builtin_kernels.h"
#include "ui/window/qt_text.h"

namespace tilescope {

namespace {

// `tilescope-cli`'s exit codes (app/cli: 2 usage or input error, 3 no GPU).
constexpr int kWorkerUsageError = 2;
constexpr int kWorkerNoGpu = 3;
constexpr int kProbeTimeoutMs = 60'000;
constexpr int kMaxStderrBytes = 16 * 1024;

// Splits complete top-level JSON objects off the front of `buffer` (one per line for sweep --run,
// one indented object for run --json).
std::vector<QByteArray> takeObjects(QByteArray& buffer) {
    std::vector<QByteArray> objects;
    int depth = 0, begin = -1, consumed = 0;
    bool inString = false, escaped = false;
    for (int i = 0; i < buffer.size(); ++i) {
        const char c = buffer[i];
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = depth > 0;
        else if (c == '{') {
            if (depth++ == 0) begin = i;
        } else if (c == '}' && depth > 0 && --depth == 0) {
            objects.push_back(buffer.mid(begin, i - begin + 1));
            consumed = i + 1;
        }
    }
    buffer.remove(0, consumed);
    return objects;
}

QString axisText(const SweepAxis& axis, const ParameterList& parameters) {
    QStringList values;
    for (auto v : axis.values) values << QString::number(v);
    return QString::fromStdString(parameters[static_cast<std::size_t>(axis.parameter)].name) + QLatin1Char('=') +
           values.join(QLatin1Char(','));
}

}  // namespace

GpuRunController::GpuRunController(QObject* parent) : QObject(parent), m_workerPath(defaultWorkerPath()), m_watchdog(new QTimer(this)) {
    m_watchdog->setSingleShot(true);
    connect(m_watchdog, &QTimer::timeout, this, [this] {
        if (!m_process) return;
        m_timedOut = true;
        m_process->kill();
    });
}

GpuRunController::~GpuRunController() {
    for (QProcess* p : {m_probe, m_process})
        if (p) {
            p->disconnect(this);
            p->kill();
            p->waitForFinished(1000);
        }
}

QString GpuRunController::defaultWorkerPath() {
    const QString fromEnvironment = qEnvironmentVariable("TILESCOPE_WORKER");
    if (!fromEnvironment.isEmpty()) return fromEnvironment;
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate : {here.filePath(QStringLiteral("tilescope-cli")), here.filePath(QStringLiteral("../cli/tilescope-cli"))})
        if (QFileInfo(candidate).isExecutable()) return QDir::cleanPath(candidate);
    return here.filePath(QStringLiteral("tilescope-cli"));
}

void GpuRunController::probe() {
    if (m_probe) {
        // A new probe replaces one still running (e.g. after the worker path changed): its answer
        // would describe the old worker.
        m_probe->disconnect(this);
        m_probe->kill();
        m_probe->deleteLater();
        m_probe = nullptr;
    }
    m_availability = Availability::Probing;
    m_reason = tr("Looking for a GPU…");
    m_shortState = tr("looking for a GPU…");
    emit availabilityChanged();
    if (!QFileInfo(m_workerPath).isExecutable()) {
        m_availability = Availability::Unavailable;
        m_reason = tr("The GPU worker %1 is missing: build or install tilescope-cli next to tilescope.").arg(m_workerPath);
        m_shortState = tr("no GPU worker (tilescope-cli missing)");
        emit availabilityChanged();
        return;
    }
    m_probe = new QProcess(this);
    // The cheapest real check: one run of the first kernel at its default shape, no reference, no repeats.
    const KernelFamily& first = *builtinKernels().families().front();
    m_probe->start(m_workerPath, {QStringLiteral("run"), QStringLiteral("-k"), toQString(first.name()), QStringLiteral("--no-check"),
                                  QStringLiteral("--repeat"), QStringLiteral("0"), QStringLiteral("--json")});
    connect(m_probe, &QProcess::finished, this, &GpuRunController::onProbeFinished);
    connect(m_probe, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) onProbeFinished(-1, QProcess::CrashExit);
    });
    QTimer::singleShot(kProbeTimeoutMs, m_probe, [probe = m_probe] { probe->kill(); });
}

void GpuRunController::onProbeFinished(int exitCode, QProcess::ExitStatus status) {
    if (!m_probe) return;
    const QString errors = QString::fromLocal8Bit(m_probe->readAllStandardError()).trimmed();
    m_probe->deleteLater();
    m_probe = nullptr;
    if (status == QProcess::NormalExit && exitCode != kWorkerNoGpu && exitCode != kWorkerUsageError && exitCode >= 0) {
        m_availability = Availability::Available;
        m_reason.clear();
        m_shortState.clear();
    } else {
        m_availability = Availability::Unavailable;
        m_reason =
            status == QProcess::NormalExit && exitCode == kWorkerNoGpu
                ? tr("No CUDA GPU on this machine (tilescope-cli run exits 3): %1").arg(errors.isEmpty() ? tr("no device") : errors)
                : tr("The GPU worker did not answer the probe (%1).").arg(errors.isEmpty() ? tr("it crashed or could not start") : errors);
        m_shortState = status == QProcess::NormalExit && exitCode == kWorkerNoGpu ? tr("no CUDA GPU on this machine")
                                                                                  : tr("the GPU worker did not answer");
    }
    emit availabilityChanged();
}

bool GpuRunController::startRun(const KernelChoice& kernel, const Shape& shape, const LaunchPlan& modelPlan) {
    const ParameterList& parameters = kernel.family->parameters();
    return start({QStringLiteral("run"), QStringLiteral("-k"), toQString(kernel.family->name()), QStringLiteral("-v"),
                  toQString(kernel.variantName()), QStringLiteral("-s"), QString::fromStdString(formatShape(shape, parameters)),
                  QStringLiteral("--json")},
                 {modelPlan}, parameters);
}

bool GpuRunController::startSweep(const KernelChoice& kernel, const Shape& base, SweepAxis x, std::optional<SweepAxis> y,
                                  const DeviceSpec& modelDevice) {
    const ParameterList& parameters = kernel.family->parameters();
    // The cells the worker's `sweep --run` will run: it ties followers (head_dim_v) the same way.
    tieFollowers(x, base, parameters, y ? &*y : nullptr);
    if (y) tieFollowers(*y, base, parameters, &x);
    std::vector<LaunchPlan> plans;
    const std::size_t height = y ? y->values.size() : 1;
    for (std::size_t iy = 0; iy < height; ++iy)  // the worker's order: x fastest
        for (std::size_t ix = 0; ix < x.values.size(); ++ix) {
            Shape shape = base;
            setAxisValue(shape, x, ix);
            if (y) setAxisValue(shape, *y, iy);
            plans.push_back(planWithFix(kernel, shape, modelDevice, &DeviceDatabase::embedded()));
        }
    QStringList arguments{QStringLiteral("sweep"),
                          QStringLiteral("-k"),
                          toQString(kernel.family->name()),
                          QStringLiteral("-v"),
                          toQString(kernel.variantName()),
                          QStringLiteral("-s"),
                          QString::fromStdString(formatShape(base, parameters)),
                          QStringLiteral("--x"),
                          axisText(x, parameters)};
    if (y) arguments << QStringLiteral("--y") << axisText(*y, parameters);
    arguments << QStringLiteral("--run");
    return start(arguments, std::move(plans), parameters);
}

bool GpuRunController::startCalibration() {
    if (m_process) return false;
    m_calibration.reset();
    m_calibrating = true;
    return start({QStringLiteral("calibrate"), QStringLiteral("--json")}, {}, {});
}

bool GpuRunController::start(const QStringList& arguments, std::vector<LaunchPlan> plans, const ParameterList& parameters) {
    if (m_process) return false;
    m_calibrating = arguments.value(0) == QLatin1String("calibrate");
    m_expected = std::move(plans);
    m_parameters = parameters;
    m_results.clear();
    m_buffer.clear();
    m_stderr.clear();
    m_timedOut = m_cancelled = false;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &GpuRunController::readOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QByteArray chunk = m_process->readAllStandardError();
        m_stderr += chunk;
        if (m_stderr.size() > kMaxStderrBytes) m_stderr = m_stderr.right(kMaxStderrBytes);
        // `calibrate` prints its JSON only at the end and its steps on stderr ("calibrate: <step>"): those
        // show the worker is alive, and what it is measuring.
        if (!m_calibrating) return;
        m_watchdog->start(m_timeoutMs);
        const QStringList lines = QString::fromLocal8Bit(chunk).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (auto line = lines.rbegin(); line != lines.rend(); ++line)
            if (line->startsWith(QLatin1String("calibrate: "))) {
                emit calibrationStep(line->mid(11).trimmed());
                break;
            }
    });
    connect(m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        readOutput();
        const QString errors = QString::fromLocal8Bit(m_stderr).trimmed();
        const QString after = m_calibrating ? QString() : tr("after %1 of %2 runs").arg(m_results.size()).arg(m_expected.size());
        QString failure;
        if (m_cancelled) failure = tr("cancelled by the user %1").arg(after);
        else if (m_timedOut) failure = tr("the worker hung: no output for %1 s %2; killed").arg(m_timeoutMs / 1000).arg(after);
        else if (status == QProcess::CrashExit) failure = tr("the worker crashed %1").arg(after);
        else if (exitCode == kWorkerNoGpu) failure = tr("no CUDA GPU (exit 3)");
        // A CLI built before `calibrate` existed rejects the subcommand (CLI11: "... not expected: calibrate").
        else if (m_calibrating && exitCode == kWorkerUsageError && errors.contains(QLatin1String("calibrate")))
            failure = tr("calibration is not available in this build: %1 has no calibrate command").arg(m_workerPath);
        else if (exitCode == kWorkerUsageError) failure = tr("the worker rejected the request (exit 2)");
        else if (m_calibrating && !m_calibration) failure = tr("the worker printed no calibration (exit code %1)").arg(exitCode);
        else if (m_results.size() < m_expected.size()) failure = tr("the worker exited with code %1 %2").arg(exitCode).arg(after);
        if (!failure.isEmpty() && !errors.isEmpty()) failure += QStringLiteral(": ") + errors.section(QLatin1Char('\n'), -3);
        finish(failure);
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) finish(tr("the worker %1 could not start: %2").arg(m_workerPath, m_process->errorString()));
    });
    m_watchdog->start(m_timeoutMs);
    m_process->start(m_workerPath, arguments);
    emit availabilityChanged();  // busy: the actions wait for this run
    emit progress(0, total());
    return true;
}

void GpuRunController::readOutput() {
    if (!m_process) return;
    m_buffer += m_process->readAllStandardOutput();
    for (const QByteArray& object : takeObjects(m_buffer)) {
        m_watchdog->start(m_timeoutMs);  // any output proves the worker is alive
        if (m_calibrating) {
            if (auto read = calibrationFromJson(object.toStdString())) m_calibration = std::move(*read);
            continue;
        }
        const auto j = nlohmann::ordered_json::parse(object.toStdString(), nullptr, false);
        auto run = runFromWorkerJson(j, builtinKernels());
        const std::size_t index = m_results.size();
        if (index >= m_expected.size()) continue;
        m_results.push_back(run ? std::move(*run)
                                : failedWorkerRun(m_expected[index], m_parameters, "unreadable worker output: " + run.error()));
        emit progress(done(), total());
    }
}

void GpuRunController::cancel() {
    if (!m_process) return;
    m_cancelled = true;
    m_process->kill();
}

void GpuRunController::finish(const QString& failure) {
    if (!m_process) return;
    m_watchdog->stop();
    QProcess* process = m_process;
    m_process = nullptr;
    process->disconnect(this);
    process->deleteLater();
    if (m_calibrating) {
        m_calibrating = false;
        emit availabilityChanged();
        emit calibrationFinished(failure.isEmpty() ? m_calibration : std::nullopt, failure);
        m_calibration.reset();
        return;
    }
    const std::string reason = failure.isEmpty() ? std::string("the worker ended before reporting this run") : failure.toStdString();
    for (std::size_t i = m_results.size(); i < m_expected.size(); ++i)
        m_results.push_back(failedWorkerRun(m_expected[i], m_parameters, reason));
    emit progress(done(), total());
    emit availabilityChanged();
    emit finished(std::move(m_results), failure);
    m_results.clear();
}

}  // namespace tilescope

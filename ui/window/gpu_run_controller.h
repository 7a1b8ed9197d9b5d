// GpuRunController: runs kernels on the GPU through the worker process (tilescope-cli run /
// sweep --run), never in the GUI's own process: a kernel that faults or hangs costs one worker.
// Progress comes from the worker's JSON lines; a worker that crashes, stops writing for
// timeoutMs (then killed) or exits with an error leaves its remaining runs recorded as failed
// with the reason. One probe at start (off the GUI thread, asynchronous) says whether a GPU is there.
// GPU > Calibrate runs `tilescope-cli calibrate --json` the same way (busy, cancel, time-out).
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/series/calibration.h"
#include "core/model/kernel_family.h"
#include "core/model/sweep.h"
#include "core/trace/trace.h"

class QTimer;

namespace tilescope {

class GpuRunController : public QObject {
    Q_OBJECT
public:
    enum class Availability { Probing, Available, Unavailable };

    explicit GpuRunController(QObject* parent = nullptr);
    ~GpuRunController() override;

    // $TILESCOPE_WORKER, else tilescope-cli next to this binary (installed) or in ../cli (build tree).
    static QString defaultWorkerPath();
    void setWorkerPath(const QString& path) { m_workerPath = path; }
    QString workerPath() const { return m_workerPath; }
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    // Starts the probe: `tilescope-cli run` on a tiny default shape; exit 3 means no GPU.
    void probe();
    Availability availability() const { return m_availability; }
    QString unavailableReason() const { return m_reason; }
    // A few words for the GPU menu and the status bar ("no CUDA GPU on this machine"); empty when a
    // GPU is there. The full reason (with the worker's own message) stays in unavailableReason().
    QString shortState() const { return m_shortState; }

    bool isBusy() const { return m_process != nullptr; }
    // `plans` are the model's plans for each shape the worker will run, in its order; a run the
    // worker never reports is recorded with its plan and the failure reason.
    bool startRun(const KernelChoice& kernel, const Shape& shape, const LaunchPlan& modelPlan);
    bool startSweep(const KernelChoice& kernel, const Shape& base, SweepAxis x, std::optional<SweepAxis> y, const DeviceSpec& modelDevice);
    // The roofline of this GPU and driver: copy bandwidth and cuBLAS fp16 / bf16 peaks (calibrationFinished).
    bool startCalibration();
    bool isCalibrating() const { return m_process && m_calibrating; }
    void cancel();

    int done() const { return static_cast<int>(m_results.size()); }
    int total() const { return static_cast<int>(m_expected.size()); }

signals:
    void availabilityChanged();  // also when a run starts or ends (isBusy)
    void progress(int done, int total);
    // Every expected run, reported or failed; `failure` is empty when the worker ended normally.
    void finished(std::vector<tilescope::Run> runs, QString failure);
    // What a running calibration measures now (its "calibrate: <step>" lines).
    void calibrationStep(QString step);
    // A calibration's result, or (nullopt) why there is none.
    void calibrationFinished(std::optional<tilescope::Calibration> calibration, QString failure);

private:
    bool start(const QStringList& arguments, std::vector<LaunchPlan> plans, const ParameterList& parameters);
    void readOutput();
    void finish(const QString& failure);
    void onProbeFinished(int exitCode, QProcess::ExitStatus status);

    QString m_workerPath;
    int m_timeoutMs = 120'000;
    Availability m_availability = Availability::Probing;
    QString m_reason;
    QString m_shortState;
    QProcess* m_probe = nullptr;

    QProcess* m_process = nullptr;
    QTimer* m_watchdog;
    bool m_timedOut = false;
    bool m_cancelled = false;
    QByteArray m_buffer;
    QByteArray m_stderr;
    ParameterList m_parameters;
    std::vector<LaunchPlan> m_expected;
    std::vector<Run> m_results;
    bool m_calibrating = false;
    std::optional<Calibration> m_calibration;
};

}  // namespace tilescope

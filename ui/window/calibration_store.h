// CalibrationStore: the rooflines GPU > Calibrate measured, one per GPU name + driver version, kept
// in the user's settings as core Calibration JSON (what `tilescope-cli calibrate --json` prints).
// The Performance and Runs pages measure runs against them instead of the datasheet.
#pragma once

#include <QObject>
#include <vector>

#include "core/series/calibration.h"

namespace tilescope {

class CalibrationStore : public QObject {
    Q_OBJECT
public:
    // useSettings = false: kept in memory only (tests, scripted screenshots).
    explicit CalibrationStore(bool useSettings, QObject* parent = nullptr);

    const std::vector<Calibration>& calibrations() const { return m_calibrations; }
    // Replaces the calibration of the same GPU and driver (a re-measure), else adds it; saves.
    void add(const Calibration& calibration);
    // The settings key of a calibration: "calibration/<GPU name> | <driver>".
    static QString settingsKey(const Calibration& calibration);

signals:
    void changed();

private:
    bool m_useSettings;
    std::vector<Calibration> m_calibrations;
};

}  // namespace tilescope

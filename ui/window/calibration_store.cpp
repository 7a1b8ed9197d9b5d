#include "ui/window/calibration_store.h"

#include <QSettings>
#include <algorithm>

namespace tilescope {

namespace {
const QString kGroup = QStringLiteral("calibration");
}

CalibrationStore::CalibrationStore(bool useSettings, QObject* parent) : QObject(parent), m_useSettings(useSettings) {
    if (!m_useSettings) return;
    QSettings settings;
    settings.beginGroup(kGroup);
    for (const QString& key : settings.childKeys()) {
        // A value this build cannot read (edited by hand, a newer format) is skipped, not fatal.
        auto read = calibrationFromJson(settings.value(key).toString().toStdString());
        if (read) m_calibrations.push_back(std::move(*read));
    }
}

QString CalibrationStore::settingsKey(const Calibration& calibration) {
    // '/' and '\' would split the key into settings groups.
    QString name = QString::fromStdString(calibration.gpuName + " | " + calibration.driverVersion);
    name.replace(QLatin1Char('/'), QLatin1Char('_')).replace(QLatin1Char('\\'), QLatin1Char('_'));
    return kGroup + QLatin1Char('/') + name;
}

void CalibrationStore::add(const Calibration& calibration) {
    auto same = std::find_if(m_calibrations.begin(), m_calibrations.end(), [&](const Calibration& c) {
        return c.gpuName == calibration.gpuName && c.driverVersion == calibration.driverVersion;
    });
    if (same != m_calibrations.end()) *same = calibration;
    else m_calibrations.push_back(calibration);
    if (m_useSettings) QSettings().setValue(settingsKey(calibration), QString::fromStdString(calibrationToJson(calibration)));
    emit changed();
}

}  // namespace tilescope

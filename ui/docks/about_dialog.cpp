#include "ui/docks/about_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>
#include <QtGlobal>

// Header-only version macros of the toolkit this build compiled against.
#include <cuda.h>
#include <cupti_version.h>

#include "core/model/build_info.h"

namespace tilescope {

namespace {

// CUDA_VERSION is major * 1000 + minor * 10 (cuda.h).
QString cudaVersionText(int v) { return QStringLiteral("%1.%2").arg(v / 1000).arg((v % 1000) / 10); }

}  // namespace

QString AboutDialog::versionText() {
    return QObject::tr(
               "Tilescope %1 (%2)\n"
               "Qt %3 (built against %4)\n"
               "CUDA toolkit headers %5 (build time; the GUI links no CUDA runtime)\n"
               "CUPTI API version %6 (build time)\n"
               "Driver: unknown — no GPU query in this process (live GPU runs go through tilescope-cli)")
        .arg(QStringLiteral(TILESCOPE_VERSION), QString::fromUtf8(tilescope::gitRevision()), QString::fromLatin1(qVersion()),
             QStringLiteral(QT_VERSION_STR), cudaVersionText(CUDA_VERSION))
        .arg(CUPTI_API_VERSION);
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("About Tilescope"));
    auto* title =
        new QLabel(tr("<h2>Tilescope</h2><p>A profiler for the shapes of GPU kernels: launch configuration, "
                      "shared memory, occupancy, tile choice and failure boundaries, per device.</p>"));
    title->setWordWrap(true);
    auto* versions = new QLabel(versionText());
    versions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(versions);
    layout->addWidget(buttons);
}

}  // namespace tilescope

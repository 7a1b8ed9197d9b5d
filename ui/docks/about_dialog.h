// AboutDialog: versions of Tilescope, Qt, and the CUDA toolkit and CUPTI headers it was built
// against (macros read at build time, no runtime), and the driver (unknown without a GPU).
#pragma once

#include <QDialog>

namespace tilescope {

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);
    static QString versionText();  // the plain-text body, for tests and --version
};

}  // namespace tilescope

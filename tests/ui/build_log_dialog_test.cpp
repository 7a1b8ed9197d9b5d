// File > Open Build Log… (issue 16): the kernels of real tool output listed, the chosen one opened in
// the explorer as a custom launch; GPU > Run refused for a kernel without device code.
#include <QAction>
#include <QApplication>
#include <QTableWidget>
#include <QTimer>
#include <QtTest>

#include "ui/docks/build_log_dialog.h"
#include "ui/window/explorer_state.h"
#include "ui/window/main_window.h"

namespace tilescope {

namespace {

QString dataFile(const char* relative) { return QStringLiteral(TILESCOPE_SOURCE_DIR "/tests/data/") + QLatin1String(relative); }

}  // namespace

class BuildLogDialogTest : public QObject {
    Q_OBJECT
private slots:
    void listsTheEntryFunctionsOfAPtxasReport() {
        BuildLogDialog dialog(dataFile("ptxas/scale_templates_sm90.log"));
        QVERIFY2(dialog.loaded(), qPrintable(dialog.error()));
        QCOMPARE(dialog.rowCount(), 2);
        QCOMPARE(dialog.table()->item(0, 0)->text(), QStringLiteral("void scale<double, 8192>(double*, double const*, double)"));
        QCOMPARE(dialog.table()->item(0, 1)->text(), QStringLiteral("14"));
        QCOMPARE(dialog.table()->item(0, 2)->text(), QStringLiteral("65,536"));
        QCOMPARE(dialog.table()->item(0, 4)->text(), QStringLiteral("not given"));
        QVERIFY(dialog.chosenShapeText().isEmpty());  // nothing chosen yet
        dialog.selectRow(0);
        QCOMPARE(dialog.chosenShapeText(), QStringLiteral("registers=14,static_smem=65536,dynamic_smem=0,smem_optin=0"));
        // Opened as custom: ptxas' static cap refuses it on every device.
        ExplorerState state;
        QVERIFY(state.setKernel(QStringLiteral("custom"), QStringLiteral("launch")));
        QVERIFY(state.setShapeText(dialog.chosenShapeText()));
        QCOMPARE(state.plan().verdict, Verdict::UnsupportedShape);
    }

    void opensAnNcuProfileWithItsLaunch() {
        BuildLogDialog dialog(dataFile("ncu/h200_gemm_bucket_bn256_details.csv"));
        QVERIFY2(dialog.loaded(), qPrintable(dialog.error()));
        QCOMPARE(dialog.rowCount(), 1);
        dialog.selectRow(0);
        QCOMPARE(dialog.chosenShapeText(), QStringLiteral("grid_x=64,grid_y=1,grid_z=1,block_x=256,block_y=1,block_z=1,registers=245,"
                                                          "static_smem=0,dynamic_smem=196608,smem_optin=1"));
        ExplorerState state;
        QVERIFY(state.setKernel(QStringLiteral("custom"), QStringLiteral("launch")));
        QVERIFY(state.setShapeText(dialog.chosenShapeText()));
        QVERIFY(state.setDevice(QStringLiteral("h200")));
        QCOMPARE(state.plan().verdict, Verdict::Ok);  // it ran there
        QVERIFY(state.setDevice(QStringLiteral("rtx-4090")));
        QCOMPARE(state.plan().verdict, Verdict::InvalidLaunch);
    }

    void refusesAFileOfNoKnownKind() {
        BuildLogDialog dialog(dataFile("ptxas/README.md"));
        QVERIFY(!dialog.loaded());
        QVERIFY(dialog.error().contains(QStringLiteral("not a ptxas report")));
    }

    void fileMenuOpensTheChosenKernelAndRunIsRefused() {
        MainWindow window(false);
        window.show();
        QTimer::singleShot(0, &window, [] {
            auto* dialog = qobject_cast<BuildLogDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            dialog->selectRow(1);  // scale<float, 256>
            dialog->accept();
        });
        QVERIFY(window.openBuildLog(dataFile("ptxas/scale_templates_sm90.log")));
        QCOMPARE(QString::fromUtf8(window.state()->kernel().family->name().data()), QStringLiteral("custom"));
        const ParameterList& parameters = window.state()->parameters();
        QCOMPARE(window.state()->shape()[parameterIndex(parameters, "registers")], 12);
        QCOMPARE(window.state()->shape()[parameterIndex(parameters, "static_smem")], 1024);
        QVERIFY(window.state()->plan().ok());
        // No device code: GPU > Run is off whatever the GPU, and says why.
        QVERIFY(!window.runAction()->isEnabled());
        QVERIFY(window.runAction()->toolTip().contains(QStringLiteral("no device code")));
    }
};

}  // namespace tilescope

QTEST_MAIN(tilescope::BuildLogDialogTest)
#include "build_log_dialog_test.moc"

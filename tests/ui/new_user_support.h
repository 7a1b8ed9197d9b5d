// What new_user_test.cpp and new_user_leftovers_test.cpp share: typing as a user does, and a test
// run on an offscreen screen of a given size (the window's fit to its screen is under test).
#pragma once

#include <QApplication>
#include <QFile>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

namespace tilescope::test {

// Types into a spin box as a user does: select all, the keys, then Enter.
inline void typeAndCommit(QSpinBox* box, const QString& text) {
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Return);
}

// Runs `TestObject`'s slots on one offscreen screen of width x height pixels.
template <typename TestObject>
int execOnOffscreenScreen(int argc, char* argv[], int width, int height) {
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 1;
    file.write(
        QStringLiteral(
            R"({"screens": [{"name": "screen", "x": 0, "y": 0, "width": %1, "height": %2, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
            .arg(width)
            .arg(height)
            .toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + config.toUtf8());
    QApplication app(argc, argv);
    TestObject test;
    return QTest::qExec(&test, argc, argv);
}

}  // namespace tilescope::test

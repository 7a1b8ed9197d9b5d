// The Backends page, offscreen: a real checkpoint's backend matrix, a cell's rule in its tooltip, and
// a double-click that opens the backend in the explorer.
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QtTest>

#include "ui/pages/backends_page.h"
#include "ui/window/explorer_state.h"

namespace tilescope {

class BackendsPageTest : public QObject {
    Q_OBJECT
private slots:
    void gemma2MatrixCellsCarryTheirRule();
    void doubleClickOpensTheBackend();
    void withoutAModelTheShapePanelsShapeIsChecked();
    void theShapePanelsMaskIsPlannedAndKeptOnDoubleClick();
    void badInputClearsTheMatrix_data();
    void badInputClearsTheMatrix();
};

namespace {
QString gemma2() { return QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/models/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json"); }
int rowOf(const QTableWidget* table, const QString& name) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->verticalHeaderItem(r) && table->verticalHeaderItem(r)->text() == name) return r;
    return -1;
}
int columnOf(const QTableWidget* table, const QString& name) {
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c) && table->horizontalHeaderItem(c)->text() == name) return c;
    return -1;
}
}  // namespace

void BackendsPageTest::gemma2MatrixCellsCarryTheirRule() {
    ExplorerState state;
    BackendsPage page(&state);
    page.devicesEdit()->setText(QStringLiteral("a10,h100-sxm"));
    QVERIFY(page.openModel(gemma2()));
    QTableWidget* table = page.table();
    QCOMPARE(table->columnCount(), 3);  // role, a10, h100-sxm
    const int cudnn = rowOf(table, QStringLiteral("sdpa/cudnn"));
    const int a10 = columnOf(table, QStringLiteral("a10"));
    QVERIFY(cudnn >= 0 && a10 >= 0);
    QCOMPARE(table->item(cudnn, a10)->text(), QStringLiteral("shape"));  // unsupported_shape, shortened
    QVERIFY(table->item(cudnn, a10)->toolTip().contains(QStringLiteral("head_dim should be no more than 128")));
    QVERIFY(rowOf(table, QStringLiteral("marlin/gemm")) >= 0);
    QVERIFY(rowOf(table, QStringLiteral("awq_gemm/gemm")) >= 0);
    QCOMPARE(rowOf(table, QStringLiteral("attention/fa2_bwd")), -1);
    page.trainBox()->setChecked(true);
    QVERIFY(page.check());
    QVERIFY(rowOf(page.table(), QStringLiteral("attention/fa2_bwd")) >= 0);
}

void BackendsPageTest::doubleClickOpensTheBackend() {
    ExplorerState state;
    BackendsPage page(&state);
    page.devicesEdit()->setText(QStringLiteral("a10,h100-sxm"));
    QVERIFY(page.openModel(gemma2()));
    QSignalSpy opened(&page, &BackendsPage::backendOpened);
    const int row = rowOf(page.table(), QStringLiteral("flashinfer/decode"));
    const int column = columnOf(page.table(), QStringLiteral("h100-sxm"));
    QVERIFY(page.openCell(row, column));
    QCOMPARE(opened.count(), 1);
    QCOMPARE(QString::fromStdString(std::string(state.kernel().family->name())), QStringLiteral("flashinfer"));
    QCOMPARE(QString::fromStdString(std::string(state.kernel().variantName())), QStringLiteral("decode"));
    QCOMPARE(QString::fromStdString(state.device().id), QStringLiteral("h100-sxm"));
    QCOMPARE(state.shape()[parameterIndex(state.parameters(), "head_dim")], 256);
    QCOMPARE(state.shape()[parameterIndex(state.parameters(), "kv_heads")], 8);
}

void BackendsPageTest::withoutAModelTheShapePanelsShapeIsChecked() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state.setShapeText(QStringLiteral("head_dim=512,head_dim_v=512")));
    BackendsPage page(&state);
    page.devicesEdit()->setText(QStringLiteral("h100-sxm"));
    QVERIFY(page.check());
    const int fi = rowOf(page.table(), QStringLiteral("flashinfer/prefill"));
    QVERIFY(fi >= 0);
    QVERIFY(page.table()->item(fi, 1)->toolTip().contains(QStringLiteral("failed to dispatch head_dim 512")));
    QCOMPARE(rowOf(page.table(), QStringLiteral("marlin/gemm")), -1);  // a shape has no linear layers
}

// Issue 31: the page said it checks the Shape panel's shape but planned causal=1; a double-click on a
// cell then set causal=1 in the panel.
void BackendsPageTest::theShapePanelsMaskIsPlannedAndKeptOnDoubleClick() {
    ExplorerState state;
    QVERIFY(state.setKernel(QStringLiteral("attention"), QStringLiteral("fa2")));
    QVERIFY(state.setShapeText(QStringLiteral("causal=0,num_splits=4")));
    BackendsPage page(&state);
    page.devicesEdit()->setText(QStringLiteral("h100-sxm"));
    QVERIFY(page.check());
    bool said = false;
    for (const QLabel* label : page.findChildren<QLabel*>()) said = said || label->text().contains(QStringLiteral("causal 0"));
    QVERIFY2(said, "the page says which mask it plans");
    const int fa2 = rowOf(page.table(), QStringLiteral("attention/fa2"));
    QVERIFY(fa2 >= 0);
    QVERIFY(page.openCell(fa2, columnOf(page.table(), QStringLiteral("h100-sxm"))));
    QCOMPARE(state.shape()[parameterIndex(state.parameters(), "causal")], 0);
    QCOMPARE(state.shape()[parameterIndex(state.parameters(), "num_splits")], 4);  // the family's own rows keep its other values
}

// Issue 31: after a bad device list (or batch list) the page kept the previous matrix under the error.
void BackendsPageTest::badInputClearsTheMatrix_data() {
    QTest::addColumn<QString>("devices");
    QTest::addColumn<QString>("batches");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown device") << "a10,no-such-gpu"
                                    << "1,8,64"
                                    << "no-such-gpu";
    QTest::newRow("batch 0") << "a10"
                             << "0"
                             << "at least 1";
}

void BackendsPageTest::badInputClearsTheMatrix() {
    QFETCH(QString, devices);
    QFETCH(QString, batches);
    QFETCH(QString, error);
    ExplorerState state;
    BackendsPage page(&state);
    page.devicesEdit()->setText(QStringLiteral("a10,h100-sxm"));
    QVERIFY(page.openModel(gemma2()));
    QVERIFY(page.table()->rowCount() > 0);
    page.devicesEdit()->setText(devices);
    page.batchesEdit()->setText(batches);
    QVERIFY(!page.check());
    QCOMPARE(page.table()->rowCount(), 0);
    QVERIFY(!page.matrix());
    QVERIFY2(page.summaryLabel()->text().contains(error), qPrintable(page.summaryLabel()->text()));
}

}  // namespace tilescope

QTEST_MAIN(tilescope::BackendsPageTest)
#include "backends_page_test.moc"

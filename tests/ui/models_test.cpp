// Every model of libtilescope_ui under QAbstractItemModelTester, through resets and updates.
#include <QAbstractItemModelTester>
#include <QTest>

#include "core/model/device_spec.h"
#include "core/model/fix_finder.h"
#include "core/series/launch_usage.h"
#include "kernels/builtin_kernels.h"
#include "ui/models/candidate_model.h"
#include "ui/models/launch_model.h"

using namespace tilescope;

namespace {

LaunchPlan planFor(const char* family, const char* variant, const char* device, const char* shape) {
    auto kernel = resolveKernel(builtinKernels(), family, variant);
    auto parsed = parseShape(shape, kernel->family->parameters());
    return planWithFix(*kernel, *parsed, *DeviceDatabase::embedded().find(device), nullptr);
}

}  // namespace

class ModelsTest : public QObject {
    Q_OBJECT
private slots:
    void launchModel() {
        LaunchModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DeviceSpec& h100 = *DeviceDatabase::embedded().find("h100-sxm");
        const LaunchPlan failing = planFor("awq_gemm", "legacy_grid_y", "h100-sxm", "M=32768,N=5376");
        model.setUsage(launchUsage(failing, h100));
        QCOMPARE(model.columnCount(), int(LaunchModel::ColumnCount));
        QVERIFY(model.rowCount() > 0);
        int gridY = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.data(model.index(r, LaunchModel::Quantity)).toString() == QLatin1String("grid.y")) gridY = r;
        QVERIFY(gridY >= 0);
        QCOMPARE(model.data(model.index(gridY, LaunchModel::Value)).toString(), QStringLiteral("86,016 blocks"));
        QCOMPARE(model.data(model.index(gridY, LaunchModel::LimitName)).toString(), QStringLiteral("max_grid_dim_y"));
        QVERIFY(model.data(model.index(gridY, LaunchModel::Value), Qt::ForegroundRole).isValid());  // red: over

        const LaunchPlan passing = planFor("awq_gemm", "legacy_grid_y", "h100-sxm", "M=16,N=5376");
        model.setUsage(launchUsage(passing, h100));
        QVERIFY(!model.data(model.index(gridY, LaunchModel::Value), Qt::ForegroundRole).isValid());
        model.setUsage({});
        QCOMPARE(model.rowCount(), 0);

        // Split-KV decode: the combine's rows follow the split kernel's, labelled with its role.
        const LaunchPlan decode = planFor("attention", "fa2", "h200", "batch=1,seqlen_q=1,seqlen_k=32768,heads=32");
        const DeviceSpec& h200 = *DeviceDatabase::embedded().find("h200");
        model.setUsage(callLaunchUsage(decode, h200));
        const int single = static_cast<int>(launchUsage(decode, h200).size());
        QCOMPARE(model.rowCount(), 2 * single);
        QCOMPARE(model.data(model.index(1, LaunchModel::Value)).toString(), QStringLiteral("7 blocks"));  // grid.y: splits
        QCOMPARE(model.data(model.index(single, LaunchModel::Quantity)).toString(), QStringLiteral("combine: grid.x"));
        QCOMPARE(model.data(model.index(single, LaunchModel::Value)).toString(), QStringLiteral("8 blocks"));
    }

    void candidateModel() {
        CandidateModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const LaunchPlan plan = planFor("gemm_bucket", "", "a100-80gb-sxm", "M=300");
        model.setPlan(plan);
        QCOMPARE(model.rowCount(), int(plan.candidates.size()));
        QVERIFY(model.rowCount() >= 7);
        QCOMPARE(model.chosen(), plan.tileIndex);
        bool anyTooLarge = false;
        for (int r = 0; r < model.rowCount(); ++r)
            anyTooLarge |= model.data(model.index(r, CandidateModel::Fits)).toString() == QLatin1String("too large");
        QVERIFY(anyTooLarge);  // the big cells exceed the A100's opt-in limit
        model.setPlan(planFor("awq_gemv", "", "h100-sxm", "M=1"));
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(ModelsTest)
#include "models_test.moc"

#include "timeline_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include "gui_test.h"

using namespace trainsim;
using namespace trainsim::gui;

class TimelineModelTest : public QObject {
  Q_OBJECT
 private slots:
  void passes_the_model_tester_through_resets() {
    TimelineModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_timeline(test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5)));
    QCOMPARE(model.rowCount(), 4);  // pipeline ranks
    model.set_timeline(test_gui::simulate_yaml(test_gui::pipeline_yaml(2, 4, 1, 2, 0)));
    QCOMPARE(model.rowCount(), 2);
    model.set_timeline(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }
  void stages_ranks_streams_with_busy_time() {
    // 1F1B p = 4, m = 8, F = 1, B = 2 ms, no p2p: every stage computes 8 · (1 + 2) = 24 ms of
    // a (8 + 3) · 3 = 33 ms step: 72.7 %.
    TimelineModel model;
    model.set_timeline(test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0)));
    const QModelIndex stage0 = model.index(0, 0);
    QCOMPARE(model.rowCount(stage0), 1);  // one simulated rank
    const QModelIndex rank0 = model.index(0, 0, stage0);
    QCOMPARE(model.data(model.index(0, TimelineModel::Tasks, stage0)).toULongLong(), 16ull);
    QCOMPARE(model.data(model.index(0, TimelineModel::Busy, stage0)).toString(), QString("24 ms"));
    QCOMPARE(model.data(model.index(0, TimelineModel::Utilisation, stage0)).toString(),
             QString("72.7 %"));
    // Stage 0 streams: compute, send (activations), recv (gradients).
    QCOMPARE(model.rowCount(rank0), 3);
    QCOMPARE(model.data(model.index(0, 0, rank0)).toString(), QString("compute"));
    QCOMPARE(model.parent(model.index(0, 0, rank0)), rank0.siblingAtColumn(0));
  }
};
TRAINSIM_GUI_TEST(TimelineModelTest);

#include "timeline_model_test.moc"

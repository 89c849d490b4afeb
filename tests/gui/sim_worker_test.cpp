#include "sim_worker.h"

#include <QSignalSpy>
#include <QTest>

#include "gui_test.h"

using namespace trainsim;
using namespace trainsim::gui;

class SimWorkerTest : public QObject {
  Q_OBJECT
 private slots:
  void a_newer_request_cancels_the_older() {
    // The first request is large (p = 8, m = 20 000: 320 000 compute tasks and their p2p); the
    // second, small, arrives at once. Only the second's result is delivered, and it is the
    // second's: 1F1B p = 2, m = 4, F = 1, B = 2: (4 + 1) · 3 = 15 ms.
    SimWorker w;
    QSignalSpy done(&w, &SimWorker::finished);
    QSignalSpy failed(&w, &SimWorker::failed);
    w.request(
        {test_gui::write_scenario(test_gui::pipeline_yaml(8, 20000, 1, 2, 0.1)), {}, {}, true});
    w.request({test_gui::write_scenario(test_gui::pipeline_yaml(2, 4, 1, 2, 0)), {}, {}, true});
    QVERIFY(done.wait(20000));
    w.wait();
    QCOMPARE(done.count(), 1);
    QCOMPARE(failed.count(), 0);
    const auto o = done.at(0).at(0).value<std::shared_ptr<const SimOutcome>>();
    QCOMPARE(o->timeline->makespan, TimeNs{15'000'000});
    QVERIFY(!w.busy());
  }
  void a_rejected_override_names_its_key() {
    SimWorker w;
    QSignalSpy failed(&w, &SimWorker::failed);
    w.request({test_gui::write_scenario(test_gui::pipeline_yaml(2, 4, 1, 2, 0)),
               {"parallelism.pp=0"},
               {},
               true});
    QVERIFY(failed.wait(10000));
    QCOMPARE(failed.at(0).at(1).toString(), QString("parallelism.pp"));
    QVERIFY(failed.at(0).at(0).toString().contains("parallelism.pp"));
  }
  void compared_schedules_come_with_their_reports() {
    // p = 4, m = 8, F = 1, B = 2, no p2p: AFAB and 1F1B both take (m + p − 1)(F + B) = 33 ms;
    // interleaved needs vpp ≥ 2, so it reports an error instead of a timeline.
    const SimOutcome o =
        run_request({test_gui::write_scenario(test_gui::pipeline_yaml(4, 8, 1, 2, 0)),
                     {},
                     {"afab", "1f1b", "interleaved-1f1b"},
                     true});
    QCOMPARE(o.compared.size(), std::size_t{3});
    QCOMPARE(o.compared[0].report.step_time_s, 0.033);
    QCOMPARE(o.compared[1].report.step_time_s, 0.033);
    QVERIFY(!o.compared[2].gantt);
    QVERIFY(QString::fromStdString(o.compared[2].error).contains("vpp"));
  }
  void compared_schedules_say_when_they_run_out_of_memory() {
    // The default scenario (Llama-3.1-8B, pp 4, 32 micro-batches, 80 GiB H100s): AFAB holds all
    // 32 micro-batches' activations (stage 3: ~252 GB) and runs out; 1F1B holds p − r (~56 GB).
    const SimOutcome o =
        run_request({TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", {}, {"afab", "1f1b"}, true});
    QCOMPARE(o.compared.size(), std::size_t{2});
    QVERIFY(o.compared[0].out_of_memory);
    QVERIFY(!o.compared[1].out_of_memory);
    QCOMPARE(o.compared[0].device_memory, o.timeline->scenario.cluster.gpu.memory);
    QVERIFY(o.compared[0].peak_memory > o.compared[0].device_memory);
    QVERIFY(o.compared[1].peak_memory < o.compared[1].device_memory);
  }
};
TRAINSIM_GUI_TEST(SimWorkerTest);

#include "sim_worker_test.moc"

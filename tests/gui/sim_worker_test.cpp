#include "sim_worker.h"

#include <cmath>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include "schedules/registry.h"

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
        {test_gui::write_scenario(test_gui::pipeline_yaml(8, 20000, 1, 2, 0.1)), {}, {}, true, {}});
    w.request({test_gui::write_scenario(test_gui::pipeline_yaml(2, 4, 1, 2, 0)), {}, {}, true, {}});
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
               true,
               {}});
    QVERIFY(failed.wait(10000));
    QCOMPARE(failed.at(0).at(1).toString(), QString("parallelism.pp"));
    QVERIFY(failed.at(0).at(0).toString().contains("parallelism.pp"));
  }
  void compared_schedules_come_with_their_reports() {
    // p = 4, m = 8, F = 1, B = 2, no p2p: AFAB and 1F1B both take (m + p − 1)(F + B) = 33 ms.
    // Interleaved needs vpp ≥ 2: the retry rule runs it at vpp 2 (F = 0.5, B = 1 per chunk),
    // m(F + B) + (p − 1)(F + B)/v = 24 + 4.5 = 28.5 ms. ZB-H1 splits the backward, which a
    // fused `backward:` cost cannot: a row with the error, not an abort of the others.
    const SimOutcome o =
        run_request({test_gui::write_scenario(test_gui::pipeline_yaml(4, 8, 1, 2, 0)),
                     {},
                     {"afab", "1f1b", "interleaved-1f1b", "zb-h1"},
                     true,
                     {}});
    QCOMPARE(o.compared.size(), std::size_t{4});
    QCOMPARE(o.compared[0].report.step_time_s, 0.033);
    QCOMPARE(o.compared[1].report.step_time_s, 0.033);
    QCOMPARE(o.compared[2].schedule, std::string("interleaved-1f1b (vpp 2)"));
    QCOMPARE(o.compared[2].report.step_time_s, 0.0285);
    QVERIFY(!o.compared[3].gantt);
    QVERIFY(QString::fromStdString(o.compared[3].error).contains("costs.backward_input"));
  }
  void compare_shows_what_the_cli_prints_for_every_bundled_scenario() {
    // The same call behind both (run/variants.h): for each scenario in scenarios/, every
    // registered schedule gives the same rows (name, step time) and the same skipped names.
    const QDir dir(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios"));
    const QStringList files = dir.entryList({QStringLiteral("*.yaml")}, QDir::Files);
    QVERIFY(files.size() >= 3);
    for (const QString& f : files) {
      const QString path = dir.filePath(f);
      QProcess cli;
      cli.start(QStringLiteral(TRAINSIM_CLI), {"compare", "--json", "--schedules", "all", path});
      QVERIFY(cli.waitForFinished(60000));
      QCOMPARE(cli.exitCode(), 0);
      const QJsonObject j = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
      std::vector<std::pair<std::string, double>> cli_rows;
      for (const auto& value : j["schedules"].toArray()) {
        const QJsonObject row = value.toObject();
        cli_rows.emplace_back(row["label"].toString().toStdString(), row["step_time_s"].toDouble());
      }
      std::vector<std::string> cli_skipped;
      for (const auto& line : j["skipped"].toArray()) {
        const std::string text = line.toString().toStdString();
        cli_skipped.push_back(text.substr(0, text.find(':')));
      }
      const SimOutcome o = run_request({path.toStdString(), {}, schedule_names(), true, {}});
      std::vector<std::pair<std::string, double>> gui_rows;
      std::vector<std::string> gui_skipped;
      for (const auto& c : o.compared)
        if (c.gantt)
          gui_rows.emplace_back(c.schedule, c.report.step_time_s);
        else
          gui_skipped.push_back(c.schedule);
      const QByteArray name = f.toUtf8();
      QVERIFY2(!gui_rows.empty(), name.constData());
      QVERIFY2(gui_rows.size() == cli_rows.size(), name.constData());
      for (std::size_t i = 0; i < gui_rows.size(); ++i) {
        QCOMPARE(gui_rows[i].first, cli_rows[i].first);
        QVERIFY2(std::abs(gui_rows[i].second - cli_rows[i].second) <= 1e-9 * cli_rows[i].second,
                 (name + " " + QByteArray::fromStdString(gui_rows[i].first)).constData());
      }
      QVERIFY2(gui_skipped == cli_skipped, name.constData());
    }
  }
  void the_default_scenario_compares_every_schedule_without_an_error_row() {
    // Llama-3.1-8B, pp 4, m 32: the chunked schedules run at vpp 2, the others at vpp 1.
    const SimOutcome o = run_request(
        {TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", {}, schedule_names(), true, {}});
    QCOMPARE(o.compared.size(), schedule_names().size());
    for (const auto& c : o.compared) QVERIFY2(c.error.empty() && c.gantt, c.error.c_str());
  }
  void the_memory_report_is_built_on_the_worker() {
    // Default scenario: pp 4, so 4 stage series; the outcome carries the report and the series
    // the memory view draws, so the GUI thread builds neither.
    const SimOutcome o =
        run_request({TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", {}, {}, true, {}});
    QVERIFY(o.memory && o.memory_series);
    QCOMPARE(o.memory_series->size(), std::size_t{4});
    QCOMPARE(o.peak_memory, o.memory->largest_peak());
    // A costs-only study has no bytes: neither is built.
    const SimOutcome c = run_request(
        {test_gui::write_scenario(test_gui::pipeline_yaml(2, 4, 1, 2, 0)), {}, {}, true, {}});
    QVERIFY(!c.memory && !c.memory_series);
  }
  void compared_schedules_say_when_they_run_out_of_memory() {
    // The default scenario (Llama-3.1-8B, pp 4, 32 micro-batches, 79.18 GiB H100s): AFAB holds all
    // 32 micro-batches' activations (stage 3: ~255 GB) and runs out; 1F1B holds p − r (~56 GB).
    const SimOutcome o = run_request(
        {TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", {}, {"afab", "1f1b"}, true, {}});
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
